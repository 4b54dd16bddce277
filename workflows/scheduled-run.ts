/**
 * One run of a schedule (docs/schedules.md): the Temporal Schedule starts this workflow, which
 * hands the message to its conversation — a new session named after the run, or the schedule's
 * standing session — and ends with the turn's outcome. Its lifetime is the turn's, so the
 * schedule's overlap policy (skip, buffer, cancel the other, …) applies to the answering itself;
 * the conversation stays a session like any other (`herald chat`, `herald stop`, the Web UI).
 */
import { ActivityCancellationType, ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { HeraldActivities } from '../activities/index.js';
import type { ScheduledRunResult } from '../common/schedule.js';
import { scheduledRunInputSchema, sessionForRun } from '../common/schedule.js';

/**
 * The delivery waits for the whole turn (a turn may wait hours for an approval): long, with a
 * heartbeat that finds a dead worker in a minute; a retry delivers the same update id again.
 */
const delivery = proxyActivities<HeraldActivities>({
  summary: 'deliver the scheduled message',
  startToCloseTimeout: '2 days',
  heartbeatTimeout: '1 minute',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});

export async function scheduledRun(rawInput?: unknown): Promise<ScheduledRunResult> {
  const parsed = scheduledRunInputSchema.safeParse(rawInput);
  if (!parsed.success)
    throw ApplicationFailure.create({
      type: 'InvalidInput',
      message: `invalid scheduled run input: ${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''}`,
      nonRetryable: true,
    });
  const input = parsed.data;
  const { workflowId } = workflowInfo();
  return await delivery.deliverScheduledMessage({
    session: input.session ?? sessionForRun(workflowId),
    message: input.message,
    messageId: `schedule:${workflowId}`.slice(0, 200),
    schedule: input.schedule,
    start: input.start,
  });
}
