/**
 * Activity proxies with their timeouts, heartbeats and retry policies in one place.
 * Temporal owns retries: SDK clients run with `maxRetries: 0`, and each policy here is what
 * shows in history. `cancellationType` is always explicit (the SDK's real default is TRY_CANCEL).
 */
import {
  ActivityCancellationType,
  ApplicationFailure,
  TimeoutFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { HeraldActivities } from '../activities/index.js';
import { NON_RETRYABLE_REASONS, STORE_REJECTED } from '../common/error-reasons.js';
import { ATTEMPTS_PER_SLOT } from '../common/recovery.js';

/** Errors that mean "this cannot work", never retried by Temporal. */
const NON_RETRYABLE_STORE = ['InvalidInput', 'ConfigError', STORE_REJECTED];

/** The store's retries: patient (a restarting database is survivable), never for a refusal. */
const STORE_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  nonRetryableErrorTypes: NON_RETRYABLE_STORE,
};

/**
 * How long a store step waits for the database in all (docs/reliability.md): a turn whose database
 * stays down this long fails and says so. Regular activities' retries are the server's, so the
 * wait costs the conversation no workflow task until it ends.
 */
export const STORE_OUTAGE = '10 minutes';

/** A local store step's attempts before it goes on as a regular activity. */
const LOCAL_STORE_ATTEMPTS = 5;

/** Postgres writes and reads: short attempts, patient retries (a restarting database is survivable). */
export const store = proxyActivities<HeraldActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: STORE_OUTAGE,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: STORE_RETRY,
});

/**
 * The same store steps as local activities: run by the worker that runs the workflow, inside the
 * workflow task, so a turn's short writes (the user message, tool results the workflow answers,
 * status events, the finished turn) cost no workflow-task round trip of their own (measured: a
 * 1-step turn went from four round trips to two). A local activity that keeps retrying keeps its
 * workflow task alive with a new task every few seconds, so its retries are bounded short: past
 * that the step goes on as a regular activity (`storeStep`), which waits without any.
 */
const localStore = proxyLocalActivities<HeraldActivities>({
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: STORE_OUTAGE,
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  // Five attempts, 15 s of backoff between them (the SDK does not end a local activity's
  // in-task retries at its schedule-to-close timeout: an attempt count is what bounds them).
  retry: { ...STORE_RETRY, maximumAttempts: LOCAL_STORE_ATTEMPTS },
});

/**
 * The largest write (its arguments, as JSON characters) a local store step carries. A local
 * activity's result sits in a marker event and every local activity of a workflow task completes
 * with that task in one request, so big writes (a long user message, a long final answer) stay
 * regular activities, as they always were (a version without this bound was seen to end a fuzz
 * case in FORCE_CLOSE_COMMAND).
 */
export const LOCAL_STEP_MAX_CHARS = 32_000;

/** The store for a turn's write of `chars` characters: local when small, else regular. */
export function turnStore(chars: number): typeof store {
  return chars <= LOCAL_STEP_MAX_CHARS ? localStore : store;
}

type Acts = HeraldActivities;

/**
 * One store step of a turn, local or regular by its size: the arguments as JSON characters
 * (deterministic, and as bounded as the arguments are).
 */
export function storeStep<K extends keyof Acts>(name: K, args: Parameters<Acts[K]>[0]): ReturnType<Acts[K]> {
  type Step = (a: typeof args) => ReturnType<Acts[K]>;
  const proxy = turnStore(JSON.stringify(args).length);
  const step = proxy[name] as unknown as Step;
  if (proxy === store) return step(args);
  // A local step that could not reach the database goes on as a regular one (the writes are
  // idempotent: every store step may run again); a refusal or a cancellation does not.
  const regular = store[name] as unknown as (a: typeof args) => Promise<unknown>;
  return (step(args) as Promise<unknown>).catch((err: unknown) => {
    if (!outlastsLocalStep(err)) throw err;
    return regular(args);
  }) as ReturnType<Acts[K]>;
}

/** A local store step's failure that a regular activity's patient retries may get past. */
function outlastsLocalStep(err: unknown): boolean {
  if (isCancellation(err)) return false;
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure) return !e.nonRetryable && !NON_RETRYABLE_STORE.includes(e.type ?? '');
    if (e instanceof TimeoutFailure) return true;
  }
  return false;
}

/** A model call with a UI summary. 3 attempts per call slot; backoff comes from the activity (jitter, Retry-After). */
export function modelActivities(summary: string) {
  return proxyActivities<HeraldActivities>({
    summary,
    startToCloseTimeout: '15 minutes',
    // The call heartbeats every 200 ms (activities/deps.ts): a dead worker is noticed within 3 s
    // and, with a 500 ms first retry, the call runs again on another worker in under 5 s.
    heartbeatTimeout: '3 seconds',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: '500 ms',
      backoffCoefficient: 2,
      maximumInterval: '60 seconds',
      maximumAttempts: ATTEMPTS_PER_SLOT,
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
