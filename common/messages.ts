/**
 * Herald's internal message shape. Everything inside Herald is OpenAI chat-shaped
 * (`system | user | assistant | tool`); API adapters convert at the call boundary.
 */

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Anthropic thinking blocks, replayed with their signatures on the next call. */
export type AnthropicThinkingBlock =
  { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string };

/** A Responses API reasoning item (`store: false` means the encrypted content travels with us). */
export interface ResponsesReasoningItem {
  type: 'reasoning';
  id?: string;
  encrypted_content?: string | null;
  summary: Array<{ type: 'summary_text'; text: string }>;
}

/**
 * Provider-specific reasoning an adapter needs to send back verbatim. Opaque to the rest of Herald;
 * an adapter ignores the other format (after a provider switch).
 */
export type ReasoningDetails =
  { format: 'anthropic'; blocks: AnthropicThinkingBlock[] } | { format: 'responses'; items: ResponsesReasoningItem[] };

export interface ChatMessage {
  role: Role;
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  /** Tool name on `tool` messages (kept for display and for providers that want it). */
  name?: string;
  /** Visible reasoning text of an assistant message (never sent back as content). */
  reasoning?: string;
  /** Provider reasoning to replay (thinking signatures, encrypted reasoning items). */
  reasoning_details?: ReasoningDetails;
}

/** A message as stored in the transcript: its position in the session is part of it. */
export interface StoredMessage extends ChatMessage {
  seq: number;
}

/** Usage of one model call or a sum of several, in provider-neutral terms. */
export interface Usage {
  /** Prompt tokens not served from a cache. */
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  cost_usd: number;
}

export function emptyUsage(): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    total_tokens: 0,
    cost_usd: 0,
  };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
    reasoning_tokens: a.reasoning_tokens + b.reasoning_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    cost_usd: roundCost(a.cost_usd + b.cost_usd),
  };
}

/** Costs are kept to a micro-dollar so sums stay stable across replays and serialisation. */
export function roundCost(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
