/**
 * Wire formats the fake provider speaks, each built from the same scripted reply: OpenAI chat
 * completions, the OpenAI Responses API and Anthropic Messages, as JSON bodies and as the SSE
 * frame sequences the real services send.
 */
import { createHash } from 'node:crypto';

export interface ScriptedToolCall {
  name: string;
  /** A JSON string is sent as is (so tests can send broken JSON); objects are serialised. */
  arguments: string | Record<string, unknown>;
  id?: string;
}

export interface ReplyContent {
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  finishReason?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  usage?: { prompt?: number; completion?: number; cached?: number; cacheWrite?: number; reasoning?: number };
  /** Characters per streamed text/reasoning piece (default 8 and 12): large replies in fewer frames. */
  chunkChars?: number;
}

export interface SseFrame {
  event?: string;
  data: unknown;
}

export interface Wire {
  name: 'chat_completions' | 'responses' | 'anthropic';
  json(model: string, r: ReplyContent): unknown;
  frames(model: string, r: ReplyContent, body: Record<string, unknown>): SseFrame[];
  error(status: number, message: string, type?: string, code?: string): unknown;
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${(++counter).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

interface Call {
  id: string;
  name: string;
  args: string;
}

function callsOf(r: ReplyContent, prefix: string): Call[] {
  return (r.toolCalls ?? []).map((c) => ({
    id: c.id ?? nextId(prefix),
    name: c.name,
    args: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
  }));
}

function tokens(r: ReplyContent) {
  const prompt = r.usage?.prompt ?? 100;
  const completion = r.usage?.completion ?? Math.max(1, Math.ceil(((r.text ?? '') + (r.reasoning ?? '')).length / 4));
  return {
    prompt,
    completion,
    cached: r.usage?.cached ?? 0,
    cacheWrite: r.usage?.cacheWrite ?? 0,
    reasoning: r.usage?.reasoning ?? 0,
  };
}

/** A stand-in for a provider's opaque signature/encrypted blob, stable for the same text. */
export function fakeSignature(reasoning: string): string {
  return `sig-${createHash('sha256').update(reasoning).digest('base64url').slice(0, 24)}`;
}

const openaiError = (status: number, message: string, type?: string, code?: string) => ({
  error: {
    message,
    type: type ?? (status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error'),
    code: code ?? null,
    param: null,
  },
});

export const chatCompletionsWire: Wire = {
  name: 'chat_completions',
  error: openaiError,
  json(model, r) {
    const calls = callsOf(r, 'call');
    const t = tokens(r);
    return {
      id: nextId('chatcmpl'),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: r.text ?? (calls.length ? null : ''),
            ...(r.reasoning ? { reasoning_content: r.reasoning } : {}),
            ...(calls.length
              ? {
                  tool_calls: calls.map((c) => ({
                    id: c.id,
                    type: 'function',
                    function: { name: c.name, arguments: c.args },
                  })),
                }
              : {}),
          },
          finish_reason: r.finishReason ?? (calls.length ? 'tool_calls' : 'stop'),
        },
      ],
      usage: chatUsage(t),
    };
  },
  frames(model, r, body) {
    const calls = callsOf(r, 'call');
    const base = {
      id: nextId('chatcmpl'),
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model,
    };
    const chunk = (delta: unknown, finish: string | null = null) => ({
      data: { ...base, choices: [{ index: 0, delta, finish_reason: finish }] },
    });
    const frames: SseFrame[] = [chunk({ role: 'assistant', content: '' })];
    for (const p of pieces(r.reasoning ?? '', r.chunkChars ?? 12)) frames.push(chunk({ reasoning_content: p }));
    for (const p of pieces(r.text ?? '', r.chunkChars ?? 8)) frames.push(chunk({ content: p }));
    calls.forEach((c, index) => {
      frames.push(
        chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }),
      );
      for (const p of pieces(c.args, 16)) frames.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    });
    frames.push(chunk({}, r.finishReason ?? (calls.length ? 'tool_calls' : 'stop')));
    if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage)
      frames.push({ data: { ...base, choices: [], usage: chatUsage(tokens(r)) } });
    frames.push({ data: '[DONE]' });
    return frames;
  },
};

function chatUsage(t: ReturnType<typeof tokens>) {
  return {
    prompt_tokens: t.prompt,
    completion_tokens: t.completion,
    total_tokens: t.prompt + t.completion,
    prompt_tokens_details: { cached_tokens: t.cached },
    completion_tokens_details: { reasoning_tokens: t.reasoning },
  };
}

function responseOutput(r: ReplyContent) {
  const output: Array<Record<string, unknown>> = [];
  if (r.reasoning) {
    output.push({
      id: nextId('rs'),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: r.reasoning }],
      encrypted_content: fakeSignature(r.reasoning),
    });
  }
  if (r.text !== undefined && r.text !== '') {
    output.push({
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content:
        r.finishReason === 'content_filter'
          ? [{ type: 'refusal', refusal: r.text }]
          : [{ type: 'output_text', text: r.text, annotations: [] }],
    });
  }
  for (const c of callsOf(r, 'call'))
    output.push({
      id: nextId('fc'),
      type: 'function_call',
      call_id: c.id,
      name: c.name,
      arguments: c.args,
      status: 'completed',
    });
  return output;
}

