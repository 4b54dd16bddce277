/**
 * Stream-progress liveness: heartbeats tick on a timer so a live worker is never taken for dead,
 * but a provider stream that stops sending would then only be caught by the 15-minute
 * start-to-close timeout — per attempt, per provider in the chain. The watch aborts a call whose
 * stream has made no progress (no bytes of any kind) for `stallMs`, and the call fails as a
 * `timeout` marked stalled (its details carry `{ stalledSeconds }`); the heartbeat carries the
 * time of the last progress, for the Web UI.
 *
 * A stalled provider costs a turn at most `STALLED_ATTEMPTS` windows: the first stall is retried
 * (a dropped connection is worth one more try), the second gives the call to the workflow, which
 * falls back to the next provider or ends the turn without going round the chain again
 * (workflows/model-slot.ts). With the default window a dead stream fails a turn in about two
 * minutes instead of six attempts of two minutes each.
 */
import { ApplicationFailure } from '@temporalio/activity';

export const DEFAULT_STREAM_STALL_SECONDS = 60;
/** Attempts of one call that may stall before the call is given up on. */
export const STALLED_ATTEMPTS = 2;

/** The detail a stall failure carries (read by the workflow: workflows/errors.ts `stalledSeconds`). */
export interface StallDetail {
  stalledSeconds: number;
}

export interface StallWatch {
  /** The call's signal: the activity's cancellation, or the stall. */
  signal: AbortSignal;
  /** Bytes arrived. */
  progress(): void;
  lastProgressAt(): number;
  stalled(): boolean;
  /** The call's failure; `attempt` is the activity attempt that stalled (1-based). */
  failure(attempt: number): ApplicationFailure;
  stop(): void;
}

export function watchStall(cancellation: AbortSignal, stallMs: number): StallWatch {
  const stall = new AbortController();
  let last = Date.now();
  const timer = setInterval(
    () => {
      if (Date.now() - last > stallMs) stall.abort(new Error(`no progress for ${stallMs / 1000} s`));
    },
    Math.min(1000, Math.max(50, stallMs / 4)),
  );
  timer.unref();
  return {
    signal: AbortSignal.any([cancellation, stall.signal]),
    progress: () => {
      last = Date.now();
    },
    lastProgressAt: () => last,
    stalled: () => stall.signal.aborted && !cancellation.aborted,
    failure: (attempt) =>
      ApplicationFailure.create({
        type: 'timeout',
        message: `the provider's stream made no progress for ${Math.round(stallMs / 1000)} s; the call was abandoned`,
        nonRetryable: attempt >= STALLED_ATTEMPTS,
        details: [{ stalledSeconds: Math.round(stallMs / 1000) } satisfies StallDetail],
      }),
    stop: () => clearInterval(timer),
  };
}
