/**
 * The `anthropic_messages` API mode through `@anthropic-ai/sdk`: the system prompt outside the
 * messages, `tool_use` / `tool_result` blocks, thinking blocks replayed with their signatures,
 * consecutive same-role messages merged, placeholders for empty content, and prompt-cache
 * breakpoints on the system prompt and the last three messages (docs/providers.md).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { AnthropicThinkingBlock, ChatMessage, ToolCall } from '../common/messages.js';
import { canonicalArguments } from '../shared/role-order.js';
import { MalformedResponseError, readStream } from './stream-errors.js';
import { ANTHROPIC_REPLAY, replayedThinking, thinkingReplayFor, type ThinkingReplay } from './thinking-replay.js';
import type { CallContext, ModelRequest, ModelResponse, TokenCounts } from './types.js';

type MessageParam = Anthropic.Messages.MessageParam;
type BlockParam = Anthropic.Messages.ContentBlockParam;
type CacheControl = Anthropic.Messages.CacheControlEphemeral;

export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;
const EMPTY_USER = '(empty message)';
const EMPTY_ASSISTANT = '(empty)';
const EMPTY_RESULT = '(no output)';
const CONTINUE_USER = '(continuing the conversation)';
/** Breakpoints: the system prompt plus this many of the last messages (Anthropic allows four). */
const MESSAGE_BREAKPOINTS = 3;

/** Anthropic tool ids allow only [A-Za-z0-9_-]. */
export function sanitizeToolId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_') || 'tool';
}

