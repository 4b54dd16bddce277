/**
 * Activity proxies with their timeouts, heartbeats and retry policies in one place.
 * Temporal owns retries: SDK clients run with `maxRetries: 0`, and each policy here is what
 * shows in history. `cancellationType` is always explicit (the SDK's real default is TRY_CANCEL).
 */
import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { HeraldActivities } from '../activities/index.js';
import { NON_RETRYABLE_REASONS, STORE_REJECTED } from '../common/error-reasons.js';

/** Errors that mean "this cannot work", never retried by Temporal. */
const NON_RETRYABLE_STORE = ['InvalidInput', 'ConfigError', STORE_REJECTED];

/** Postgres writes and reads: short attempts, patient retries (a restarting database is survivable). */
export const store = proxyActivities<HeraldActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '30 minutes',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: NON_RETRYABLE_STORE,
  },
});

/** A model call with a UI summary. 3 attempts per call slot; backoff comes from the activity (jitter, Retry-After). */
export function modelActivities(summary: string) {
  return proxyActivities<HeraldActivities>({
    summary,
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '10 seconds',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: '2 seconds',
      backoffCoefficient: 2,
      maximumInterval: '60 seconds',
      maximumAttempts: 3,
      nonRetryableErrorTypes: [...NON_RETRYABLE_REASONS, ...NON_RETRYABLE_STORE],
    },
  });
}

/**
 * A tool call with a UI summary. Tool failures are results for the model, not activity failures,
 * so a retry here means the worker died or the store failed: retry a few times, no more, because
 * a tool may have side effects (the re-run is marked in the transcript).
 */
export function toolActivities(summary: string, timeoutSeconds: number, taskQueue?: string) {
  return proxyActivities<HeraldActivities>({
    summary,
    ...(taskQueue ? { taskQueue } : {}),
    startToCloseTimeout: `${timeoutSeconds + 60} seconds`,
    heartbeatTimeout: '10 seconds',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '10 seconds',
      maximumAttempts: 4,
      nonRetryableErrorTypes: NON_RETRYABLE_STORE,
    },
  });
}

/**
 * `smart` approvals ask the auxiliary model about a command: a model call, so model-call
 * timeouts, and few attempts — when it cannot answer, the human is asked instead.
 */
export const assessment = proxyActivities<HeraldActivities>({
  summary: 'assess command',
  startToCloseTimeout: '2 minutes',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 2,
    nonRetryableErrorTypes: [...NON_RETRYABLE_REASONS, ...NON_RETRYABLE_STORE],
  },
});

/** Closing the session row when the conversation ends: retried as long as it takes, since the row must not stay open. */
export const closing = proxyActivities<HeraldActivities>({
  startToCloseTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '60 seconds' },
});

/** A compression: a summary call plus database writes; heartbeats while the summariser runs. */
export const compression = proxyActivities<HeraldActivities>({
  summary: 'compress context',
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: NON_RETRYABLE_STORE,
  },
});
