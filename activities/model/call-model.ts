/**
 * The model-call activity: load the transcript, call the provider (streaming, cancellable),
 * write the assistant message at the sequence the workflow gave it, and return a small record.
 * One model call per activity; the loop lives in the workflow.
 */
import { CancelledFailure, Context } from '@temporalio/activity';
import type { CallModelArgs, CallModelResult } from '../../common/activity-types.js';
import { closestName } from '../../common/fuzzy.js';
import type { ChatMessage, ToolCall } from '../../common/messages.js';
import { pricingFor, priceUsage } from '../../common/pricing.js';
import { repairMessageOrder } from '../../common/role-order.js';
import { oneLine } from '../../common/text.js';
import type { ToolCallRef } from '../../common/tool-batch.js';
import type { ActivityDeps } from '../deps.js';
import { keepHeartbeating } from '../deps.js';
import { EventPublisher } from '../events/publisher.js';
import { recordModelCall } from '../store/ledger.js';
import { appendToContent, loadTranscript, writeMessage } from '../store/messages.js';
import { getSession } from '../store/sessions.js';
import { DEFAULT_TOOL_TIMEOUT_SECONDS, parseToolArgs } from '../tools/registry.js';
import type { ToolRegistry } from '../tools/registry.js';
import { callAnthropicMessages } from './anthropic-messages.js';
import { callChatCompletions } from './chat-completions.js';
import { anthropicClient, openaiClient } from './clients.js';
import { callResponses } from './codex-responses.js';
import { toModelFailure } from './failures.js';
import type { ModelRequest, ModelResponse, StreamSink } from './types.js';

const PREVIEW_CHARS = 200;
const DEFAULT_REQUEST_TIMEOUT_SECONDS = 600;

export function steerMarker(text: string): string {
  return `\n\n[OUT-OF-BAND USER MESSAGE — sent by the user while you were working]\n${text}\n[/OUT-OF-BAND USER MESSAGE]`;
}

export function modelActivities(deps: ActivityDeps) {
  const { db, config } = deps;

  return {
    async callModel(a: CallModelArgs): Promise<CallModelResult> {
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      const started = Date.now();
      const ref = a.provider;
      const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log, { iteration: a.iteration });
      if (attempt > 1)
        pub.emit('stream.reset', {
          iteration: a.iteration,
          attempt,
          reason: 'the model call is being retried; discard its earlier partial output',
        });
      pub.emit('step', { iteration: a.iteration, max: a.maxIterations });
      pub.emit('thinking', { state: 'started', model: ref.model, provider: ref.provider, attempt });
      const stopHeartbeat = keepHeartbeating(() => ctx.heartbeat({ phase: 'model', attempt }));
      let messageCount = 0;
      try {
        const messages = await buildMessages(deps, a);
        messageCount = messages.length;
        const request: ModelRequest = {
          model: ref.model,
          messages,
          tools: deps.tools.schemas(a.tools),
          maxOutputTokens: ref.maxOutputTokens ?? config.file.model.maxOutputTokens,
          cacheTtl: config.file.model.promptCacheTtl,
          toolChoiceNone: a.toolChoiceNone,
        };
        const sink: StreamSink = {
          text: (d) => pub.textDelta(d),
          reasoning: (d) => pub.reasoningDelta(d),
          toolGenerating: (name) => pub.emit('tool.generating', { name, iteration: a.iteration }),
          alive: () => ctx.heartbeat({ phase: 'model', attempt }),
        };
        const response = await dispatch(deps, a, request, { signal: ctx.cancellationSignal, sink });
        const usage = priceUsage(response.tokens, pricingFor(config.file, ref.provider, ref.model, response.model));
        const toolCalls = uniqueCallIds(response.toolCalls, a.seq);
        await writeMessage(db, a.sessionId, {
          seq: a.seq,
          role: 'assistant',
          content: response.content,
          toolCalls,
          reasoning: response.reasoning,
          reasoningDetails: response.reasoningDetails,
          finishReason: response.finishReason,
          turnId: a.turnId,
        });
        const durationMs = Date.now() - started;
        await recordModelCall(db, ledgerEntry(a, attempt, 'ok', usage, durationMs, response.model));
        pub.emit('thinking', { state: 'stopped', durationMs });
        await pub.flush();
        const isFinal = toolCalls.length === 0;
        const text = isFinal ? response.content : oneLine(response.content, PREVIEW_CHARS);
        return {
          finishReason: response.finishReason,
          toolCalls: toolCalls.map((c) => describeCall(deps.tools, a.tools, c)),
          text,
          textTruncated: !isFinal && text.length < response.content.length,
          reasoning: response.reasoning ? oneLine(response.reasoning, 2000) : null,
          usage,
          model: response.model,
          durationMs,
        };
      } catch (err) {
        const durationMs = Date.now() - started;
        if (ctx.cancellationSignal.aborted) {
          await recordModelCall(
            db,
            ledgerEntry(
              a,
              attempt,
              'cancelled',
              priceUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 }, undefined),
              durationMs,
              ref.model,
            ),
          ).catch(() => {});
          pub.emit('thinking', { state: 'stopped', cancelled: true, durationMs });
          await pub.flush();
          const reason: unknown = ctx.cancellationSignal.reason;
          throw reason instanceof CancelledFailure ? reason : new CancelledFailure('CANCELLED');
        }
        const failure = toModelFailure(err, { provider: ref, attempt, messageCount });
        await recordModelCall(db, {
          ...ledgerEntry(
            a,
            attempt,
            'error',
            priceUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 }, undefined),
            durationMs,
            ref.model,
          ),
          errorType: failure.type ?? 'unknown',
        }).catch(() => {});
        pub.emit('status', {
          kind: 'model_error',
          reason: failure.type,
          message: failure.message,
          attempt,
          willRetry: !failure.nonRetryable,
        });
        pub.emit('thinking', { state: 'stopped', failed: true, durationMs });
        await pub.flush();
        throw failure;
      } finally {
        stopHeartbeat();
      }
    },
  };
}

