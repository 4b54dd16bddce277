/**
 * Every model-call attempt of a turn counts (issue 14, common/attempts.ts): `api_calls`, the turn's
 * usage, the session totals and so the session caps. The activities the turn already calls report
 * the turn's ledger totals — a model call's result, its failure's or cancellation's details, and
 * `finishTurn` for attempts no earlier report carried — and the workflow adds what is new.
 *
 * Behind `patched('every-attempt-counted')`, read once per turn before its first model call: turns
 * recorded before it count successful calls only, as they did (a caught-up count would change when
 * the session caps stop a turn). A result without totals (an older worker's, or a ledger write that
 * failed) counts its call alone, as before.
 */
import { patched } from '@temporalio/workflow';
import type { TurnAttempts } from '../common/attempts.js';
import { addAttempts, asTurnAttempts, attemptsBeyond, noAttempts, withLateAttempts } from '../common/attempts.js';
import type { CallModelResult, FinishTurnResult } from '../common/activity-types.js';
import type { TurnResult } from '../common/contract.js';
import { addUsage } from '../common/messages.js';
import { reportedAttempts } from './errors.js';
import type { ConversationState } from './state.js';
import type { TurnProgress } from './turn-progress.js';

export const PATCH_EVERY_ATTEMPT = 'every-attempt-counted';

/** Decide (once per turn) whether the turn counts every attempt. */
export function countEveryAttempt(p: TurnProgress): void {
  p.ledger ??= patched(PATCH_EVERY_ATTEMPT) ? noAttempts() : null;
}

function add(s: ConversationState, p: TurnProgress, more: TurnAttempts): void {
  p.apiCalls += more.attempts;
  p.usage = addUsage(p.usage, more.usage);
  s.sessionApiCalls += more.attempts;
  s.sessionUsage = addUsage(s.sessionUsage, more.usage);
}

/** A report of the turn's ledger totals: what it holds beyond what was counted is added. */
function countReport(s: ConversationState, p: TurnProgress, counted: TurnAttempts, reported: TurnAttempts): void {
  const more = attemptsBeyond(counted, reported);
  if (!more) return;
  p.ledger = addAttempts(counted, more);
  add(s, p, more);
}

/** A model call that succeeded. */
export function countCall(s: ConversationState, p: TurnProgress, r: CallModelResult): void {
  const counted = p.ledger;
  const reported = counted ? asTurnAttempts(r.turnAttempts) : undefined;
  if (counted && reported) return countReport(s, p, counted, reported);
  // This call alone. Its row is in the ledger (a later report holds it: counted as seen there),
  // unless its write failed (no report ever will).
  const one = { attempts: 1, usage: r.usage };
  if (counted && !r.unledgered) p.ledger = addAttempts(counted, one);
  add(s, p, one);
}

/** A model call that failed or was cancelled, with the totals its failure carried (if any). */
export function countFailedCall(s: ConversationState, p: TurnProgress, err: unknown): void {
  const counted = p.ledger;
  const reported = counted ? asTurnAttempts(reportedAttempts(err)) : undefined;
  if (counted && reported) countReport(s, p, counted, reported);
}

/** `finishTurn`'s argument: what the turn counted, for the ledger to add what it holds beyond. */
export function countedForFinish(p: TurnProgress): { counted?: TurnAttempts } {
  return p.ledger ? { counted: p.ledger } : {};
}

/** `finishTurn` found attempts no report carried: the result it stored, and the totals, get them too. */
export function countLate(
  s: ConversationState,
  p: TurnProgress,
  result: TurnResult,
  closed: FinishTurnResult | undefined | void,
): TurnResult {
  const late = p.ledger && closed ? asTurnAttempts(closed.lateAttempts) : undefined;
  if (!p.ledger || !late) return result;
  p.ledger = addAttempts(p.ledger, late);
  add(s, p, late);
  return withLateAttempts(result, late);
}
