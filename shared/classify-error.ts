/**
 * Provider error classifier (docs/providers.md; detection rules as Hermes has them): HTTP status, provider error body
 * and message text → one failure reason. Pure and table-driven; the first matching rule wins.
 */
import { isPlausibleContextWindow } from '../common/context-window.js';
import type { FailureReason } from '../common/error-reasons.js';

export interface ProviderErrorInput {
  status?: number | undefined;
  /** Error message text (SDK message, provider `error.message`, OpenRouter `metadata.raw`), any case. */
  message: string;
  /** Provider error code (`error.code` or `error.type`), if any. */
  code?: string | undefined;
  /** Transport failure (connection refused/reset, DNS, TLS, socket timeout): no HTTP response at all. */
  transport?: boolean | undefined;
  /** Estimated prompt tokens and the model's window, for the "generic 400 on a big session" rule. */
  approxTokens?: number | undefined;
  contextLength?: number | undefined;
  messageCount?: number | undefined;
}

const has = (text: string, phrases: readonly string[]) => phrases.some((p) => text.includes(p));

const CONTENT_POLICY = [
  'flagged for possible cybersecurity risk',
  'violates our usage policies',
  'violate our usage policies',
  'prompt was flagged by our safety',
  'content_filter',
  'content filter',
  'responsibleaipolicyviolation',
  'new_sensitive',
  'content management policy',
  // OpenAI's moderation refusal and Anthropic's safety refusal, as each states it.
  "violates openai's usage policies",
  'your request was flagged by',
  'flagged by our moderation',
  'responses cannot be generated due to safety',
  'trusted access for cyber',
];
const OVERFLOW = [
  'context length',
  'context_length',
  'context window',
  'maximum context',
  'too many tokens',
  'prompt is too long',
  'input is too long',
  'exceeds the context',
  'reduce the length',
  'token limit',
  'max_tokens',
  'maximum number of tokens',
  'context size',
  'request too large',
  // Local servers: llama.cpp's error type, vLLM's `max_model_len`, GLM's "exceeds max length".
  'exceed_context_size',
  'maximum model length',
  'max_model_len',
  'exceeds max length',
  // llama.cpp's slot error ("slot context: 4096 tokens, prompt 8192 tokens — not enough space").
  'slot context',
  'n_ctx_slot',
  // Chinese-language servers: "exceeds the maximum length", "context length".
  '超过最大长度',
  '超出最大长度',
  '上下文长度',
  // Ollama, Bedrock, Z.AI GLM (code 1210).
  'truncating input',
  'max input token',
  'exceeds the maximum number of input tokens',
  'max tokens allowed',
];
const BILLING = [
  'insufficient_quota',
  'insufficient quota',
  'billing',
  'payment required',
  'credit balance',
  'insufficient credits',
  'insufficient_credits',
  'out of credits',
  'spending limit',
  'key limit exceeded',
  'exceeded your current quota',
  'purchase more credits',
  'insufficient balance',
  'credits exhausted',
  'credits have been exhausted',
  'no usable credits',
  'top up your credits',
  'billing hard limit',
  'account is deactivated',
  'out of funds',
  'balance_depleted',
  'requires available credits',
  // The plan or the free tier does not cover the model: paying (or another provider) fixes it, waiting does not.
  'plan does not include',
  'not available on the free tier',
  'model_not_supported_on_free_tier',
];
const USAGE_LIMIT = ['usage limit', 'quota', 'limit exceeded', 'limit reached'];
const TRANSIENT_HINT = [
  'try again',
  'retry',
  'resets at',
  'reset in',
  'resets in',
  'reset after',
  'wait',
  'window',
  'later',
  'requests remaining',
  'periodic',
];
const RATE_LIMIT = [
  'rate limit',
  'rate_limit',
  'too many requests',
  'ratelimit',
  'requests per minute',
  'tokens per minute',
  'requests per day',
  'throttled',
  'resource_exhausted',
  'resource exhausted',
  'resource has been exhausted',
  'resourceexhausted',
  'resource-exhausted',
  // Alibaba / DashScope's throttling, sent with a 400.
  'rate increased too quickly',
  // AWS Bedrock.
  'throttlingexception',
  'too many concurrent requests',
  // Per-key limits on requests in flight or per period: they lift by themselves.
  'concurrency limit',
  'request limit',
  'servicequotaexceededexception',
];
const OVERLOADED_429 = ['overloaded', 'at capacity'];
const OVERLOADED = ['overloaded', 'at capacity', 'capacity', 'temporarily unavailable', 'service unavailable'];
const MODEL_NOT_FOUND = [
  'model not found',
  'model_not_found',
  'no such model',
  'does not exist',
  'unknown model',
  'invalid model',
  'is not a valid model',
  'model is not available',
  'no endpoints found',
];
const AUTH = [
  'invalid api key',
  'invalid_api_key',
  'incorrect api key',
  'unauthorized',
  'authentication',
  'forbidden',
  'token expired',
  'invalid x-api-key',
  'no auth credentials',
];
const UNSUPPORTED_PARAM = [
  'unknown parameter',
  'unsupported parameter',
  'unrecognized request argument',
  'extra inputs are not permitted',
  'unknown_parameter',
  'unsupported_parameter',
];
/**
 * A request the server validated and refused. In a 5xx it still means the same request fails the
 * same way every time; not used for a 400, where OpenAI stamps `invalid_request_error` on real
 * context overflows too.
 */
