/**
 * A child agent's approval requests, shown and answered at its parent (docs/delegation.md,
 * `delegation.askPerson`). The child signals its parent when a dangerous command starts to wait
 * for a person (`childApproval`, op `open`) and again when the wait ends (op `clear`); the parent
 * lists the open ones in its `state` query (`child_approvals`) and its Web UI details, publishes
 * the request into its own event stream (so `herald chat` on the parent prompts for it), and
 * forwards an `approve` for one of them to the child as the child's own `approve` signal.
 *
 * The list lives only in the run: children run inside a turn or in the background, and a run
 * with background children does not continue as new (Run.canDue), so no request outlives it.
 * Signals cannot be refused: what is malformed, or over the list's bound, is logged and ignored.
 */
import { ApplicationFailure, getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import { z } from 'zod';
import { boundedString } from '../common/bounded-string.js';
import { workflowIdFor } from '../common/constants.js';
import type { ApproveInput, PendingApproval } from '../common/contract.js';
import { approverRefusal } from '../common/approval-policy.js';
import { storeStep } from './activities.js';
import { approveSignal, childApprovalSignal } from './definitions.js';
import type { Run } from './run.js';
import type { ApprovalRequest, ConversationState } from './state.js';
import { pendingApprovalView } from './state.js';
import type { ApprovalAsked } from './state.js';

/** The most child requests a parent keeps (entries of children no longer running go first). */
export const MAX_CHILD_APPROVALS = 16;
/** The command as the parent keeps it (the event it publishes reads the whole one from the store). */
export const MAX_CHILD_COMMAND_CHARS = 2_000;
const MAX_TEXT_CHARS = 500;
const MAX_RULES = 20;

const childApprovalSchema = z.discriminatedUnion('op', [
  z
    .object({
      op: z.literal('open'),
      childSessionId: boundedString(128).min(1),
      requestId: boundedString(300).min(1),
      tool: boundedString(100),
      command: boundedString(MAX_CHILD_COMMAND_CHARS),
      reason: boundedString(MAX_TEXT_CHARS),
      rules: z.array(boundedString(200)).max(MAX_RULES),
      requestedAt: z.number(),
      timeoutSeconds: z.number().positive(),
    })
    .strict(),
  z
    .object({ op: z.literal('clear'), childSessionId: boundedString(128).min(1), requestId: boundedString(300).min(1) })
    .strict(),
]);

export interface ChildApproval extends ApprovalAsked {
  child: string;
  /** Who sent the parent's message whose turn delegated the task (approvals.separateApprover). */
  requester?: string;
  /** An answer was forwarded: a second one is refused here (the child would ignore it). */
  forwarded?: boolean;
}

// ── the child's side ─────────────────────────────────────────────────────────

/** The parent's workflow, when this conversation is a child agent that asks a person. */
function parentWorkflowId(s: ConversationState): string | undefined {
  if (!s.subagent?.askPerson) return undefined;
  return workflowInfo().parent?.workflowId;
}

/** Tell the parent a request waits (or no longer does). A parent already gone is no error: nobody can answer there. */
export async function tellParent(s: ConversationState, req: ApprovalRequest, op: 'open' | 'clear'): Promise<void> {
  const parent = parentWorkflowId(s);
  if (!parent) return;
  const payload =
    op === 'open'
      ? {
          op,
          childSessionId: s.sessionId,
          requestId: req.requestId,
          tool: req.tool.slice(0, 100),
          command: req.command.slice(0, MAX_CHILD_COMMAND_CHARS),
          reason: req.reason.slice(0, MAX_TEXT_CHARS),
          rules: req.rules.slice(0, MAX_RULES).map((r) => r.slice(0, 200)),
          requestedAt: req.requestedAt,
          timeoutSeconds: req.timeoutSeconds,
        }
      : { op, childSessionId: s.sessionId, requestId: req.requestId };
  await getExternalWorkflowHandle(parent)
    .signal(childApprovalSignal, payload)
    .catch(() => {
      // The parent has ended: its list is gone with it.
    });
}

// ── the parent's side ────────────────────────────────────────────────────────

/** The child agents running now: the running turn's and the background ones. */
function liveChildren(run: Run): Set<string> {
  return new Set([...(run.current?.children ?? []), ...run.backgroundSessions()]);
}

/** The requests of children still running, not yet answered from here. */
export function openChildApprovals(run: Run): ChildApproval[] {
  const live = liveChildren(run);
  return run.childApprovals.filter((a) => live.has(a.child) && !a.forwarded);
}

/** The state query's view of them. */
export function childApprovalsView(run: Run): Array<PendingApproval & { child: string }> {
  return openChildApprovals(run).map((a) => ({ ...pendingApprovalView(a), child: a.child }));
}

export function findChildApproval(run: Run, requestId: string): ChildApproval | undefined {
  return openChildApprovals(run).find((a) => a.requestId === requestId);
}

/** Whose message delegated the child's task: the running turn's sender, or the background batch's. */
function requesterOf(run: Run, child: string): string | undefined {
  if (run.current?.children.includes(child)) return run.current.requestedBy;
  return run.background.find((b) => b.children.some((c) => c.sessionId === child))?.requestedBy;
}

/** The turn the child's request belongs to in the parent's event stream. */
function turnIdOf(run: Run, child: string): string {
  if (run.current?.children.includes(child)) return run.current.turnId;
  return (
    run.background.find((b) => b.children.some((c) => c.sessionId === child))?.turnId ??
    `${run.state.conversationId}:${run.state.turn}`
  );
}

/** Why this approver may not answer the child's request here (undefined: they may). */
export function childApproverRefusal(run: Run, a: ChildApproval, by: string | undefined): string | undefined {
  return approverRefusal(run.state.approvalPolicy, a.requester, by);
}

/** Send the answer to the child, as its own `approve` signal with the same fields. */
export async function forwardApproval(a: ChildApproval, input: ApproveInput): Promise<void> {
  a.forwarded = true;
  try {
    await getExternalWorkflowHandle(workflowIdFor(a.child)).signal(approveSignal, input);
  } catch (err) {
    a.forwarded = false;
    throw ApplicationFailure.nonRetryable(
      `the answer could not reach child agent ${a.child}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** The `childApproval` signal. */
export function registerChildApprovals(run: Run): void {
  setHandler(childApprovalSignal, async (payload: unknown) => {
    const parsed = childApprovalSchema.safeParse(payload);
    if (!parsed.success) return run.noteIgnored('childApproval signal', 'malformed');
    const m = parsed.data;
    const list = run.childApprovals;
    if (m.op === 'clear') {
      run.childApprovals = list.filter((a) => !(a.requestId === m.requestId && a.child === m.childSessionId));
      run.refreshDetails();
      return;
    }
    if (list.some((a) => a.requestId === m.requestId)) return;
    // A signal can come before the delegation lists its children: it is kept, and shown once it does.
    const live = liveChildren(run);
    if (list.length >= MAX_CHILD_APPROVALS) run.childApprovals = list.filter((a) => live.has(a.child));
    if (run.childApprovals.length >= MAX_CHILD_APPROVALS)
      return run.noteIgnored('childApproval signal', `${MAX_CHILD_APPROVALS} child requests are already waiting`);
    const requester = requesterOf(run, m.childSessionId);
    const { op: _op, childSessionId, ...rest } = m;
    const entry: ChildApproval = { child: childSessionId, ...rest, ...(requester ? { requester } : {}) };
    run.childApprovals.push(entry);
    run.refreshDetails();
    // The prompt in the parent's own event stream, with the whole command as the child stored it.
    await storeStep('publishChildApproval', {
      conversationId: run.state.conversationId,
      turnId: turnIdOf(run, childSessionId),
      childSessionId,
      requestId: m.requestId,
      command: m.command,
      tool: m.tool,
      reason: m.reason,
      rules: m.rules,
      timeoutSeconds: m.timeoutSeconds,
    }).catch(() => {
      // Events are best effort: the state query and the details list the request all the same.
    });
  });
}
