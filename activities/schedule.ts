/**
 * A scheduled run's delivery (docs/schedules.md): the run's message becomes a turn of its
 * conversation the way `herald send` makes one — update-with-start on the session's workflow, so
 * a session that is not running (a new one, or a standing one that ended) is started or resumed,
 * and a running one takes the message as its next turn. The activity waits for the turn's result
 * (heartbeating); the update id is the run's own, so a retried delivery is answered from the turn
 * it ran and never runs twice. A cancelled run (the schedule's `cancel_other` overlap policy, or
 * a person) stops the turn it started.
 */
import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { CONVERSATION_WORKFLOW, workflowIdFor } from '../common/constants.js';
import type { TurnResult } from '../common/contract.js';
import type { ScheduledRunResult } from '../common/schedule.js';
import { MAX_RUN_ANSWER_PREVIEW } from '../common/schedule.js';
import { sendMessageUpdate, stopSignal } from '../workflows/definitions.js';
import type { ActivityDeps } from './deps.js';

export interface DeliverScheduledArgs {
  session: string;
  message: string;
  /** The update id: the run's workflow id, so a retry is the same message. */
  messageId: string;
  schedule: string;
  start?: Record<string, unknown> | undefined;
}

const HEARTBEAT_MS = 10_000;

const clip = (text: string | null | undefined, max: number) =>
  text == null ? null : text.length > max ? `${text.slice(0, max - 1)}…` : text;

export function scheduleActivities(deps: ActivityDeps) {
  return {
    async deliverScheduledMessage(a: DeliverScheduledArgs): Promise<ScheduledRunResult> {
      const ctx = Context.current();
      const client = ctx.client;
      const workflowId = workflowIdFor(a.session);
      const startOp = new WithStartWorkflowOperation(CONVERSATION_WORKFLOW, {
        taskQueue: deps.config.taskQueue,
        workflowId,
        args: [{ ...(a.start ?? {}), sessionId: a.session, source: 'schedule' }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `scheduled: ${a.schedule}`,
      });
      const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_MS);
      try {
        const turn = client.workflow.executeUpdateWithStart(sendMessageUpdate, {
          args: [{ text: a.message, id: a.messageId }],
          updateId: a.messageId,
          startWorkflowOperation: startOp,
        });
        const cancelled = ctx.cancelled.catch(async (err: unknown) => {
          // The run was cancelled: the turn it started stops too (a stop, not a lost message).
          await client.workflow
            .getHandle(workflowId)
            .signal(stopSignal, { reason: `the scheduled run of ${a.schedule} was cancelled`, kind: 'client_gone' })
            .catch(() => {});
          throw err;
        });
        const r: TurnResult = await Promise.race([turn, cancelled]);
        return {
          session: a.session,
          failed: r.failed,
          interrupted: r.interrupted,
          answer: clip(r.final_response, MAX_RUN_ANSWER_PREVIEW),
          error: clip(r.error ?? null, MAX_RUN_ANSWER_PREVIEW),
        };
      } finally {
        clearInterval(beat);
      }
    },
  };
}
