/**
 * The approval policy beyond asking (docs/human-control.md): who may answer a request, and when a
 * run of denials ends the turn. The worker's configuration sets it; it lives in the workflow's
 * state, where no workflow input, signal or tool call of the conversation can change it. Pure.
 */

export interface ApprovalPolicy {
  /** Denied or unanswered approvals in a row that end the turn; 0: never. */
  maxDenialsInARow: number;
  /** The identity whose message asked may not answer the request. */
  separateApprover: boolean;
}

/** Off by default: a person reviewing a batch of commands one by one may deny many on purpose. */
/**
 * Three denials (or silences) in a row end the turn: a person who said no three times wants the
 * model to stop and ask, not to try a fourth variant; one or two leave room for a better command.
 */
export const DEFAULT_APPROVAL_POLICY: ApprovalPolicy = { maxDenialsInARow: 3, separateApprover: false };

/**
 * Why `approver` may not answer a request `requester`'s message caused; undefined when they may.
 * With `separateApprover`, an answer that names nobody is refused too: the rule cannot be checked
 * against an unnamed approver (fails closed). A request whose requester is unknown may be answered
 * by anyone named.
 */
export function approverRefusal(
  policy: ApprovalPolicy | undefined,
  requester: string | undefined,
  approver: string | undefined,
): string | undefined {
  if (!policy?.separateApprover) return undefined;
  if (!approver) return 'this conversation needs an approver who names themselves (--as, or the client identity)';
  if (requester !== undefined && requester === approver)
    return `${approver} asked for this command and cannot approve it: another person must (approvals.separateApprover)`;
  return undefined;
}

/** The denials in a row after one more answer: a denial or silence adds one, an approval starts again. */
export function denialsAfter(previous: number, decision: string): number {
  return decision === 'deny' || decision === 'timeout' ? previous + 1 : 0;
}

export function breakerTripped(policy: ApprovalPolicy | undefined, denialsInARow: number): boolean {
  const max = (policy ?? DEFAULT_APPROVAL_POLICY).maxDenialsInARow;
  return max > 0 && denialsInARow >= max;
}

/** The closing note of a turn the breaker ended (the transcript's last assistant message). */
export function breakerNote(denials: number): string {
  return `I stopped here: ${denials} commands in a row were denied or not approved, so this turn ends rather than trying more. Tell me how you would like to proceed.`;
}

/** A command of the same reply after the breaker tripped: not asked, not run. */
export function afterBreakerResult(command: string): string {
  return `NOT RUN: the turn is ending after repeated denials, so this command was not asked for or run: ${command}`;
}
