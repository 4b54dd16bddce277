/**
 * A conversation's status for `herald sessions`, from its workflow: while it runs, the
 * `HeraldStatus` search attribute the workflow keeps (idle, running, awaiting approval, … — shown
 * as it is, so new values need no change here); once closed, how it closed.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import { SEARCH_ATTRIBUTES } from '../common/constants.js';
import type { HeraldClient } from './client.js';

const STATUS_KEY = defineSearchAttributeKey(SEARCH_ATTRIBUTES.status, 'KEYWORD');

const CLOSED: Record<string, string> = {
  COMPLETED: 'ended',
  FAILED: 'failed',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CANCELLED: 'cancelled',
};

/** The status a description shows: the workflow's own word while it runs, else how it closed. */
export function statusOf(d: Pick<WorkflowExecutionDescription, 'status' | 'typedSearchAttributes'>): string {
  const name = d.status.name;
  if (name === 'RUNNING' || name === 'CONTINUED_AS_NEW') return d.typedSearchAttributes.get(STATUS_KEY) ?? 'running';
  return CLOSED[name] ?? name.toLowerCase();
}

/** Statuses by workflow id, a few describes at a time; a workflow Temporal no longer has is `gone`. */
export async function workflowStatuses(
  client: HeraldClient,
  workflowIds: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const ids = [...new Set(workflowIds)];
  for (let i = 0; i < ids.length; i += 8) {
    await Promise.all(
      ids.slice(i, i + 8).map(async (id) => {
        try {
          out.set(id, statusOf(await client.temporal.workflow.getHandle(id).describe()));
        } catch (err) {
          out.set(id, err instanceof WorkflowNotFoundError ? 'gone' : 'unknown');
        }
      }),
    );
  }
  return out;
}
