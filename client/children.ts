/**
 * A conversation's child agents (docs/delegation.md), from Temporal alone: the child workflows whose
 * parent is the conversation's workflow (every run of it), plus the ones its state names as running
 * (the list is eventually consistent, the state is not). A running child reports its progress from
 * its own `state` query; a finished one from its result. Stopping or steering one child is the
 * ordinary `stop` or `steer` signal of that child's conversation, sent only once it is known to be a
 * running child of this one: its parent then reads the partial report (common/delegation.ts).
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { sessionIdFromWorkflowId, workflowIdFor } from '../common/constants.js';
import type { ConversationStateView, PendingApproval, TurnResult } from '../common/contract.js';
import type { Conversation, HeraldClient } from './client.js';

/** The most children listed (the newest are dropped beyond it). */
export const MAX_CHILDREN_LISTED = 100;

export type ChildAgentStatus = 'running' | 'completed' | 'stopped' | 'failed';

export interface ChildAgent {
  session_id: string;
  workflow_id: string;
  /** The goal it was given (its workflow's summary). */
  task: string;
  status: ChildAgentStatus;
  /** While it runs: what it does now (`thinking`, `running_tools`, `awaiting_approval`, …). */
  activity: string | null;
  /** Model calls so far: while it runs, its iterations; once ended, the calls its task took. */
  model_calls: number;
  tokens: number;
  started_at: string | null;
  ended_at: string | null;
  /** How it ended (its turn's exit reason), once it has. */
  exit_reason: string | null;
  /** Dangerous commands it waits on a person for (`delegation.askPerson`), answered from the parent. */
  pending_approvals: PendingApproval[];
}

const TASK_PREFIX = 'delegated: ';
const DESCRIBE_AT_ONCE = 8;

/** The child agents of `parent`, oldest first. */
export async function listChildren(herald: HeraldClient, parent: Conversation): Promise<ChildAgent[]> {
  const ids = new Set<string>();
  const state = await parent.state().catch(() => undefined);
  for (const s of [...(state?.child_sessions ?? []), ...(state?.background_sessions ?? [])]) ids.add(workflowIdFor(s));
  // Workflow ids hold only [A-Za-z0-9._:-] (the session id pattern), so the quoted id cannot break out.
  const query = `ParentWorkflowId = '${parent.workflowId}'`;
  for await (const w of herald.temporal.workflow.list({ query })) {
    if (ids.size >= MAX_CHILDREN_LISTED) break;
    ids.add(w.workflowId);
  }
  const all = [...ids];
  const out: ChildAgent[] = [];
  for (let i = 0; i < all.length; i += DESCRIBE_AT_ONCE) {
    const found = await Promise.all(all.slice(i, i + DESCRIBE_AT_ONCE).map((id) => describeChild(herald, id)));
    for (const c of found) if (c) out.push(c);
  }
  return out.sort((a, b) => (a.started_at ?? '').localeCompare(b.started_at ?? ''));
}

async function describeChild(herald: HeraldClient, workflowId: string): Promise<ChildAgent | undefined> {
  const handle = herald.temporal.workflow.getHandle(workflowId);
  let d: WorkflowExecutionDescription;
  try {
    d = await handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
  const summary = (await d.staticSummary().catch(() => undefined)) ?? '';
  const base = {
    session_id: sessionIdFromWorkflowId(workflowId),
    workflow_id: workflowId,
    task: summary.startsWith(TASK_PREFIX) ? summary.slice(TASK_PREFIX.length) : summary,
    started_at: d.startTime.toISOString(),
    ended_at: d.closeTime?.toISOString() ?? null,
  };
  const running = d.status.name === 'RUNNING' || d.status.name === 'CONTINUED_AS_NEW';
  if (running) {
    const s = await herald
      .conversation(base.session_id)
      .state()
      .catch(() => undefined as ConversationStateView | undefined);
    return {
      ...base,
      status: 'running',
      activity: s?.status ?? null,
      model_calls: s?.iteration ?? 0,
      tokens: s?.usage.total_tokens ?? 0,
      exit_reason: null,
      pending_approvals: s?.pending_approvals ?? [],
    };
  }
  const result =
    d.status.name === 'COMPLETED'
      ? await (handle.result() as Promise<TurnResult | null>).catch(() => undefined)
      : undefined;
  return {
    ...base,
    status: endedStatus(d.status.name, result),
    activity: null,
    model_calls: result?.api_calls ?? 0,
    tokens: result?.usage.session.total_tokens ?? 0,
    exit_reason: result?.turn_exit_reason ?? (result === null ? 'stopped_before_start' : d.status.name.toLowerCase()),
    pending_approvals: [],
  };
}

/** A finished child's status: its turn's result says how it ended; a child that never ran its task was stopped. */
function endedStatus(workflowStatus: string, result: TurnResult | null | undefined): ChildAgentStatus {
  if (workflowStatus !== 'COMPLETED' || result === undefined) return 'failed';
  if (result === null || result.interrupted) return 'stopped';
  return result.completed ? 'completed' : 'failed';
}

/**
 * The running child of `parent` that `ref` names: its session id, its workflow id, or the part of
 * its id after the parent's (`d1-2-0`). Throws, saying why, when there is none.
 */
export async function runningChild(herald: HeraldClient, parent: Conversation, ref: string): Promise<Conversation> {
  const sessionId = sessionIdFromWorkflowId(ref);
  const candidates = sessionId.includes('.')
    ? [sessionId, `${parent.sessionId}.${sessionId}`]
    : [`${parent.sessionId}.${sessionId}`];
  for (const id of candidates) {
    const child = herald.conversation(id);
    const d = await child.handle.describe().catch((err: unknown) => {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    });
    if (!d) continue;
    if (d.parentExecution?.workflowId !== parent.workflowId)
      throw new Error(`${id} is not a child agent of ${parent.sessionId}`);
    if (d.status.name !== 'RUNNING')
      throw new Error(`child agent ${id} has already ended (${d.status.name.toLowerCase()})`);
    return child;
  }
  throw new Error(`${parent.sessionId} has no child agent ${ref} (\`herald children ${parent.sessionId}\` lists them)`);
}

/** The reason a child's stop carries: it is stopped by a person, and its partial result goes to its parent. */
export const STOP_CHILD_REASON = 'stopped by a person; its partial result goes to the delegating agent';
