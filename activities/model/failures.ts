/**
 * Turn provider errors into ApplicationFailures the workflow can reason about: `type` is the
 * failure reason, details carry status and provider message, `nextRetryDelay` carries
 * Retry-After (capped at 10 minutes) or jittered backoff, and `nonRetryable` is set where another
 * attempt cannot help.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { APIConnectionError, APIError } from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { isPlausibleContextWindow } from '../../common/context-window.js';
import { backoffMs, classifyProviderError, parseContextLimit, parseRetryAfter } from '../../shared/classify-error.js';
import type { FailureReason, ModelFailureDetails } from '../../common/error-reasons.js';
import { REASON_POLICIES } from '../../common/error-reasons.js';
import type { ProviderRef } from '../../common/providers.js';
import type { ActivityRetryContext } from '../../common/recovery.js';
import { retryInActivity } from '../../common/recovery.js';
import { MalformedResponseError } from '../../model-adapters/stream-errors.js';
import { MissingCredentialError, UnpairedEndpointKeyError } from '../../model-adapters/clients.js';
import { ResponsesFailedError } from '../../model-adapters/codex-responses.js';

export interface FailureContext {
  provider: ProviderRef;
  attempt: number;
  approxTokens?: number;
  messageCount?: number;
  /** Whether Temporal may retry this call is decided with this (see common/recovery.ts). */
  retry?: ActivityRetryContext;
  /** Backoff between attempts (defaults: base 2 s, cap 60 s, Retry-After honoured up to 10 min). */
  backoff?: { baseMs: number; capMs: number; maxRetryAfterMs: number };
  /** What the user can do about it, appended to the message (e.g. activities/model/stale-endpoint.ts). */
  hint?: string | undefined;
}

interface ErrorFacts {
  status?: number | undefined;
  message: string;
  code?: string | undefined;
  transport: boolean;
  retryAfter?: string | null | undefined;
  /** The window a local server states in its error body (llama.cpp `n_ctx`, vLLM `max_model_len`). */
  contextLimit?: number | undefined;
}

/** A plausible context window from an error body field. */
function windowField(value: unknown): number | undefined {
  return isPlausibleContextWindow(value) ? value : undefined;
}

/**
 * An SDK connection error's message with its causes' messages and codes: the openai client says
 * only "Connection error.", undici "fetch failed"; the errno (ECONNREFUSED, ENOTFOUND) sits deeper.
 */
function withCauses(err: Error): string {
  const parts: string[] = [err.message];
  let cause: unknown = err.cause;
  for (let depth = 0; depth < 5 && cause && typeof cause === 'object'; depth++) {
    const c = cause as { message?: unknown; code?: unknown; cause?: unknown };
    if (typeof c.message === 'string' && c.message) parts.push(c.message);
    if (typeof c.code === 'string' && c.code) parts.push(c.code);
    cause = c.cause;
  }
  return parts.join(' ').slice(0, 2000);
}

/** OpenRouter's data-policy refusal: what the user can change (it is not a missing model). */
const DATA_POLICY_HINT =
  "no endpoint of this model is allowed by the account's data policy: allow more providers in the privacy settings (https://openrouter.ai/settings/privacy) or choose another model";
const isDataPolicyRefusal = (message: string) => /matching your data policy/i.test(message);

