/**
 * How a turn ends early, and how activity failures are read. Workflow code never lets a plain
 * Error escape the workflow function (that would retry the workflow task forever): turn-level
 * problems are TurnEnd, caught by the turn and reported in its result.
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { SPEND_LIMIT_REACHED } from '../common/attempts.js';
import type { TurnExitReason } from '../common/contract.js';
import { isPlausibleContextWindow } from '../common/context-window.js';
import type { FailureReason } from '../common/error-reasons.js';
import { STORAGE_UNAVAILABLE, STORE_REJECTED, isFailureReason } from '../common/error-reasons.js';

export class TurnEnd extends Error {
  constructor(
    readonly exit: TurnExitReason,
    message: string,
    /** End as partial (the model misbehaved) rather than failed. */
    readonly partial = false,
  ) {
    super(message);
    this.name = 'TurnEnd';
  }
}

export type FailureKind = FailureReason | 'storage' | 'rejected';

/** The failure reason of a failed model-call activity. */
export function failureKindOf(err: unknown): FailureKind | undefined {
  if (!(err instanceof ActivityFailure)) return undefined;
  const cause = err.cause;
  if (cause instanceof TimeoutFailure) return 'timeout';
  if (cause instanceof ApplicationFailure) {
    if (cause.type === STORAGE_UNAVAILABLE) return 'storage';
    if (cause.type === STORE_REJECTED) return 'rejected';
    return isFailureReason(cause.type) ? cause.type : 'unknown';
  }
  return 'unknown';
}

/** A model call whose retry was not made: its earlier attempts reached a session cap (common/attempts.ts). */
export function isSpendLimitReached(err: unknown): boolean {
  return (
    err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === SPEND_LIMIT_REACHED
  );
}

/** The innermost message of an error chain, for one-line error reports. */
export function rootMessage(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/** The context window a provider stated in its overflow error, if any. */
export function statedContextLimit(err: unknown): number | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return undefined;
  const details = err.cause.details?.[0] as { contextLimit?: unknown } | undefined;
  return isPlausibleContextWindow(details?.contextLimit) ? details.contextLimit : undefined;
}

/**
 * The seconds without progress of a model call abandoned as stalled (the detail
 * activities/model/stall-watch.ts attaches); undefined for any other failure.
 */
export function stalledSeconds(err: unknown): number | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return undefined;
  const details = err.cause.details?.[0] as { stalledSeconds?: unknown } | undefined;
  return typeof details?.stalledSeconds === 'number' ? details.stalledSeconds : undefined;
}

/**
 * The turn's ledger totals a failed or cancelled model call reported (the detail
 * activities/model/call-model.ts appends), unchecked; undefined when it carried none.
 */
export function reportedAttempts(err: unknown): unknown {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++, e = e.cause) {
    const details = (e as { details?: unknown }).details;
    if (!Array.isArray(details)) continue;
    for (const d of details)
      if (typeof d === 'object' && d !== null && 'turnAttempts' in d)
        return (d as { turnAttempts: unknown }).turnAttempts;
  }
  return undefined;
}