function ledgerEntry(
  a: CallModelArgs,
  attempt: number,
  outcome: 'ok' | 'error' | 'cancelled',
  usage: ReturnType<typeof priceUsage>,
  durationMs: number,
  model: string,
) {
  return {
    callKey: `${a.sessionId}:${a.seq}:${a.turnId}:${attempt}`,
    sessionId: a.sessionId,
    conversationId: a.conversationId,
    turnId: a.turnId,
    seq: a.seq,
    attempt,
    provider: a.provider.provider,
    model,
    apiMode: a.provider.apiMode,
    outcome,
    usage,
    durationMs,
  };
}

/** System prompt + repaired transcript + request-only notes (steer is stored; budget notes are not). */
async function buildMessages(deps: ActivityDeps, a: CallModelArgs): Promise<ChatMessage[]> {
  const { db } = deps;
  const session = await getSession(db, a.sessionId);
  if (!session) throw new Error(`session ${a.sessionId} does not exist`);
  let transcript = await loadTranscript(db, a.sessionId, a.seq);
  const lastTool = [...transcript].reverse().find((m) => m.role === 'tool');
  if (a.steer && lastTool && transcript[transcript.length - 1]?.role === 'tool') {
    await appendToContent(db, a.sessionId, lastTool.seq, steerMarker(a.steer));
    transcript = await loadTranscript(db, a.sessionId, a.seq);
  }
  const messages = repairMessageOrder([
    { role: 'system', content: session.system_prompt ?? '' },
    ...transcript.map(stripSeq),
  ]);
  if (a.ephemeralNote) {
    const last = messages[messages.length - 1];
    if (last && (last.role === 'tool' || last.role === 'user'))
      last.content = `${last.content ?? ''}\n\n${a.ephemeralNote}`;
    else messages.push({ role: 'user', content: a.ephemeralNote });
  }
  return messages;
}

function stripSeq(m: ChatMessage & { seq?: number }): ChatMessage {
  const { seq: _seq, ...rest } = m;
  return rest;
}

async function dispatch(
  deps: ActivityDeps,
  a: CallModelArgs,
  request: ModelRequest,
  ctx: Parameters<typeof callChatCompletions>[3],
): Promise<ModelResponse> {
  const ref = a.provider;
  const timeoutMs = (deps.config.file.model.requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000;
  switch (ref.apiMode) {
    case 'chat_completions':
      return await callChatCompletions(openaiClient(ref, deps.env, timeoutMs), ref.baseUrl, request, ctx);
    case 'codex_responses':
      return await callResponses(openaiClient(ref, deps.env, timeoutMs), request, ctx);
    case 'anthropic_messages':
      return await callAnthropicMessages(anthropicClient(ref, deps.env, timeoutMs), request, ctx);
  }
}

/** Providers sometimes omit or repeat call ids; the transcript needs unique ones. */
function uniqueCallIds(calls: ToolCall[], seq: number): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((c, i) => {
    let id = c.id || `call_${seq}_${i}`;
    if (seen.has(id)) id = `${id}_${i}`;
    seen.add(id);
    return { ...c, id };
  });
}

/** The small record the workflow gets for each call: enough to plan and label, no arguments. */
export function describeCall(registry: ToolRegistry, enabled: readonly string[], call: ToolCall): ToolCallRef {
  const name = call.function.name;
  const tool = enabled.includes(name) ? registry.get(name) : undefined;
  if (!tool) {
    const suggestion = closestName(name, enabled);
    return {
      id: call.id,
      name,
      summary: `${name || '(no name)'} (unknown tool)`,
      timeoutSeconds: 30,
      argsError:
        `Tool '${name}' does not exist.${suggestion ? ` Did you mean '${suggestion}'?` : ''} ` +
        `Available tools: ${enabled.join(', ') || '(none)'}.`,
    };
  }
  const parsed = parseToolArgs(tool, call.function.arguments);
  if (!parsed.ok)
    return {
      id: call.id,
      name,
      summary: `${name} (invalid arguments)`,
      timeoutSeconds: 30,
      traits: tool.traits,
      argsError: parsed.error,
    };
  const ref: ToolCallRef = {
    id: call.id,
    name,
    summary: oneLine(tool.summarize?.(parsed.args) ?? name, 120),
    timeoutSeconds: tool.timeoutSeconds?.(parsed.args) ?? DEFAULT_TOOL_TIMEOUT_SECONDS,
    traits: tool.traits,
  };
  const paths = tool.paths?.(parsed.args);
  if (paths?.length) ref.paths = paths;
  return ref;
}
