/**
 * The agent waits for its human (docs/human-control.md): dangerous commands need an approval, and the
 * `clarify` tool asks a question. Waits are durable timers in the turn's scope, so `/stop`
 * cancels them and a worker restart does not lose them. Silence is a denial.
 */
import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { AssessCommandResult } from '../common/activity-types.js';
import type { CallOfKind, CommandCheck, ToolCallRef } from '../common/tool-batch.js';
import { timerLabel } from './labels.js';
import { afterBreakerResult, breakerTripped, denialsAfter } from '../common/approval-policy.js';
import { assessment, storeStep } from './activities.js';
import { tellParent } from './child-approvals.js';
import { countAuxiliary, reportedAuxiliary, sessionCapReached, spendLimitOf } from './attempts.js';
import type { ApprovalRequest, ClarifyRequest, ConversationState } from './state.js';
import type { TurnProgress } from './turn-progress.js';

export type Gate = { run: true } | { run: false; result: string };

function approveForSession(s: ConversationState, check: CommandCheck, scope: 'command' | 'rule'): void {
  if (scope === 'command' && check.commandKey) {
    const keys = s.sessionApprovedCommands;
    if (!keys.includes(check.commandKey)) keys.push(check.commandKey);
    if (keys.length > 500) keys.splice(0, keys.length - 500);
    return;
  }
  s.sessionApprovedRules.push(...check.rules.filter((r) => !s.sessionApprovedRules.includes(r)));
}

const DO_NOT_RETRY =
  'Do not retry it, rephrase it, or work around it with another command; continue without it, or ask the user what to do.';

/**
 * A denied command's tool result. With the person's reason, the model is told to follow it (the
 * reason often says what to do instead); without one, to go on without the command.
 */
export function deniedResult(command: string, reason: string | undefined): string {
  if (!reason) return `The user denied running this command: ${command}. ${DO_NOT_RETRY}`;
  return `The user denied running this command: ${command}. The user's reason: ${reason}\nDo not run this command again; take the user's reason into account and continue, or ask the user what to do.`;
}

export function hardlineResult(description: string): string {
  return `BLOCKED: this command is never allowed (${description}). ${DO_NOT_RETRY}`;
}

/** Decide whether a checked command may run, asking the user when the mode says so. */
export async function gateCommand(
  s: ConversationState,
  p: TurnProgress,
  call: ToolCallRef,
  /** What the command check found (absent: nothing to ask). */
  check: CommandCheck | undefined,
  onWait: () => void,
  /** Where the call's arguments are stored, so the request can carry the whole command. */
  assistantSeq?: number,
): Promise<Gate> {
  if (!check) return { run: true };
  const settled = settledWithoutAsking(s, p, check);
  if (settled) return settled;
  if (s.approvalMode === 'smart' && (await assessorApproves(s, p, check, assistantSeq))) {
    approveForSession(s, check, 'command');
    return { run: true };
  }
  return childWithoutPerson(s, check) ?? (await askPerson(s, p, call, check, onWait, assistantSeq));
}

/** What the check, the mode and this session's earlier approvals settle without asking anyone. */
function settledWithoutAsking(s: ConversationState, p: TurnProgress, check: CommandCheck): Gate | undefined {
  if (check.level === 'allowed') return { run: true };
  if (check.level === 'hardline') return { run: false, result: hardlineResult(check.description) };
  if (s.approvalMode === 'off') return { run: true };
  // The breaker tripped earlier in this reply: nothing more is asked for in this turn.
  if (p.approvalHalt) return { run: false, result: afterBreakerResult(check.command) };
  // A workspace change a checkpoint can undo, with the sandbox keeping it there (docs/checkpoints.md).
  if (check.undoable && s.sandbox?.active) return { run: true };
  if (check.commandKey && s.sessionApprovedCommands.includes(check.commandKey)) return { run: true };
  if (check.rules.every((r) => s.sessionApprovedRules.includes(r))) return { run: true };
  return undefined;
}

/**
 * Smart mode: the assessor model approves, or hands the decision to the human (also when it cannot
 * answer: its failure is not the turn's). Its request is a model call: counted, and not made past a
 * session cap (workflows/attempts.ts).
 */
async function assessorApproves(
  s: ConversationState,
  p: TurnProgress,
  check: CommandCheck,
  assistantSeq: number | undefined,
): Promise<boolean> {
  if (sessionCapReached(s)) return false;
  const verdict = await assessment
    .assessCommand({
      auxiliary: s.auxiliary,
      command: check.command,
      description: check.description,
      conversationId: s.conversationId,
      sessionId: s.sessionId,
      turnId: p.turnId,
      ...(assistantSeq !== undefined ? { seq: assistantSeq } : {}),
      ...spendLimitOf(s),
    })
    .then((r: AssessCommandResult) => {
      countAuxiliary(s, p, r);
      return r.verdict;
    })
    .catch((err: unknown) => {
      countAuxiliary(s, p, reportedAuxiliary(err));
      if (isCancellation(err)) throw err;
      return 'escalate' as const;
    });
  return verdict === 'approve';
}

/**
 * A child agent has nobody to ask unless its parent's configuration lets it ask a person, who
 * answers from the parent (docs/delegation.md); else that configuration decides.
 */