const REQUEST_VALIDATION = [...UNSUPPORTED_PARAM, 'invalid_request_error'];
/**
 * OpenRouter's refusal when the account's privacy settings exclude every endpoint of the model
 * (it comes as 404, 403 or 503): no retry and no other key of the same provider can help.
 */
const DATA_POLICY = ['matching your data policy', 'no endpoints available matching your guardrail'];
/** A Responses API reasoning item whose encrypted content the server cannot verify any more. */
const BAD_ENCRYPTED_CONTENT = ['invalid_encrypted_content', 'encrypted content could not be verified'];
const TIMEOUT = ['timed out', 'timeout', 'deadline exceeded'];
/** No connection at all, or one reset by the peer: the host is down, unreachable or unnamed. */
const NETWORK = [
  'econnrefused',
  'connection refused',
  'econnreset',
  'connection reset',
  'enotfound',
  'getaddrinfo',
  'eai_again',
  'ehostunreach',
  'enetunreach',
  'enetdown',
  'name resolution',
];
/** The server (or a proxy) closed a connection it had accepted. */
const DISCONNECT = [
  'server disconnected',
  'peer closed connection',
  'unexpected eof',
  'socket hang up',
  'connection error',
  'terminated',
  'other side closed',
  'fetch failed',
];
const SSL = ['bad record mac', '[ssl:', 'ssl alert', 'tls', 'certificate'];

const CODE_REASONS: Record<string, FailureReason> = {
  resource_exhausted: 'rate_limit',
  throttled: 'rate_limit',
  rate_limit_exceeded: 'rate_limit',
  rate_limit_error: 'rate_limit',
  insufficient_quota: 'billing',
  billing_not_active: 'billing',
  payment_required: 'billing',
  insufficient_credits: 'billing',
  no_usable_credits: 'billing',
  balance_depleted: 'billing',
  model_not_supported_on_free_tier: 'billing',
  model_not_found: 'model_not_found',
  model_not_available: 'model_not_found',
  invalid_model: 'model_not_found',
  context_length_exceeded: 'context_overflow',
  max_tokens_exceeded: 'context_overflow',
  exceed_context_size_error: 'context_overflow',
  overloaded_error: 'overloaded',
  authentication_error: 'auth',
  permission_error: 'auth',
  request_too_large: 'payload_too_large',
};

/**
 * "Usage limit reached", "Monthly quota reached" with nothing saying when it resets: a wall that
 * waiting will not lift within the turn, so billing (fall back) rather than a rate limit (retry).
 * A plain rate-limit phrase ("Rate limit exceeded") never counts, though it contains "limit exceeded".
 */
