/** Reading a conversation's workflow histories in tests: every run of the chain, and what went wrong in them. */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

const EventType = proto.temporal.api.enums.v1.EventType;

export interface RunHistory {
  runId: string;
  events: proto.temporal.api.history.v1.IHistoryEvent[];
}

/** Every run of a workflow, first to last, following continue-as-new. */
export async function runsOf(client: Client, workflowId: string): Promise<RunHistory[]> {
  const first = (await client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.firstRunId;
  const runs: RunHistory[] = [];
  let runId: string | undefined = first ?? undefined;
  while (runId && runs.length < 100) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.push({ runId, events });
    const next = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
    runId = next?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}

/** The longest streak of consecutive failed workflow tasks in any run (1 is a retry; more is a wedge). */
export function longestTaskFailureStreak(runs: RunHistory[]): number {
  let worst = 0;
  for (const r of runs) {
    let streak = 0;
    for (const e of r.events) {
      if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) worst = Math.max(worst, ++streak);
      else if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) streak = 0;
    }
  }
  return worst;
}

/**
 * How many activities of a type each run scheduled, local ones included (since patch
 * local-store-steps a turn's short store steps are local activities: a marker in history).
 */
export function activitiesPerRun(runs: RunHistory[], type: string): number[] {
  return runs.map(
    (r) =>
      r.events.filter(
        (e) =>
          (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
            e.activityTaskScheduledEventAttributes?.activityType?.name === type) ||
          (e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED && localActivityType(e) === type),
      ).length,
  );
}

/** A local activity marker's activity type (its `data` detail holds the SDK's JSON record). */
function localActivityType(e: RunHistory['events'][number]): string | undefined {
  const m = e.markerRecordedEventAttributes;
  if (m?.markerName !== 'core_local_activity') return undefined;
  const data = m.details?.data?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    const record = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string };
    return record.activity_type;
  } catch {
    return undefined;
  }
}
