/**
 * The `codex_responses` API mode: the OpenAI Responses API through the `openai` client. Messages
 * become input items (`function_call` / `function_call_output`); reasoning items come back with
 * their encrypted content (`store: false`) and are replayed on later calls.
 */
import type OpenAI from 'openai';
import type { ChatMessage, ResponsesReasoningItem, ToolCall } from '../common/messages.js';
import { canonicalArguments } from '../shared/role-order.js';
import { MalformedResponseError, readStream } from './stream-errors.js';
import type { CallContext, ModelRequest, ModelResponse, TokenCounts } from './types.js';

type InputItem = OpenAI.Responses.ResponseInputItem;
type Response = OpenAI.Responses.Response;

/** Convert the transcript (system first) to `instructions` and input items. */
export function toResponsesInput(messages: readonly ChatMessage[]): { instructions: string; input: InputItem[] } {
  const instructions = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content ?? '')
    .join('\n\n');
  const input: InputItem[] = [];
  for (const m of messages) {
    if (m.role === 'user') input.push({ role: 'user', content: m.content ?? '' });
    else if (m.role === 'tool')
      input.push({ type: 'function_call_output', call_id: m.tool_call_id ?? '', output: m.content ?? '' });
    else if (m.role === 'assistant') {
      const reasoning =
        m.reasoning_details?.format === 'responses' ? m.reasoning_details.items.filter((i) => i.encrypted_content) : [];
      // With store:false the server keeps nothing: replay the encrypted content, never an id.
      for (const r of reasoning)
        input.push({
          type: 'reasoning',
          summary: r.summary,
          encrypted_content: r.encrypted_content ?? null,
        } as InputItem);
      if (m.content || (reasoning.length && !m.tool_calls?.length))
        input.push({ role: 'assistant', content: m.content ?? '' });
      for (const c of m.tool_calls ?? []) {
        input.push({
          type: 'function_call',
          call_id: c.id,
          name: c.function.name,
          arguments: canonicalArguments(c.function.arguments),
        });
      }
    }
  }
  return { instructions, input };
}

export async function callResponses(client: OpenAI, req: ModelRequest, ctx: CallContext): Promise<ModelResponse> {
  const { instructions, input } = toResponsesInput(req.messages);
  const params: OpenAI.Responses.ResponseCreateParamsStreaming = {
    model: req.model,
    input,
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
  };
  if (instructions) params.instructions = instructions;
  if (req.tools.length) {
    params.tools = req.tools.map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
    }));
    params.tool_choice = req.toolChoiceNone ? 'none' : 'auto';
    params.parallel_tool_calls = true;
  }
  if (req.maxOutputTokens) params.max_output_tokens = req.maxOutputTokens;
  if (req.temperature !== undefined) params.temperature = req.temperature;

  const stream = await client.responses.create(params, { signal: ctx.signal });
  let final: Response | undefined;
  const announced = new Set<string>();
  for await (const event of readStream(stream, ctx.signal)) {
    ctx.sink.alive();
    switch (event.type) {
      case 'response.output_text.delta':
        ctx.sink.text(event.delta);
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        ctx.sink.reasoning(event.delta);
        break;
      case 'response.output_item.added':
        if (event.item.type === 'function_call' && !announced.has(event.item.call_id)) {
          announced.add(event.item.call_id);
          ctx.sink.toolGenerating(event.item.name);
        }
        break;
      case 'response.completed':
      case 'response.incomplete':
        final = event.response;
        break;
      case 'response.failed':
        throw new ResponsesFailedError(
          event.response.error?.message ?? 'the response failed',
          event.response.error?.code ?? undefined,
        );
      case 'error':
        throw new ResponsesFailedError(event.message, event.code ?? undefined);
      default:
        break;
    }
  }
  if (!final)
    throw new MalformedResponseError(
      'the Responses stream ended before response.completed (connection cut mid-response)',
    );
  return fromResponse(final, req.model);
}

/** An error reported inside a 200 stream (`response.failed`, `error`). */
export class ResponsesFailedError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'ResponsesFailedError';
  }
}

export function fromResponse(r: Response, requestedModel: string): ModelResponse {
  let content = '';
  const summaries: string[] = [];
  const items: ResponsesReasoningItem[] = [];
  const toolCalls: ToolCall[] = [];
  let refused = false;
  for (const item of r.output ?? []) {
    if (item.type === 'message') {
      for (const part of item.content) {
        if (part.type === 'output_text') content += part.text;
        else if (part.type === 'refusal') {
          refused = true;
          content += part.refusal;
        }
      }
    } else if (item.type === 'reasoning') {
      const summary = (item.summary ?? []).map((s) => ({ type: 'summary_text' as const, text: s.text }));
      summaries.push(...summary.map((s) => s.text));
      items.push({
        type: 'reasoning',
        ...(item.id ? { id: item.id } : {}),
        encrypted_content: item.encrypted_content ?? null,
        summary,
      });
    } else if (item.type === 'function_call') {
      toolCalls.push({
        id: item.call_id,
        type: 'function',
        function: { name: item.name, arguments: item.arguments || '{}' },
      });
    }
  }
  const u = r.usage;
  const cached = u?.input_tokens_details?.cached_tokens ?? 0;
  const tokens: TokenCounts = {
    input: Math.max(0, (u?.input_tokens ?? 0) - cached),
    output: u?.output_tokens ?? 0,
    cacheRead: cached,
    cacheWrite: 0,
    reasoning: u?.output_tokens_details?.reasoning_tokens ?? 0,
  };
  const incomplete = r.status === 'incomplete';
  const finishReason = toolCalls.length
    ? 'tool_calls'
    : refused || r.incomplete_details?.reason === 'content_filter'
      ? 'content_filter'
      : incomplete
        ? 'length'
        : 'stop';
  return {
    content,
    reasoning: summaries.join('\n\n') || null,
    ...(items.length ? { reasoningDetails: { format: 'responses' as const, items } } : {}),
    toolCalls,
    finishReason,
    tokens,
    model: r.model || requestedModel,
  };
}