function isUsageWall(text: string): boolean {
  return has(text, USAGE_LIMIT) && !has(text, TRANSIENT_HINT) && !has(text, RATE_LIMIT);
}

/** A large session makes a bare, uninformative 400 most likely a context overflow. */
function isLargeSession(e: ProviderErrorInput, share: number, tokens: number, msgs: number): boolean {
  const ctx = e.contextLength;
  const approx = e.approxTokens ?? 0;
  if (ctx && approx > ctx * share) return true;
  if (ctx !== undefined && ctx > 256_000) return false;
  return approx > tokens || (e.messageCount ?? 0) > msgs;
}

/** The estimated prompt alone is larger than the model's known window. */
function requestExceedsWindow(e: ProviderErrorInput): boolean {
  return e.contextLength !== undefined && (e.approxTokens ?? 0) > e.contextLength;
}

export function classifyProviderError(e: ProviderErrorInput): FailureReason {
  const text = `${e.message} ${e.code ?? ''}`.toLowerCase();
  const status = e.status;

  if (has(text, CONTENT_POLICY)) return 'content_policy_blocked';
  if (has(text, DATA_POLICY)) return 'model_not_found';
  // Stored reasoning the Responses API no longer accepts: like a bad thinking signature, the call
  // is retried once without the replayed reasoning (also inside a 200 stream, without a status).
  if ((status === undefined || status === 400) && has(text, BAD_ENCRYPTED_CONTENT)) return 'thinking_signature';
  if (
    status === 400 &&
    text.includes('thinking') &&
    has(text, ['signature', 'cannot be modified', 'must remain as they were'])
  ) {
    return 'thinking_signature';
  }
  if (status === 429 && text.includes('extra usage') && text.includes('long context')) return 'long_context_tier';

  if (status !== undefined) {
    const byStatus = classifyByStatus(status, text, e);
    if (byStatus) return byStatus;
  }

  const code = e.code?.toLowerCase();
  if (code && CODE_REASONS[code]) return CODE_REASONS[code];

  return classifyByMessage(text, e);
}

function classifyByStatus(status: number, text: string, e: ProviderErrorInput): FailureReason | undefined {
  switch (status) {
    case 401:
      return 'auth';
    case 403:
      return has(text, BILLING) ? 'billing' : 'auth';
    case 402:
      return has(text, USAGE_LIMIT) && has(text, TRANSIENT_HINT) ? 'rate_limit' : 'billing';
    case 404:
      if (has(text, BILLING)) return 'billing';
      if (has(text, MODEL_NOT_FOUND)) return 'model_not_found';
      return 'unknown';
    case 413:
      return 'payload_too_large';
    case 429:
      if (has(text, OVERLOADED_429)) return 'overloaded';
      if (has(text, BILLING) && !has(text, TRANSIENT_HINT)) return 'billing';
      if (isUsageWall(text)) return 'billing';
      return 'rate_limit';
    case 400:
      if (has(text, UNSUPPORTED_PARAM)) return 'format_error';
      if (has(text, OVERFLOW)) return 'context_overflow';
      if (has(text, MODEL_NOT_FOUND)) return 'model_not_found';
      if (has(text, RATE_LIMIT)) return 'rate_limit';
      if (has(text, BILLING)) return 'billing';
      if (e.message.trim().length < 30 && isLargeSession(e, 0.4, 80_000, 80)) return 'context_overflow';
      return 'format_error';
    case 500:
    case 502:
      return requestFaultIn5xx(text) ?? 'server_error';
    case 503:
    case 529:
      return requestFaultIn5xx(text) ?? 'overloaded';
    case 408:
    case 504:
      return 'timeout';
    default:
      if (status >= 500) return has(text, REQUEST_VALIDATION) ? 'format_error' : 'server_error';
      if (status >= 400) return 'format_error';
      return undefined;
  }
}

/**
 * Some gateways wrap a request validation error in a 5xx: retrying the same request cannot help.
 * An overflow is still compressed, even when the gateway also calls it an invalid request.
 */