function parseInput(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function thinkingBlocks(m: ChatMessage, replay: ThinkingReplay): BlockParam[] {
  return replayedThinking(m, replay).map((b): BlockParam =>
    b.type === 'thinking'
      ? { type: 'thinking', thinking: b.thinking, signature: b.signature }
      : { type: 'redacted_thinking', data: b.data },
  );
}

/**
 * Per request: each original tool id maps to one clean id, distinct from every other (`a|b` and
 * `a.b` would both sanitise to `a_b`, and Anthropic rejects duplicate tool_use ids).
 */
function toolIdMapper(): (id: string) => string {
  const byOriginal = new Map<string, string>();
  const used = new Set<string>();
  return (id) => {
    const known = byOriginal.get(id);
    if (known) return known;
    const base = sanitizeToolId(id);
    let clean = base;
    for (let n = 2; used.has(clean); n++) clean = `${base}_${n}`;
    byOriginal.set(id, clean);
    used.add(clean);
    return clean;
  };
}

function assistantBlocks(
  m: ChatMessage,
  withThinking: boolean,
  idFor: (id: string) => string,
  replay: ThinkingReplay,
): BlockParam[] {
  const blocks: BlockParam[] = withThinking ? thinkingBlocks(m, replay) : [];
  if (m.content?.trim()) blocks.push({ type: 'text', text: m.content });
  for (const call of m.tool_calls ?? []) {
    // Canonical key order keeps the bytes stable across calls, so the prompt cache hits.
    blocks.push({
      type: 'tool_use',
      id: idFor(call.id),
      name: call.function.name,
      input: parseInput(canonicalArguments(call.function.arguments)),
    });
  }
  if (!blocks.some((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking'))
    blocks.push({ type: 'text', text: EMPTY_ASSISTANT });
  return blocks;
}

/**
 * Convert Herald's OpenAI-shaped transcript (system first) to Anthropic's request parts.
 * Thinking blocks are replayed only for assistant messages after the last user message: the
 * API needs them to continue a tool loop and ignores them from earlier turns. Endpoints with
 * other rules (DeepSeek: every turn; MiniMax: signed only) pass their `replay` (thinking-replay.ts).
 */
export function toAnthropicMessages(
  messages: readonly ChatMessage[],
  cacheTtl?: '5m' | '1h',
  replay: ThinkingReplay = ANTHROPIC_REPLAY,
): { system: Anthropic.Messages.TextBlockParam[]; messages: MessageParam[] } {
  const systemText = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content ?? '')
    .join('\n\n');
  const rest = messages.filter((m) => m.role !== 'system');
  let lastUser = -1;
  rest.forEach((m, i) => {
    if (m.role === 'user') lastUser = i;
  });

  const idFor = toolIdMapper();
  const out: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: BlockParam[]) => {
    const prev = out[out.length - 1];
    if (prev && prev.role === role) {
      const prevBlocks = prev.content as BlockParam[];
      // Merged assistants keep only the first one's thinking: thinking must lead the message.
      const incoming =
        role === 'assistant' ? blocks.filter((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking') : blocks;
      // Tool results must come first in a user message.
      prev.content =
        role === 'user'
          ? orderUserBlocks([...prevBlocks, ...incoming])
          : [...prevBlocks.filter((b) => !(b.type === 'text' && b.text === EMPTY_ASSISTANT)), ...incoming];
      return;
    }
    out.push({ role, content: blocks });
  };

  rest.forEach((m, i) => {
    // Anthropic rejects text blocks that are empty or only whitespace.
    if (m.role === 'user') push('user', [{ type: 'text', text: m.content?.trim() ? m.content : EMPTY_USER }]);
    else if (m.role === 'assistant')
      push('assistant', assistantBlocks(m, replay.everyTurn || i > lastUser, idFor, replay));
    else if (m.role === 'tool') {
      push('user', [
        {
          type: 'tool_result',
          tool_use_id: idFor(m.tool_call_id ?? ''),
          content: m.content?.trim() ? m.content : EMPTY_RESULT,
        },
      ]);
    }
  });
  stripOrphanToolBlocks(out);
  // The Messages API wants a user message first; a transcript can open with an assistant one (say,
  // a summary written by a custom context engine).
  if (out[0]?.role === 'assistant') out.unshift({ role: 'user', content: [{ type: 'text', text: CONTINUE_USER }] });

  const system: Anthropic.Messages.TextBlockParam[] = systemText ? [{ type: 'text', text: systemText }] : [];
  if (cacheTtl) applyCacheBreakpoints(system, out, cacheTtl);
  return { system, messages: out };
}

function orderUserBlocks(blocks: BlockParam[]): BlockParam[] {
  return [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')];
}

/** A tool_use must be answered in the very next user message, and a tool_result must answer one. */
function stripOrphanToolBlocks(out: MessageParam[]): void {
  for (let i = 0; i < out.length; i++) {
    const m = out[i]!;
    const blocks = m.content as BlockParam[];
    if (m.role === 'assistant') {
      const next = out[i + 1];
      const answered = new Set(
        ((next?.content ?? []) as BlockParam[]).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])),
      );
      const kept = blocks.filter((b) => b.type !== 'tool_use' || answered.has(b.id));
      m.content = kept.some((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking')
        ? kept
        : [...kept, { type: 'text', text: '(tool call removed)' }];
    } else {
      const prev = out[i - 1];
      const asked = new Set(
        ((prev?.role === 'assistant' ? prev.content : []) as BlockParam[]).flatMap((b) =>
          b.type === 'tool_use' ? [b.id] : [],
        ),
      );
      const kept = blocks.filter((b) => b.type !== 'tool_result' || asked.has(b.tool_use_id));
      m.content = kept.length ? kept : [{ type: 'text', text: '(tool result removed)' }];
    }
  }
}

/** Four breakpoints: the system prompt and the last block of each of the last three messages. */
function applyCacheBreakpoints(
  system: Anthropic.Messages.TextBlockParam[],
  messages: MessageParam[],
  ttl: '5m' | '1h',
): void {
  const control: CacheControl = ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const last = system[system.length - 1];
  if (last) last.cache_control = control;
  for (const m of messages.slice(-MESSAGE_BREAKPOINTS)) {
    const blocks = m.content as BlockParam[];
    for (let j = blocks.length - 1; j >= 0; j--) {
      const b = blocks[j]!;
      if (b.type === 'thinking' || b.type === 'redacted_thinking') continue;
      (b as { cache_control?: CacheControl }).cache_control = control;
      break;
    }
  }
}

const STOP_REASONS: Record<string, string> = {
  end_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  stop_sequence: 'stop',
  refusal: 'content_filter',
  model_context_window_exceeded: 'length',
  pause_turn: 'stop',
};

interface Block {
  type: string;
  text: string;
  thinking: string;
  signature: string;
  data: string;
  id: string;
  name: string;
  json: string;
}

export async function callAnthropicMessages(
  client: Anthropic,
  req: ModelRequest,
  ctx: CallContext,
): Promise<ModelResponse> {
  const { system, messages } = toAnthropicMessages(req.messages, req.cacheTtl, thinkingReplayFor(client.baseURL));
  const params: Anthropic.Messages.MessageCreateParamsStreaming = {
    model: req.model,
    max_tokens: req.maxOutputTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    messages,
    stream: true,
  };
  if (system.length) params.system = system;
  // The SDK's types no longer list `temperature` (newer Claude models fix it), but the Messages API
  // and Anthropic-compatible endpoints (MiniMax, DeepSeek, Kimi) take it; a model that refuses it is
  // asked again without (dispatch.ts). Only sent when configured or for a local server.
  if (req.temperature !== undefined) Object.assign(params, { temperature: req.temperature });
  if (req.tools.length) {
    // Tools stay declared even on a tool-less call: a transcript with tool_use blocks requires them.
    params.tools = req.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters as Anthropic.Messages.Tool.InputSchema,
    }));
    if (req.toolChoiceNone) params.tool_choice = { type: 'none' };
  }
  const stream = await client.messages.create(params, { signal: ctx.signal });
  const blocks: Block[] = [];
  let stopReason = '';
  let model = req.model;
  const tokens: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  let finished = false;
  for await (const event of readStream(stream, ctx.signal)) {
    ctx.sink.alive();
    switch (event.type) {
      case 'message_start': {
        model = event.message.model || model;
        const u = event.message.usage;
        tokens.input = u.input_tokens ?? 0;
        tokens.cacheRead = u.cache_read_input_tokens ?? 0;
        tokens.cacheWrite = u.cache_creation_input_tokens ?? 0;
        tokens.output = u.output_tokens ?? 0;
        ctx.sink.usage?.({ ...tokens });
        break;
      }
      case 'content_block_start': {
        const cb = event.content_block as {
          type: string;
          text?: string;
          thinking?: string;
          signature?: string;
          data?: string;
          id?: string;
          name?: string;
        };
        blocks[event.index] = {
          type: cb.type,
          text: cb.text ?? '',
          thinking: cb.thinking ?? '',
          signature: cb.signature ?? '',
          data: cb.data ?? '',
          id: cb.id ?? '',
          name: cb.name ?? '',
          json: '',
        };
        if (cb.type === 'tool_use' && cb.name) ctx.sink.toolGenerating(cb.name);
        if (cb.text) ctx.sink.text(cb.text);
        break;
      }
      case 'content_block_delta': {
        const b = blocks[event.index];
        if (!b) break;
        const d = event.delta;
        if (d.type === 'text_delta') {
          b.text += d.text;
          ctx.sink.text(d.text);
        } else if (d.type === 'thinking_delta') {
          b.thinking += d.thinking;
          ctx.sink.reasoning(d.thinking);
        } else if (d.type === 'signature_delta') b.signature += d.signature;
        else if (d.type === 'input_json_delta') b.json += d.partial_json;
        break;
      }
      case 'message_delta':
        if (event.delta.stop_reason) stopReason = event.delta.stop_reason;
        if (event.usage?.output_tokens !== undefined) tokens.output = event.usage.output_tokens;
        if (event.usage?.cache_read_input_tokens) tokens.cacheRead = event.usage.cache_read_input_tokens;
        if (event.usage?.cache_creation_input_tokens) tokens.cacheWrite = event.usage.cache_creation_input_tokens;
        if (event.usage?.input_tokens) tokens.input = event.usage.input_tokens;
        ctx.sink.usage?.({ ...tokens });
        break;
      case 'message_stop':
        finished = true;
        break;
      default:
        break;
    }
  }
  if (!finished || !stopReason)
    throw new MalformedResponseError('the Anthropic stream ended before message_stop (connection cut mid-response)');
  return fromBlocks(blocks.filter(Boolean), STOP_REASONS[stopReason] ?? stopReason, tokens, model);
}

function fromBlocks(blocks: Block[], finishReason: string, tokens: TokenCounts, model: string): ModelResponse {
  const text = blocks
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
  const thinking = blocks
    .filter((b) => b.type === 'thinking')
    .map((b) => b.thinking)
    .join('\n\n');
  const replay: AnthropicThinkingBlock[] = blocks.flatMap((b): AnthropicThinkingBlock[] =>
    b.type === 'thinking'
      ? [{ type: 'thinking', thinking: b.thinking, signature: b.signature }]
      : b.type === 'redacted_thinking'
        ? [{ type: 'redacted_thinking', data: b.data }]
        : [],
  );
  const toolCalls: ToolCall[] = blocks
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({ id: b.id, type: 'function', function: { name: b.name, arguments: b.json.trim() ? b.json : '{}' } }));
  return {
    content: text,
    reasoning: thinking || null,
    ...(replay.length ? { reasoningDetails: { format: 'anthropic' as const, blocks: replay } } : {}),
    toolCalls,
    finishReason: toolCalls.length && finishReason === 'stop' ? 'tool_calls' : finishReason,
    tokens,
    model,
  };
}