function childWithoutPerson(s: ConversationState, check: CommandCheck): Gate | undefined {
  if (!s.subagent || (!s.subagent.autoApprove && s.subagent.askPerson)) return undefined;
  if (s.subagent.autoApprove) return { run: true };
  return {
    run: false,
    result: `DENIED: this command needs a person's approval (${check.description}), and a delegated agent cannot ask for one: ${check.command}. ${DO_NOT_RETRY} Say in your report that it needs approval.`,
  };
}

/** Ask a person and wait for the decision (silence is a denial); the request is closed whatever happens. */
async function askPerson(
  s: ConversationState,
  p: TurnProgress,
  call: ToolCallRef,
  check: CommandCheck,
  onWait: () => void,
  assistantSeq: number | undefined,
): Promise<Gate> {
  const requestId = `${p.turnId}:${call.id}`;
  const req: ApprovalRequest = {
    requestId,
    tool: call.name,
    command: check.command,
    reason: check.description,
    rules: check.rules,
    requestedAt: Date.now(),
    timeoutSeconds: s.approvalTimeoutSeconds,
    ...(p.requestedBy ? { requester: p.requestedBy } : {}),
  };
  s.pendingApprovals.push(req);
  const resolve = (decision: string, by: string) =>
    storeStep('resolveApproval', {
      conversationId: s.conversationId,
      turnId: p.turnId,
      requestId,
      decision,
      decidedBy: by,
      rules: check.rules,
      ...(req.approver ? { approver: req.approver } : {}),
      ...(req.via ? { via: req.via } : {}),
      ...(req.denyReason ? { denyReason: req.denyReason } : {}),
      ...(req.requester ? { requester: req.requester } : {}),
      scope: req.scope ?? 'command',
      ...(check.commandKey ? { commandKey: check.commandKey } : {}),
    });
  try {
    await storeStep('requestApproval', {
      conversationId: s.conversationId,
      sessionId: s.sessionId,
      turnId: p.turnId,
      requestId,
      toolCallId: call.id,
      tool: call.name,
      command: check.command,
      ...(assistantSeq !== undefined ? { assistantSeq } : {}),
      rules: check.rules,
      reason: check.description,
      timeoutSeconds: s.approvalTimeoutSeconds,
    });
    p.status = 'awaiting_approval';
    onWait();
    // A child agent's request is answered from its parent too (workflows/child-approvals.ts).
    await tellParent(s, req, 'open');
    const decided = await condition(() => req.decision !== undefined, s.approvalTimeoutSeconds * 1000, {
      summary: timerLabel(`approval wait: ${call.summary}`, s.approvalTimeoutSeconds * 1000),
    });
    p.status = 'running_tools';
    // Denials in a row (silence is one): enough of them end the turn after this batch.
    p.denialsInARow = denialsAfter(p.denialsInARow, decided ? req.decision! : 'timeout');
    if (breakerTripped(s.approvalPolicy, p.denialsInARow)) p.approvalHalt = true;
    if (!decided) {
      await resolve('timeout', 'timeout');
      return {
        run: false,
        result: `No approval came within ${s.approvalTimeoutSeconds} s, so the command was not run (silence is not consent): ${check.command}. ${DO_NOT_RETRY}`,
      };
    }
    await resolve(req.decision!, 'user');
    if (req.decision === 'deny') return { run: false, result: deniedResult(check.command, req.denyReason) };
    if (req.decision === 'session') approveForSession(s, check, req.scope ?? 'command');
    return { run: true };
  } catch (err) {
    if (isCancellation(err)) await CancellationScope.nonCancellable(() => resolve('cancelled', 'stop'));
    throw err;
  } finally {
    s.pendingApprovals = s.pendingApprovals.filter((r) => r.requestId !== requestId);
    await CancellationScope.nonCancellable(() => tellParent(s, req, 'clear'));
  }
}

/** Ask the user the model's question; the answer (or the silence) is the tool's result. */
export async function askClarify(
  s: ConversationState,
  p: TurnProgress,
  call: CallOfKind<'clarify'>,
  onWait: () => void,
): Promise<string> {
  const q = call.clarify;
  const req: ClarifyRequest = {
    requestId: `${p.turnId}:${call.id}`,
    question: q.question,
    choices: q.choices,
    askedAt: Date.now(),
    timeoutSeconds: s.clarifyTimeoutSeconds,
  };
  s.clarify = req;
  try {
    await storeStep('requestClarify', {
      conversationId: s.conversationId,
      turnId: p.turnId,
      requestId: req.requestId,
      question: q.question,
      choices: q.choices,
      timeoutSeconds: req.timeoutSeconds,
    });
    p.status = 'awaiting_clarify';
    onWait();
    const answered = await condition(() => req.answer !== undefined, req.timeoutSeconds * 1000, {
      summary: timerLabel(`answer wait: ${q.question}`, req.timeoutSeconds * 1000),
    });
    p.status = 'running_tools';
    return answered
      ? `The user answered: ${req.answer!}`
      : `[No answer from the user within ${req.timeoutSeconds} s. Continue with a reasonable assumption and say which one you made, or ask again in your final reply.]`;
  } finally {
    s.clarify = null;
  }
}