function responseObject(model: string, r: ReplyContent, output: Array<Record<string, unknown>>, status: string) {
  const t = tokens(r);
  return {
    id: nextId('resp'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    error: null,
    usage: {
      input_tokens: t.prompt,
      input_tokens_details: { cached_tokens: t.cached },
      output_tokens: t.completion,
      output_tokens_details: { reasoning_tokens: t.reasoning },
      total_tokens: t.prompt + t.completion,
    },
  };
}

export const responsesWire: Wire = {
  name: 'responses',
  error: openaiError,
  json(model, r) {
    return responseObject(model, r, responseOutput(r), r.finishReason === 'length' ? 'incomplete' : 'completed');
  },
  frames(model, r) {
    const output = responseOutput(r);
    const status = r.finishReason === 'length' ? 'incomplete' : 'completed';
    let seq = 0;
    const ev = (type: string, data: Record<string, unknown>): SseFrame => ({
      event: type,
      data: { type, sequence_number: seq++, ...data },
    });
    const frames: SseFrame[] = [
      ev('response.created', { response: { ...responseObject(model, r, [], 'in_progress') } }),
    ];
    output.forEach((item, output_index) => {
      const id = item.id as string;
      if (item.type === 'reasoning') {
        frames.push(ev('response.output_item.added', { output_index, item: { id, type: 'reasoning', summary: [] } }));
        for (const p of pieces(r.reasoning ?? '', r.chunkChars ?? 12))
          frames.push(
            ev('response.reasoning_summary_text.delta', { item_id: id, output_index, summary_index: 0, delta: p }),
          );
        frames.push(ev('response.output_item.done', { output_index, item }));
      } else if (item.type === 'message') {
        frames.push(
          ev('response.output_item.added', {
            output_index,
            item: { id, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
          }),
        );
        frames.push(
          ev('response.content_part.added', {
            item_id: id,
            output_index,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          }),
        );
        for (const p of pieces(r.text ?? '', r.chunkChars ?? 8))
          frames.push(
            ev('response.output_text.delta', { item_id: id, output_index, content_index: 0, delta: p, logprobs: [] }),
          );
        frames.push(
          ev('response.output_text.done', {
            item_id: id,
            output_index,
            content_index: 0,
            text: r.text ?? '',
            logprobs: [],
          }),
        );
        frames.push(ev('response.output_item.done', { output_index, item }));
      } else {
        frames.push(
          ev('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } }),
        );
        for (const p of pieces(item.arguments as string, 16))
          frames.push(ev('response.function_call_arguments.delta', { item_id: id, output_index, delta: p }));
        frames.push(
          ev('response.function_call_arguments.done', { item_id: id, output_index, arguments: item.arguments }),
        );
        frames.push(ev('response.output_item.done', { output_index, item }));
      }
    });
    frames.push(
      ev(status === 'incomplete' ? 'response.incomplete' : 'response.completed', {
        response: responseObject(model, r, output, status),
      }),
    );
    return frames;
  },
};

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function anthropicBlocks(r: ReplyContent) {
  const blocks: Array<Record<string, unknown>> = [];
  if (r.reasoning) blocks.push({ type: 'thinking', thinking: r.reasoning, signature: fakeSignature(r.reasoning) });
  if (r.text) blocks.push({ type: 'text', text: r.text });
  for (const c of callsOf(r, 'toolu')) {
    let input: unknown = {};
    try {
      input = JSON.parse(c.args);
    } catch {
      input = {};
    }
    blocks.push({ type: 'tool_use', id: c.id, name: c.name, input, raw: c.args });
  }
  return blocks;
}

const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

function anthropicStop(r: ReplyContent): string {
  return STOP_REASONS[r.finishReason ?? ((r.toolCalls ?? []).length ? 'tool_calls' : 'stop')] ?? 'end_turn';
}

export const anthropicWire: Wire = {
  name: 'anthropic',
  error(status, message, type) {
    return { type: 'error', error: { type: type ?? ANTHROPIC_ERROR_TYPES[status] ?? 'api_error', message } };
  },
  json(model, r) {
    const t = tokens(r);
    return {
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: anthropicBlocks(r).map(({ raw: _raw, ...b }) => b),
      stop_reason: anthropicStop(r),
      stop_sequence: null,
      usage: {
        input_tokens: t.prompt,
        output_tokens: t.completion,
        cache_read_input_tokens: t.cached,
        cache_creation_input_tokens: t.cacheWrite,
      },
    };
  },
  frames(model, r) {
    const t = tokens(r);
    const ev = (type: string, data: Record<string, unknown>): SseFrame => ({ event: type, data: { type, ...data } });
    const frames: SseFrame[] = [
      ev('message_start', {
        message: {
          id: nextId('msg'),
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: t.prompt,
            output_tokens: 1,
            cache_read_input_tokens: t.cached,
            cache_creation_input_tokens: t.cacheWrite,
          },
        },
      }),
      ev('ping', {}),
    ];
    anthropicBlocks(r).forEach((b, index) => {
      if (b.type === 'thinking') {
        frames.push(
          ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
        );
        for (const p of pieces(b.thinking as string, 12))
          frames.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: p } }));
        frames.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: b.signature } }));
      } else if (b.type === 'text') {
        frames.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
        for (const p of pieces(b.text as string, 8))
          frames.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: p } }));
      } else {
        frames.push(
          ev('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }),
        );
        for (const p of pieces(b.raw as string, 16))
          frames.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: p } }));
      }
      frames.push(ev('content_block_stop', { index }));
    });
    frames.push(
      ev('message_delta', {
        delta: { stop_reason: anthropicStop(r), stop_sequence: null },
        usage: { output_tokens: t.completion },
      }),
    );
    frames.push(ev('message_stop', {}));
    return frames;
  },
};
