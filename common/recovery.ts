/**
 * What to do when a model call slot fails (docs/providers.md). Pure: the workflow calls it with the
 * failure reason and where the slot stands, and carries out the answer. Two layers decide:
 * the activity's retry policy retries the same call (`retryInActivity`); when the activity gives
 * up, the workflow recovers (`decideRecovery`): rotate a key, refresh a credential, switch to the
 * next fallback provider, compress, strip reasoning signatures, or end the turn.
 */
import type { FailureReason } from './error-reasons.js';

/** Attempts per call slot in the activity retry policy. */
export const ATTEMPTS_PER_SLOT = 3;
/** Compression restarts per call slot (context overflow, 413). */
export const MAX_COMPRESSIONS_PER_SLOT = 3;
/**
 * When the whole chain failed for transient reasons, it is tried once more from the start after
 * a pause (a provider blip should not cost the user a turn); then the turn fails.
 */
export const CHAIN_RESTARTS_PER_SLOT = 1;
export const CHAIN_RESTART_PAUSE_MS = 2000;

/** Reasons that may pass on their own: worth another round through the chain. */
export function isTransient(reason: FailureReason): boolean {
  return (
    reason === 'rate_limit' ||
    reason === 'overloaded' ||
    reason === 'timeout' ||
    reason === 'network' ||
    reason === 'server_error' ||
    reason === 'unknown'
  );
}

/** The context limit assumed after a long-context-tier refusal. */
export const LONG_CONTEXT_TIER_LIMIT = 200_000;

export interface ActivityRetryContext {
  /** A fallback provider is left in the chain. */
  fallbackAvailable: boolean;
  /** Keys in the provider's credential pool (1 without a pool). */
  poolSize: number;
}

/**
 * Whether Temporal should retry this failed attempt of the same call, given the reason and the
 * 1-based attempt number. False hands the failure to the workflow at once.
 */
export function retryInActivity(reason: FailureReason, attempt: number, ctx: ActivityRetryContext): boolean {
  switch (reason) {
    case 'rate_limit':
      // With a pool: the first hit retries the same key, the second rotates. Without one: switch at
      // once when a fallback exists, else keep retrying (Retry-After is honoured).
      if (ctx.poolSize > 1) return attempt < 2;
      return !ctx.fallbackAvailable;
    case 'overloaded':
      // 503/529 "overloaded": the provider says it cannot take the call now; another provider can.
      // With a fallback left the chain moves on at once (and this provider cools down).
      return !ctx.fallbackAvailable;
    case 'timeout':
    case 'network':
      // A host that refused or could not be resolved may be restarting: one retry, then the fallback.
      return !(ctx.fallbackAvailable && attempt >= 2);
    case 'server_error':
    case 'unknown':
      return true;
    default:
      return false;
  }
}

export interface SlotState {
  /** Keys tried in this slot beyond the first (rotations). */
  rotations: number;
  poolSize: number;
  /** The credential refresh hook already ran in this slot. */
  refreshed: boolean;
  /** Fallback providers left in the chain. */
  fallbacksLeft: number;
  compressions: number;
  /** Reasoning signatures were already stripped in this slot. */
  strippedReasoning: boolean;
  /** HTTP attempts this slot has made so far, as the usage ledger counts them (when known). */
  attempts?: number | undefined;
}

export type Recovery =
  | { action: 'rotate_credential' }
  | { action: 'refresh_credential' }
  | { action: 'fallback' }
  | { action: 'compress'; lowerContextTo?: number }
  | { action: 'strip_reasoning' }
  | { action: 'fail'; message: string };

const canRotate = (s: SlotState) => s.poolSize > 1 && s.rotations < s.poolSize - 1;

function fallbackOr(s: SlotState, message: string): Recovery {
  return s.fallbacksLeft > 0 ? { action: 'fallback' } : { action: 'fail', message };
}

export function decideRecovery(reason: FailureReason, s: SlotState): Recovery {
  switch (reason) {
    case 'auth':
      if (!s.refreshed) return { action: 'refresh_credential' };
      if (canRotate(s)) return { action: 'rotate_credential' };
      // `auth` also stands for a key that is not set at all (nothing was sent): the failure's own
      // message says which of the two, and which variable.
      return fallbackOr(s, 'no usable API key (missing, or refused by the provider)');
    case 'billing':
      if (canRotate(s)) return { action: 'rotate_credential' };
      return fallbackOr(s, 'the provider account is out of credit or quota');
    case 'rate_limit':
      if (canRotate(s)) return { action: 'rotate_credential' };
      return fallbackOr(s, 'rate limited by the provider after every retry');
    case 'overloaded':
    case 'timeout':
    case 'network':
    case 'server_error':
    case 'unknown':
      // The turn's error adds the reason once ("… (timeout): …"): it is not repeated here. The
      // count is the ledger's (retries, chain restarts and stalls given up early all differ from
      // the retry policy's maximum); without it the message says no number rather than a wrong one.
      return fallbackOr(
        s,
        s.attempts
          ? `the provider kept failing after ${s.attempts} attempt${s.attempts === 1 ? '' : 's'}`
          : 'the provider kept failing',
      );
    case 'context_overflow':
    case 'payload_too_large':
      if (s.compressions < MAX_COMPRESSIONS_PER_SLOT) return { action: 'compress' };
      return {
        action: 'fail',
        message: `the conversation is still too large for the model after ${MAX_COMPRESSIONS_PER_SLOT} compressions`,
      };
    case 'long_context_tier':
      if (s.compressions < MAX_COMPRESSIONS_PER_SLOT)
        return { action: 'compress', lowerContextTo: LONG_CONTEXT_TIER_LIMIT };
      return { action: 'fail', message: 'the request needs a long-context tier the account does not have' };
    case 'thinking_signature':
      if (!s.strippedReasoning) return { action: 'strip_reasoning' };
      return fallbackOr(s, 'the provider rejected the replayed reasoning signatures');
    case 'model_not_found':
      // Also OpenRouter's data-policy refusal: the model exists, but no endpoint the account allows.
      return fallbackOr(s, 'the model is not available at this provider (unknown, or excluded by the account)');
    case 'content_policy_blocked':
      return fallbackOr(s, 'the provider blocked the request under its content policy');
    case 'format_error':
      return fallbackOr(s, 'the provider rejected the request format');
  }
}
