/**
 * Did a conversation get through its start? A run fails at its start when its input is invalid
 * for the worker (a workspace that does not exist there, an endpoint it does not declare, an
 * unknown toolset): only the worker can tell, in `prepareConversation`. `herald start` without
 * `--wait` follows the run's history (a long poll, no busy polling) until that activity completed
 * or the run closed, for a bounded time, so it never says "started" for a run that failed.
 */
import type { Client } from '@temporalio/client';
import { closedWorkflowFailure } from './workflow-failure.js';

/** The activity that resolves a new session against the worker's configuration (workflows/start.ts `prepare`). */
const PREPARE_ACTIVITY = 'prepareConversation';

export type StartPhase =
  /** The worker accepted the session: the run is past its start. */
  | { state: 'ready' }
  /** Nothing decided within the time given (no worker polling the task queue, or a slow one). */
  | { state: 'pending' };

/**
 * Wait (at most `timeoutMs`) until the run has prepared its session. Throws the run's failure
 * (a ConversationFailedError) when it closed instead.
 */
export async function waitForStartPhase(
  temporal: Client,
  workflowId: string,
  runId: string | undefined,
  timeoutMs: number,
): Promise<StartPhase> {
  const deadline = Date.now() + timeoutMs;
  const prepareIds = new Set<string>();
  let nextPageToken: Uint8Array | undefined;
  for (;;) {
    let events;
    try {
      const res = await temporal.connection.withDeadline(deadline, () =>
        temporal.workflowService.getWorkflowExecutionHistory({
          namespace: temporal.options.namespace,
          execution: { workflowId, ...(runId ? { runId } : {}) },
          waitNewEvent: true,
          ...(nextPageToken?.length ? { nextPageToken } : {}),
        }),
      );
      events = res.history?.events ?? [];
      nextPageToken = res.nextPageToken ?? undefined;
    } catch {
      // The deadline passed (or the server could not answer): nothing decided.
      return { state: 'pending' };
    }
    for (const e of events) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === PREPARE_ACTIVITY) prepareIds.add(String(e.eventId));
      const completed = e.activityTaskCompletedEventAttributes;
      if (completed && prepareIds.has(String(completed.scheduledEventId))) return { state: 'ready' };
      if (isCloseEvent(e)) {
        const failure = await closedWorkflowFailure(temporal.workflow.getHandle(workflowId, runId));
        if (failure) throw failure;
        return { state: 'ready' };
      }
    }
    if (Date.now() >= deadline) return { state: 'pending' };
  }
}

interface CloseAttributes {
  workflowExecutionFailedEventAttributes?: unknown;
  workflowExecutionTerminatedEventAttributes?: unknown;
  workflowExecutionTimedOutEventAttributes?: unknown;
  workflowExecutionCanceledEventAttributes?: unknown;
  workflowExecutionCompletedEventAttributes?: unknown;
  workflowExecutionContinuedAsNewEventAttributes?: unknown;
}

function isCloseEvent(e: CloseAttributes): boolean {
  return Boolean(
    e.workflowExecutionFailedEventAttributes ||
    e.workflowExecutionTerminatedEventAttributes ||
    e.workflowExecutionTimedOutEventAttributes ||
    e.workflowExecutionCanceledEventAttributes ||
    e.workflowExecutionCompletedEventAttributes ||
    e.workflowExecutionContinuedAsNewEventAttributes,
  );
}