function requestFaultIn5xx(text: string): FailureReason | undefined {
  if (has(text, UNSUPPORTED_PARAM)) return 'format_error';
  if (has(text, OVERFLOW)) return 'context_overflow';
  if (has(text, REQUEST_VALIDATION)) return 'format_error';
  return undefined;
}

function classifyByMessage(text: string, e: ProviderErrorInput): FailureReason {
  if (has(text, ['payload too large', 'request entity too large'])) return 'payload_too_large';
  if (has(text, USAGE_LIMIT) && has(text, TRANSIENT_HINT)) return 'rate_limit';
  if (isUsageWall(text)) return 'billing';
  if (has(text, OVERLOADED)) return 'overloaded';
  if (has(text, BILLING)) return 'billing';
  if (has(text, RATE_LIMIT)) return 'rate_limit';
  if (has(text, OVERFLOW)) return 'context_overflow';
  if (has(text, AUTH)) return 'auth';
  if (has(text, MODEL_NOT_FOUND)) return 'model_not_found';
  if (has(text, NETWORK)) return 'network';
  if (has(text, TIMEOUT)) return 'timeout';
  if (has(text, SSL)) return 'timeout';
  if (has(text, DISCONNECT)) {
    // A dropped connection is not by itself evidence of an overflow: proxies cut idle reasoning
    // streams on big sessions too, and compressing for nothing loses context. Only a request known
    // to be larger than the model's window makes the disconnect an overflow.
    return requestExceedsWindow(e) ? 'context_overflow' : 'timeout';
  }
  if (e.transport) return 'timeout';
  return 'unknown';
}

/** Parse a Retry-After header (seconds or an HTTP date) into milliseconds, capped. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number, capMs = 600_000): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  let ms: number;
  if (Number.isFinite(seconds)) ms = seconds * 1000;
  else {
    const date = Date.parse(value);
    if (Number.isNaN(date)) return undefined;
    ms = date - nowMs;
  }
  if (ms < 0) ms = 0;
  return Math.min(ms, capMs);
}

/** Jittered exponential backoff: min(base·2^(attempt−1), cap) plus up to half of that again. */
export function backoffMs(attempt: number, random: number, baseMs = 2000, capMs = 60_000): number {
  const core = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), capMs);
  return Math.round(core + random * 0.5 * core);
}

const CONTEXT_LIMIT_PATTERNS: RegExp[] = [
  /maximum context length is (\d[\d,]*)/i,
  /context length of (\d[\d,]*)/i,
  /context window (?:is|of) (\d[\d,]*)/i,
  /tokens? > (\d[\d,]*) maximum/i,
  // llama.cpp: "request (2530 tokens) exceeds the available context size (2048 tokens)"
  /context size \((\d[\d,]*) tokens\)/i,
  /\bn_ctx\b\D{0,4}(\d[\d,]*)/i,
  // vLLM: "longer than the maximum model length of 4096", "max_model_len 4096"
  /maximum model length (?:is |of )?\(?(\d[\d,]*)/i,
  /\bmax_model_len\b\D{0,4}(\d[\d,]*)/i,
  /(\d[\d,]*)[- ]token context/i,
  /limit(?: is|:)? (\d[\d,]*) tokens/i,
  // LM Studio / llama.cpp: "Maximum context size 65536 exceeded", "… Maximum context size is 32768"
  /maximum context size (?:is |of )?\(?(\d[\d,]*)/i,
  // llama.cpp's slot: "slot context: 4096 tokens, prompt 8192 tokens"
  /slot context:? ?(\d[\d,]*)/i,
];

/**
 * The real context window when a provider's overflow error states it (e.g. "maximum context length
 * is 8192 tokens"). A number outside the plausible windows (a garbled or hostile message) is not
 * believed: the next pattern may still find the real one.
 */
export function parseContextLimit(message: string): number | undefined {
  for (const p of CONTEXT_LIMIT_PATTERNS) {
    const m = p.exec(message);
    if (m?.[1]) {
      const n = Number(m[1].replace(/,/g, ''));
      if (isPlausibleContextWindow(n)) return n;
    }
  }
  return undefined;
}
