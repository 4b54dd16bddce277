/**
 * The `chat_completions` API mode: OpenAI-compatible endpoints (OpenAI, OpenRouter, vLLM,
 * llama.cpp, Ollama…) through the official `openai` client. Streams by default; an endpoint that
 * rejects streaming is called without it.
 */
import type OpenAI from 'openai';
import type { ChatMessage, ToolCall } from '../common/messages.js';
import { canonicalArguments } from '../shared/role-order.js';
import { RunawayWatch } from './runaway.js';
import { MalformedResponseError, readStream } from './stream-errors.js';
import type { CallContext, ModelRequest, ModelResponse, TokenCounts } from './types.js';

export { MalformedResponseError };

type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParams;
type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Endpoint+model pairs that refused streaming; remembered for the life of the worker. */
const noStreaming = new Set<string>();

export function toWireMessages(messages: readonly ChatMessage[]): WireMessage[] {
  return messages.map((m): WireMessage => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content ?? '' };
      case 'user':
        return { role: 'user', content: m.content ?? '' };
      case 'tool':
        return { role: 'tool', tool_call_id: m.tool_call_id ?? '', content: m.content ?? '' };
      case 'assistant': {
        const out: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam = {
          role: 'assistant',
          content: m.content ?? '',
        };
        if (m.tool_calls?.length) {
          out.tool_calls = m.tool_calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.function.name, arguments: canonicalArguments(c.function.arguments) },
          }));
          if (!m.content) out.content = null;
        }
        return out;
      }
    }
  });
}

function buildParams(req: ModelRequest): Omit<ChatParams, 'stream'> {
  const params: Omit<ChatParams, 'stream'> = { model: req.model, messages: toWireMessages(req.messages) };
  if (req.tools.length) {
    params.tools = req.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    if (req.toolChoiceNone) params.tool_choice = 'none';
  }
  if (req.maxOutputTokens) params.max_tokens = req.maxOutputTokens;
  if (req.temperature !== undefined) params.temperature = req.temperature;
  return params;
}

export async function callChatCompletions(
  client: OpenAI,
  baseUrl: string,
  req: ModelRequest,
  ctx: CallContext,
): Promise<ModelResponse> {
  const key = `${baseUrl}|${req.model}`;
  if (noStreaming.has(key)) return await callWithoutStreaming(client, req, ctx);
  try {
    return await callStreaming(client, req, ctx);
  } catch (err) {
    if (!rejectsStreaming(err)) throw err;
    noStreaming.add(key);
    return await callWithoutStreaming(client, req, ctx);
  }
}

function rejectsStreaming(err: unknown): boolean {
  const e = err as { status?: number; message?: string };
  if (e.status !== 400 && e.status !== 422) return false;
  const text = String(e.message ?? '').toLowerCase();
  return text.includes('stream') && /not supported|unsupported|not allowed|does not support/.test(text);
}

interface PartialCall {
  id: string;
  name: string;
  args: string;
  announced: boolean;
}

async function callStreaming(client: OpenAI, req: ModelRequest, ctx: CallContext): Promise<ModelResponse> {
  const stream = await client.chat.completions.create(
    { ...buildParams(req), stream: true, stream_options: { include_usage: true } },
    { signal: ctx.signal },
  );
  let content = '';
  let reasoning = '';
  let finishReason = '';
  let model = req.model;
  let tokens: TokenCounts | undefined;
  const calls: PartialCall[] = [];
  const runaway = req.cutRunaways ? new RunawayWatch() : undefined;
  for await (const chunk of readStream(stream, ctx.signal)) {
    ctx.sink.alive();
    if (chunk.model) model = chunk.model;
    if (chunk.usage) {
      tokens = tokensFrom(chunk.usage);
      ctx.sink.usage?.(tokens);
    }
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta as
      (typeof choice.delta & { reasoning_content?: string | null; reasoning?: string | null }) | undefined;
    if (delta?.content) {
      content += delta.content;
      ctx.sink.text(delta.content);
      runaway?.feed('text', delta.content);
    }
    const thought = delta?.reasoning_content ?? delta?.reasoning;
    if (thought) {
      reasoning += thought;
      ctx.sink.reasoning(thought);
    }
    for (const tc of delta?.tool_calls ?? []) {
      const slot = (calls[tc.index] ??= { id: '', name: '', args: '', announced: false });
      if (tc.id) slot.id = tc.id;
      if (tc.function?.name) slot.name += tc.function.name;
      if (tc.function?.arguments) {
        slot.args += tc.function.arguments;
        runaway?.feed(`call ${tc.index}`, tc.function.arguments);
      }
      if (slot.name && !slot.announced) {
        slot.announced = true;
        ctx.sink.toolGenerating(slot.name);
      }
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
    // Leaving the loop ends the request (the SDK aborts it): the server stops generating.
    if (runaway?.tripped !== undefined && !finishReason) {
      finishReason = 'length';
      break;
    }
  }
  if (!finishReason)
    throw new MalformedResponseError('the stream ended without a finish reason (connection cut mid-response)');
  return {
    content,
    reasoning: reasoning || null,
    toolCalls: finishCalls(calls),
    finishReason: calls.length && finishReason === 'stop' ? 'tool_calls' : finishReason,
    tokens: tokens ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    model,
    ...(runaway?.tripped !== undefined ? { runaway: runaway.tripped } : {}),
  };
}

async function callWithoutStreaming(client: OpenAI, req: ModelRequest, ctx: CallContext): Promise<ModelResponse> {
  const r = await client.chat.completions.create({ ...buildParams(req), stream: false }, { signal: ctx.signal });
  ctx.sink.alive();
  const choice = r.choices?.[0];
  if (!choice) throw new MalformedResponseError('the response has no choices');
  const msg = choice.message as typeof choice.message & {
    reasoning_content?: string | null;
    reasoning?: string | null;
  };
  if (msg.content) ctx.sink.text(msg.content);
  const reasoning = msg.reasoning_content ?? msg.reasoning ?? null;
  if (reasoning) ctx.sink.reasoning(reasoning);
  const toolCalls: ToolCall[] = (msg.tool_calls ?? [])
    .filter((c): c is OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall => c.type === 'function')
    .map((c) => ({ id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments } }));
  return {
    content: msg.content ?? '',
    reasoning,
    toolCalls,
    finishReason: choice.finish_reason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
    tokens: r.usage ? tokensFrom(r.usage) : { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    model: r.model ?? req.model,
  };
}

function finishCalls(calls: PartialCall[]): ToolCall[] {
  return calls
    .filter((c) => c !== undefined)
    .map((c, i) => ({
      id: c.id || `call_${i}`,
      type: 'function' as const,
      function: { name: c.name, arguments: c.args || '{}' },
    }));
}

function tokensFrom(u: OpenAI.CompletionUsage): TokenCounts {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input: Math.max(0, (u.prompt_tokens ?? 0) - cached),
    output: u.completion_tokens ?? 0,
    cacheRead: cached,
    cacheWrite: 0,
    reasoning: u.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}
