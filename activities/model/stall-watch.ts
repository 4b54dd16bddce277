/**
 * Stream-progress liveness (issue 12): heartbeats tick on a timer so a live worker is never taken
 * for dead, but a provider stream that stops sending would then only be caught by the 15-minute
 * start-to-close timeout — per attempt, per provider in the chain. The watch aborts a call whose
 * stream has made no progress (no bytes of any kind) for `stallMs`, and the call fails as a
 * retryable `timeout`; the heartbeat carries the time of the last progress, for the Web UI.
 */
import { ApplicationFailure } from '@temporalio/activity';

export const DEFAULT_STREAM_STALL_SECONDS = 120;

export interface StallWatch {
  /** The call's signal: the activity's cancellation, or the stall. */
  signal: AbortSignal;
  /** Bytes arrived. */
  progress(): void;
  lastProgressAt(): number;
  stalled(): boolean;
  failure(): ApplicationFailure;
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
    failure: () =>
      ApplicationFailure.create({
        type: 'timeout',
        message: `the provider's stream made no progress for ${Math.round(stallMs / 1000)} s; the call was abandoned`,
        nonRetryable: false,
      }),
    stop: () => clearInterval(timer),
  };
}
