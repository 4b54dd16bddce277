/**
 * A worker's capacity settings (docs/capacity.md): the config file's `worker` section,
 * overridden per setting by HERALD_* variables, turned into Temporal `Worker.create` options.
 * Pure (no I/O): workers/worker.ts applies it; the numbers are what the scale bench measured.
 */
import { z } from 'zod';

export interface WorkerTuning {
  /**
   * Conversations kept in the sticky cache (their workflow state in memory, ≈3 MB each): more
   * means fewer full-history replays, bounded so memory is. The SDK's default grows with the heap
   * limit (≈2,300 on a 4 GB heap), which let one worker reach 2.5 GB at 500 conversations.
   */
  maxCachedWorkflows: number;
  /** Workflow tasks run at once (the SDK's default, 40). */
  workflowTaskSlots: number;
  /**
   * Activities at once: a model call mostly waits on the provider, so this bounds conversations
   * in a model call at the same moment, not CPU (the SDK's default is 100).
   */
  activityTaskSlots: number;
  /** Local activities at once (the SDK's default, 100). */
  localActivitySlots: number;
  /** Concurrent long polls for workflow tasks (the SDK's default, 10). */
  workflowTaskPollers: number;
  /** Concurrent long polls for activity tasks (the SDK's default, 10). */
  activityTaskPollers: number;
  /** Postgres connections the worker's pool holds at most (the stop listener has one more). */
  dbPoolSize: number;
  /**
   * Seconds a stopping worker (SIGTERM: a deploy, a scale-down) gives its running activities to
   * finish before it cancels them. It stops polling at once, so no new call starts there; a tool
   * that finishes within the grace is not run again on another worker. Default 55, inside the
   * Kubernetes example's 60-second termination grace; a cancelled call is retried elsewhere.
   */
  shutdownGraceSeconds: number;
}

export const DEFAULT_WORKER_TUNING: Readonly<WorkerTuning> = {
  maxCachedWorkflows: 500,
  workflowTaskSlots: 40,
  activityTaskSlots: 500,
  localActivitySlots: 100,
  workflowTaskPollers: 10,
  activityTaskPollers: 10,
  dbPoolSize: 10,
  shutdownGraceSeconds: 55,
};

/** Each setting's environment override (wins over the config file). */
export const WORKER_TUNING_ENV: Readonly<Record<keyof WorkerTuning, string>> = {
  maxCachedWorkflows: 'HERALD_MAX_CACHED_WORKFLOWS',
  workflowTaskSlots: 'HERALD_WORKFLOW_TASK_SLOTS',
  activityTaskSlots: 'HERALD_ACTIVITY_TASK_SLOTS',
  localActivitySlots: 'HERALD_LOCAL_ACTIVITY_SLOTS',
  workflowTaskPollers: 'HERALD_WORKFLOW_TASK_POLLERS',
  activityTaskPollers: 'HERALD_ACTIVITY_TASK_POLLERS',
  dbPoolSize: 'HERALD_DB_POOL_SIZE',
  shutdownGraceSeconds: 'HERALD_SHUTDOWN_GRACE_SECONDS',
};

/** Inclusive bounds per setting: pollers need 2 (one sticky, one normal); 0 cache disables stickiness. */
const BOUNDS: Readonly<Record<keyof WorkerTuning, readonly [number, number]>> = {
  maxCachedWorkflows: [0, 100_000],
  workflowTaskSlots: [2, 10_000],
  activityTaskSlots: [1, 100_000],
  localActivitySlots: [1, 100_000],
  workflowTaskPollers: [2, 1_000],
  activityTaskPollers: [1, 1_000],
  dbPoolSize: [1, 1_000],
  shutdownGraceSeconds: [0, 3_600],
};

const setting = (key: keyof WorkerTuning) =>
  z.number().int().min(BOUNDS[key][0]).max(BOUNDS[key][1]).default(DEFAULT_WORKER_TUNING[key]);

/** The config file's `worker` section. */
export const workerTuningSchema = z
  .object({
    maxCachedWorkflows: setting('maxCachedWorkflows'),
    workflowTaskSlots: setting('workflowTaskSlots'),
    activityTaskSlots: setting('activityTaskSlots'),
    localActivitySlots: setting('localActivitySlots'),
    workflowTaskPollers: setting('workflowTaskPollers'),
    activityTaskPollers: setting('activityTaskPollers'),
    dbPoolSize: setting('dbPoolSize'),
    shutdownGraceSeconds: setting('shutdownGraceSeconds'),
  })
  .strict()
  .default({ ...DEFAULT_WORKER_TUNING });

/** A bad override names its variable (the config loader turns it into a ConfigError). */
export class WorkerTuningError extends Error {
  constructor(
    message: string,
    readonly key: string,
  ) {
    super(message);
    this.name = 'WorkerTuningError';
  }
}

/** The file's settings with the environment's overrides applied; throws WorkerTuningError on a bad value. */
export function resolveWorkerTuning(file: WorkerTuning, env: Record<string, string | undefined>): WorkerTuning {
  const out = { ...file };
  for (const key of Object.keys(WORKER_TUNING_ENV) as Array<keyof WorkerTuning>) {
    const name = WORKER_TUNING_ENV[key];
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    const [min, max] = BOUNDS[key];
    if (!/^\d+$/.test(raw) || value < min || value > max)
      throw new WorkerTuningError(`config error: ${name}: expected a whole number from ${min} to ${max}`, name);
    out[key] = value;
  }
  // Pollers beyond the slots they feed would only wait; the SDK refuses the combination.
  out.workflowTaskPollers = Math.min(out.workflowTaskPollers, out.workflowTaskSlots);
  out.activityTaskPollers = Math.min(out.activityTaskPollers, out.activityTaskSlots);
  return out;
}

/** The `Worker.create` options for these settings (plain values; the caller spreads them in). */
export function workerCreateTuning(t: WorkerTuning) {
  return {
    maxCachedWorkflows: t.maxCachedWorkflows,
    maxConcurrentWorkflowTaskExecutions: t.workflowTaskSlots,
    maxConcurrentActivityTaskExecutions: t.activityTaskSlots,
    maxConcurrentLocalActivityExecutions: t.localActivitySlots,
    workflowTaskPollerBehavior: { type: 'simple-maximum' as const, maximum: t.workflowTaskPollers },
    activityTaskPollerBehavior: { type: 'simple-maximum' as const, maximum: t.activityTaskPollers },
    shutdownGraceTime: `${t.shutdownGraceSeconds} seconds`,
  };
}
