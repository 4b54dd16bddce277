/**
 * Herald's spans inside activities: a model call (OpenTelemetry GenAI semantic conventions), a
 * tool call, a compression. Each is a child of the activity's own span (the Temporal activity
 * interceptor makes it current), so it lands in its turn's trace. With tracing off the API hands
 * out no-op spans: nothing here costs more than a function call.
 *
 * Attributes carry names, counts and outcomes only — never prompts, arguments or outputs, which
 * would put conversation content (and whatever secrets it holds) into a tracing backend.
 */
import type { Attributes, Span } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = () => trace.getTracer('herald');

/**
 * The span's end, made once however often it is called: `failure` says why an `error` outcome
 * failed, `attributes` what else the end records.
 */
function ender<E extends { outcome: string }>(
  span: Span,
  failure: (e: E) => string,
  attributes: (e: E) => Attributes,
): (e: E) => void {
  let ended = false;
  return (e) => {
    if (ended) return;
    ended = true;
    span.setAttributes({ 'herald.outcome': e.outcome, ...attributes(e) });
    if (e.outcome === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: failure(e) });
    span.end();
  };
}

/** `gen_ai.system`: the provider family the API speaks for (custom and local servers speak OpenAI's). */
function genAiSystem(provider: string, apiMode: string): string {
  if (apiMode === 'anthropic_messages') return 'anthropic';
  if (provider === 'openrouter') return 'openrouter';
  return 'openai';
}

export interface ModelSpanEnd {
  outcome: 'ok' | 'error' | 'cancelled';
  /** The model the provider says answered. */
  model?: string | undefined;
  tokens?: { input: number; output: number; cacheRead: number; reasoning: number } | undefined;
  finishReason?: string | undefined;
  /** The failure reason (common/error-reasons.ts). */
  reason?: string | undefined;
  costUsd?: number | undefined;
  firstTokenMs?: number | undefined;
}

/** A span for one HTTP attempt of a model call; the returned function ends it (once). */
export function startModelSpan(o: {
  provider: string;
  apiMode: string;
  model: string;
  attempt: number;
  maxOutputTokens?: number | undefined;
}): (end: ModelSpanEnd) => void {
  const span = tracer().startSpan(`chat ${o.model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': genAiSystem(o.provider, o.apiMode),
      'gen_ai.request.model': o.model,
      ...(o.maxOutputTokens ? { 'gen_ai.request.max_tokens': o.maxOutputTokens } : {}),
      'herald.provider': o.provider,
      'herald.api_mode': o.apiMode,
      'herald.attempt': o.attempt,
    },
  });
  return ender(
    span,
    (e: ModelSpanEnd) => e.reason ?? 'error',
    (e) => {
      const t = e.tokens;
      return {
        ...(e.model ? { 'gen_ai.response.model': e.model } : {}),
        ...(t
          ? {
              'gen_ai.usage.input_tokens': t.input + t.cacheRead,
              'gen_ai.usage.output_tokens': t.output,
              'herald.usage.cache_read_tokens': t.cacheRead,
              'herald.usage.reasoning_tokens': t.reasoning,
            }
          : {}),
        ...(e.finishReason ? { 'gen_ai.response.finish_reasons': [e.finishReason] } : {}),
        ...(e.reason ? { 'error.type': e.reason } : {}),
        ...(e.costUsd !== undefined ? { 'herald.cost_usd': e.costUsd } : {}),
        ...(e.firstTokenMs !== undefined ? { 'herald.time_to_first_token_ms': e.firstTokenMs } : {}),
      };
    },
  );
}

/** A span for one tool call (GenAI's `execute_tool`), ended with its outcome, exit code and duration. */
export function startToolSpan(
  name: string,
  callId: string,
): (end: { outcome: string; durationMs: number; exitCode?: number | undefined }) => void {
  const span = tracer().startSpan(`execute_tool ${name}`, {
    kind: SpanKind.INTERNAL,
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': callId },
  });
  return ender(
    span,
    () => 'the tool reported an error',
    (e: { outcome: string; durationMs: number; exitCode?: number | undefined }) => ({
      'herald.tool.duration_ms': e.durationMs,
      ...(e.exitCode !== undefined ? { 'herald.tool.exit_code': e.exitCode } : {}),
    }),
  );
}

/** A span for one context compression. */
export function startCompressionSpan(
  reason: string,
): (end: { outcome: string; tokensBefore?: number; tokensAfter?: number }) => void {
  const span = tracer().startSpan('herald.compression', { attributes: { 'herald.compression.reason': reason } });
  return ender(
    span,
    () => 'compression failed',
    (e: { outcome: string; tokensBefore?: number; tokensAfter?: number }) => ({
      ...(e.tokensBefore !== undefined ? { 'herald.compression.tokens_before': e.tokensBefore } : {}),
      ...(e.tokensAfter !== undefined ? { 'herald.compression.tokens_after': e.tokensAfter } : {}),
    }),
  );
}
