/**
 * Whether any worker polls a task queue. A message sent to a conversation whose task queue nobody
 * polls is taken by Temporal and then waits, silently, until a worker comes (a demo's queue after
 * the demo exited, a worker that was never started): the client asks the server first and says so
 * at once, and asks again while it waits.
 *
 * A poller is counted while its last poll is recent: a worker's long poll is renewed about every
 * minute, and the server keeps listing a worker that has gone for some minutes after. The other
 * way round, a Temporal server that restarted lists nobody until its workers poll again (seconds,
 * longer under load): an empty list is only believed when it stays empty for a while.
 */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const { TaskQueueKind, TaskQueueType } = proto.temporal.api.enums.v1;

/** A poll older than this is a worker that has gone (long polls last about 60 s). */
export const POLLER_FRESH_MS = 90_000;

/**
 * While a sent message waits, how long the queue must list no worker before the client says the
 * worker has gone: longer than a Temporal restart takes its workers to poll again, so a restart is
 * waited through (the message runs when they do) and a worker that truly went is still named.
 */
export const WORKER_GONE_AFTER_MS = 30_000;

export class NoWorkerError extends Error {
  constructor(readonly taskQueue: string) {
    super(
      `no worker polls task queue ${taskQueue} — start \`herald dev\` or \`herald worker\` for it ` +
        '(a message already sent waits there and runs when one starts)',
    );
    this.name = 'NoWorkerError';
  }
}

function millisOf(ts: { seconds?: unknown; nanos?: number | null } | null | undefined): number | undefined {
  if (!ts?.seconds) return undefined;
  return Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

/** Workers whose last workflow-task poll of `taskQueue` is recent. */
export async function liveWorkflowPollers(client: Client, taskQueue: string, now = Date.now()): Promise<number> {
  const r = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (r.pollers ?? []).filter((p) => {
    const at = millisOf(p.lastAccessTime);
    return at === undefined || now - at < POLLER_FRESH_MS;
  }).length;
}

/** The task queue a conversation's workflow runs on, or undefined when it does not exist yet. */
export async function workflowTaskQueue(client: Client, workflowId: string): Promise<string | undefined> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    return d.taskQueue;
  } catch (err) {
    if ((err as Error).name === 'WorkflowNotFoundError') return undefined;
    throw err;
  }
}

/**
 * Throw NoWorkerError when nobody polls `taskQueue`, asked again for `graceMs` first (a worker
 * that is starting has not polled yet). A failure to ask is not a reason to refuse.
 */
export async function requireWorker(client: Client, taskQueue: string, graceMs = 0, everyMs = 250): Promise<void> {
  const until = Date.now() + graceMs;
  for (;;) {
    let live: number;
    try {
      live = await liveWorkflowPollers(client, taskQueue);
    } catch {
      return;
    }
    if (live > 0) return;
    if (Date.now() >= until) throw new NoWorkerError(taskQueue);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Run `work` while checking every `everyMs` that a worker still polls `taskQueue`: rejects with
 * NoWorkerError once none has for `goneAfterMs` in a row (the work itself goes on at the server,
 * unawaited).
 */
export async function whileWorkerPolls<T>(
  client: Client,
  taskQueue: string,
  work: Promise<T>,
  everyMs = 15_000,
  goneAfterMs = WORKER_GONE_AFTER_MS,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const gone = new Promise<never>((_, reject) => {
    const check = () => {
      requireWorker(client, taskQueue, goneAfterMs, 1000).then(
        () => {
          if (!done) timer = setTimeout(check, everyMs);
        },
        (err: unknown) => reject(err as Error),
      );
    };
    timer = setTimeout(check, everyMs);
  });
  gone.catch(() => {});
  // Abandoned when the worker is gone: its later failure is nobody's to handle.
  work.catch(() => {});
  try {
    return await Promise.race([work, gone]);
  } finally {
    done = true;
    clearTimeout(timer);
  }
}
