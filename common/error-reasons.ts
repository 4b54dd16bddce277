/**
 * The provider failure reasons (docs/providers.md) and what each one means for the workflow.
 * The model activity throws an ApplicationFailure whose `type` is the reason; the workflow reads
 * these flags to decide between retrying, compressing, rotating a credential and falling back.
 */

export const FAILURE_REASONS = [
  'auth',
  'billing',
  'rate_limit',
  'overloaded',
  'server_error',
  'timeout',
  // Added after `timeout`: workflow code from before it reads an unknown type as `unknown`, which
  // it recovers from exactly as from `network` (retry, fall back, one more round of the chain).
  'network',
  'context_overflow',
  'payload_too_large',
  'long_context_tier',
  'thinking_signature',
  'model_not_found',
  'content_policy_blocked',
  'format_error',
  'unknown',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export interface ReasonPolicy {
  /** Temporal may retry the same call (the activity retry policy applies). */
  retryable: boolean;
  /** Compressing the context may fix it. */
  compress: boolean;
  /** Another key of the same provider may fix it. */
  rotateCredential: boolean;
  /** Another provider may fix it. */
  fallback: boolean;
}

export const REASON_POLICIES: Record<FailureReason, ReasonPolicy> = {
  auth: { retryable: false, compress: false, rotateCredential: true, fallback: true },
  billing: { retryable: false, compress: false, rotateCredential: true, fallback: true },
  rate_limit: { retryable: true, compress: false, rotateCredential: true, fallback: true },
  overloaded: { retryable: true, compress: false, rotateCredential: false, fallback: true },
  server_error: { retryable: true, compress: false, rotateCredential: false, fallback: true },
  timeout: { retryable: true, compress: false, rotateCredential: false, fallback: true },
  network: { retryable: true, compress: false, rotateCredential: false, fallback: true },
  context_overflow: { retryable: false, compress: true, rotateCredential: false, fallback: false },
  payload_too_large: { retryable: false, compress: true, rotateCredential: false, fallback: false },
  long_context_tier: { retryable: false, compress: true, rotateCredential: false, fallback: false },
  thinking_signature: { retryable: false, compress: false, rotateCredential: false, fallback: false },
  model_not_found: { retryable: false, compress: false, rotateCredential: false, fallback: true },
  content_policy_blocked: { retryable: false, compress: false, rotateCredential: false, fallback: true },
  format_error: { retryable: false, compress: false, rotateCredential: false, fallback: true },
  unknown: { retryable: true, compress: false, rotateCredential: false, fallback: true },
};

/** Reasons Temporal must not retry on its own: the workflow decides what happens next. */
export const NON_RETRYABLE_REASONS: readonly FailureReason[] = FAILURE_REASONS.filter(
  (r) => !REASON_POLICIES[r].retryable,
);

export function isFailureReason(value: unknown): value is FailureReason {
  return typeof value === 'string' && (FAILURE_REASONS as readonly string[]).includes(value);
}

/** Details attached to a model-call ApplicationFailure. */
export interface ModelFailureDetails {
  reason: FailureReason;
  status?: number;
  providerMessage: string;
  provider: string;
  model: string;
  retryAfterMs?: number;
  /** The context window the provider stated in an overflow error. */
  contextLimit?: number;
  /** `auth` because no key was set: the empty variable's name (nothing was sent). */
  missingKey?: string;
}

/** The failure type of an activity that could not reach Postgres (retryable; not a provider problem). */
export const STORAGE_UNAVAILABLE = 'StorageUnavailable';
/** The database refused a write or read for good (a value it will not take, a bug): retrying cannot help. */
export const STORE_REJECTED = 'StoreRejected';