function factsOf(err: unknown): ErrorFacts {
  if (err instanceof APIConnectionError) return { message: withCauses(err), transport: true };
  if (err instanceof APIError) {
    const body = err.error as
      | {
          message?: string;
          code?: string | number;
          type?: string;
          metadata?: { raw?: string };
          n_ctx?: unknown;
          max_model_len?: unknown;
        }
      | undefined;
    // llama.cpp's 400 says `code: 400`: the `type` (exceed_context_size_error) is the telling one.
    const rawCode = typeof body?.code === 'number' ? (body.type ?? body.code) : body?.code;
    const code = rawCode ?? body?.type ?? (err as { code?: string | null }).code ?? undefined;
    const message = [err.message, body?.metadata?.raw].filter(Boolean).join(' ');
    return {
      status: typeof err.status === 'number' ? err.status : undefined,
      message,
      code: code === undefined || code === null ? undefined : String(code),
      transport: false,
      retryAfter: (err.headers as Headers | undefined)?.get('retry-after'),
      contextLimit: windowField(body?.n_ctx) ?? windowField(body?.max_model_len),
    };
  }
  if (err instanceof Anthropic.APIConnectionError) return { message: withCauses(err), transport: true };
  if (err instanceof Anthropic.APIError) {
    // Anthropic bodies: { type: 'error', error: { type: 'rate_limit_error', message } }
    const body = err.error as { error?: { type?: string; message?: string } } | undefined;
    return {
      status: typeof err.status === 'number' ? err.status : undefined,
      message: body?.error?.message ? `${body.error.message}` : err.message,
      code: body?.error?.type,
      transport: false,
      retryAfter: (err.headers as Headers | undefined)?.get('retry-after'),
    };
  }
  if (err instanceof ResponsesFailedError) return { message: err.message, code: err.code, transport: false };
  if (err instanceof MalformedResponseError)
    return { message: err.message, transport: false, code: 'malformed_response' };
  const e = err as { message?: string; code?: string; name?: string };
  return {
    message: `${e.name ?? 'Error'}: ${e.message ?? String(err)}`,
    code: e.code,
    transport: e.code !== undefined,
  };
}

export function toModelFailure(err: unknown, ctx: FailureContext): ApplicationFailure {
  if (err instanceof MissingCredentialError)
    return failure('auth', err.message, ctx, { transport: false, message: err.message }, true, err.envName);
  // Refused before anything was sent: no retry changes the pair; the fallback chain may serve the turn.
  if (err instanceof UnpairedEndpointKeyError)
    return failure('auth', err.message, ctx, { transport: false, message: err.message }, true);
  const facts = factsOf(err);
  const reason: FailureReason =
    err instanceof MalformedResponseError
      ? 'server_error'
      : classifyProviderError({
          status: facts.status,
          message: facts.message,
          code: facts.code,
          transport: facts.transport,
          approxTokens: ctx.approxTokens,
          contextLength: ctx.provider.contextLength,
          messageCount: ctx.messageCount,
        });
  const retryable = ctx.retry ? retryInActivity(reason, ctx.attempt, ctx.retry) : REASON_POLICIES[reason].retryable;
  return failure(reason, facts.message, ctx, facts, !retryable);
}

function failure(
  reason: FailureReason,
  message: string,
  ctx: FailureContext,
  facts: ErrorFacts,
  nonRetryable: boolean,
  missingKey?: string,
): ApplicationFailure {
  const b = ctx.backoff ?? { baseMs: 2000, capMs: 60_000, maxRetryAfterMs: 600_000 };
  const retryAfterMs = parseRetryAfter(facts.retryAfter, Date.now(), b.maxRetryAfterMs);
  // A window the server states (body field or message) is believed, so compression aims at it.
  const contextLimit = REASON_POLICIES[reason].compress
    ? (facts.contextLimit ?? parseContextLimit(message))
    : undefined;
  const details: ModelFailureDetails = {
    reason,
    providerMessage: message.slice(0, 2000),
    provider: ctx.provider.provider,
    model: ctx.provider.model,
    ...(facts.status !== undefined ? { status: facts.status } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(contextLimit !== undefined ? { contextLimit } : {}),
    ...(missingKey !== undefined ? { missingKey } : {}),
  };
  const status = facts.status !== undefined ? ` (HTTP ${facts.status})` : '';
  const hint = ctx.hint ?? (isDataPolicyRefusal(message) ? DATA_POLICY_HINT : undefined);
  return ApplicationFailure.create({
    type: reason,
    message: `${ctx.provider.provider}/${ctx.provider.model}${status}: ${message.slice(0, 500)}${hint ? ` (${hint})` : ''}`,
    nonRetryable,
    details: [details],
    ...(nonRetryable
      ? {}
      : { nextRetryDelay: retryAfterMs ?? backoffMs(ctx.attempt, Math.random(), b.baseMs, b.capMs) }),
  });
}
