/** What every API-mode adapter takes and gives back, in Herald's OpenAI-shaped terms. */
import type { ChatMessage, ReasoningDetails, ToolCall } from '../common/messages.js';

export interface ToolSchema {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  /** System prompt first, then the repaired transcript. */
  messages: ChatMessage[];
  tools: ToolSchema[];
  /** Output token cap (Anthropic requires one; others use it when set). */
  maxOutputTokens?: number | undefined;
  /** Anthropic prompt caching: breakpoint TTL. */
  cacheTtl?: '5m' | '1h' | undefined;
  /** Sampling temperature, already in the mode's range (shared/temperature.ts); unset: the provider's default. */
  temperature?: number | undefined;
  /** Ask for no tool use on this call (the budget-summary call). */
  toolChoiceNone?: boolean | undefined;
  /** Cut a stream that has run into a loop (model-adapters/runaway.ts): local servers only. */
  cutRunaways?: boolean | undefined;
}

/** Raw token counts as the provider reported them (before pricing). */
export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

export interface ModelResponse {
  content: string;
  reasoning: string | null;
  /** Provider reasoning to store for replay, when the mode has any. */
  reasoningDetails?: ReasoningDetails | undefined;
  toolCalls: ToolCall[];
  /** OpenAI-style: stop | tool_calls | length | content_filter. */
  finishReason: string;
  tokens: TokenCounts;
  model: string;
  /** The stream was cut because it ran into a loop (finishReason is then `length`): which stream. */
  runaway?: string | undefined;
}

/** Where streamed output goes while a call runs (events for watching clients, liveness). */
export interface StreamSink {
  text(delta: string): void;
  reasoning(delta: string): void;
  toolGenerating(name: string): void;
  /** Any bytes arrived: the call is alive. */
  alive(): void;
  /**
   * The provider reported usage (so far): kept by the caller so an attempt that then fails or is
   * cancelled is still accounted with what the provider said it used.
   */
  usage?(tokens: TokenCounts): void;
}

export interface CallContext {
  signal: AbortSignal;
  sink: StreamSink;
}
