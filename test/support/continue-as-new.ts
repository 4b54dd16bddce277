/**
 * Bringing a conversation to the point where the Temporal server suggests continue-as-new: a dev
 * server started with a low `limit.historyCount.suggestContinueAsNew` sets `suggestContinueAsNew`
 * on every workflow task that starts once a run's history holds that many events. Used by the
 * continue-as-new integration test and the replay recording of the same path.
 */
import type { Client } from '@temporalio/client';
import { eventually } from './stack.js';

/** The history length (events) at which the test server suggests continue-as-new. */
export const SUGGEST_CAN_AT = 60;

/** `temporal server start-dev` arguments that make the server suggest continue-as-new at `events`. */
export function suggestCanArgs(events = SUGGEST_CAN_AT): string[] {
  return ['--dynamic-config-value', `limit.historyCount.suggestContinueAsNew=${events}`];
}

async function historyLength(client: Client, workflowId: string): Promise<number> {
  return Number((await client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.historyLength);
}

/** One ignored `approve` signal: a workflow task with no command (4 events). */
async function ignoredSignal(client: Client, workflowId: string): Promise<void> {
  await client.workflow.getHandle(workflowId).signal('approve', { requestId: 'no-such-request', decision: 'once' });
}

/** A resend of a message already answered: an update accepted and answered at once (5 events). */
async function answeredResend(client: Client, workflowId: string, messageId: string): Promise<void> {
  await client.workflow
    .getHandle(workflowId)
    .executeUpdate('sendMessage', { args: [{ text: 'again', id: messageId }] });
}

/**
 * Step an idle conversation's history forward until the next workflow task of a rejected update
 * (two events: scheduled, started) would be the first to reach `threshold`, while every task
 * recorded so far started below it. Returns the history length reached.
 */
export async function approachSuggestion(
  client: Client,
  workflowId: string,
  answeredMessageId: string,
  threshold = SUGGEST_CAN_AT,
): Promise<number> {
  let length = await historyLength(client, workflowId);
  // Window: the last recorded task started below the threshold (length - 1 < threshold), a rejected
  // update's task would start at or past it (length + 2 >= threshold).
  const inWindow = (n: number) => n + 2 >= threshold && n - 1 < threshold;
  for (let steps = 0; !inWindow(length); steps++) {
    if (length - 1 >= threshold || steps > 40)
      throw new Error(`history at ${length} events: past the window below ${threshold}`);
    // A signal moves 4 events, a resend 5: one resend first when signals alone would step over it.
    if ((threshold - 2 - length) % 4 === 1) await answeredResend(client, workflowId, answeredMessageId);
    else await ignoredSignal(client, workflowId);
    const before = length;
    length = await eventually(async () => {
      const n = await historyLength(client, workflowId);
      return n > before ? n : undefined;
    });
  }
  return length;
}
