/**
 * Every model-call attempt of a turn counts (common/attempts.ts): `api_calls`, the turn's
 * usage, the session totals and so the session caps. The activities the turn already calls report
 * the turn's ledger totals — a model call's result, its failure's or cancellation's details, and
 * `finishTurn` for attempts no earlier report carried — and the workflow adds what is new.
 *
 * A result without totals (a ledger write that failed) counts its call alone.
 */
import type { SpendLimit, TurnAttempts } from '../common/attempts.js';
import { addAttempts, asTurnAttempts, attemptsBeyond, noAttempts, withLateAttempts } from '../common/attempts.js';
import type { AuxiliaryReport, CallModelResult, FinishTurnResult } from '../common/activity-types.js';
import type { TurnResult } from '../common/contract.js';
import { addUsage, roundCost } from '../common/messages.js';
import { TurnEnd, reportedAttempts } from './errors.js';
import type { ConversationState } from './state.js';
import type { TurnProgress } from './turn-progress.js';

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
  const reported = asTurnAttempts(r.turnAttempts);
  if (reported) return countReport(s, p, counted, reported);
  // This call alone. Its row is in the ledger (a later report holds it: counted as seen there),
  // unless its write failed (no report ever will).
  const one = { attempts: 1, usage: r.usage };
  if (!r.unledgered) p.ledger = addAttempts(counted, one);
  add(s, p, one);
}

/** A model call that failed or was cancelled, with the totals its failure carried (if any). */
export function countFailedCall(s: ConversationState, p: TurnProgress, err: unknown): void {
  const reported = asTurnAttempts(reportedAttempts(err));
  if (reported) countReport(s, p, p.ledger, reported);
}

/** `finishTurn`'s argument: what the turn counted, for the ledger to add what it holds beyond. */
export function countedForFinish(p: TurnProgress): { counted: TurnAttempts } {
  return { counted: p.ledger };
}

/** `finishTurn` found attempts no report carried: the result it stored, and the totals, get them too. */
export function countLate(
  s: ConversationState,
  p: TurnProgress,
  result: TurnResult,
  closed: FinishTurnResult | undefined | void,
): TurnResult {
  const late = closed ? asTurnAttempts(closed.lateAttempts) : undefined;
  if (!late) return result;
  p.ledger = addAttempts(p.ledger, late);
  add(s, p, late);
  return withLateAttempts(result, late);
}

/**
 * The auxiliary model's requests (compression summaries, `smart` approval assessments) count too:
 * their usage joins the turn's and the session's (not `api_calls`, which counts the agent loop's
 * requests, as Hermes' does), and none is made past a session cap (checked where such an activity
 * is about to be scheduled).
 */

/** The report an auxiliary activity's failure or cancellation carried in its details, if any. */
export function reportedAuxiliary(err: unknown): AuxiliaryReport | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++, e = e.cause) {
    const details = (e as { details?: unknown }).details;
    if (!Array.isArray(details)) continue;
    for (const d of details) if (typeof d === 'object' && d !== null && 'auxAttempts' in d) return d as AuxiliaryReport;
  }
  return undefined;
}

/**
 * An auxiliary activity's report. During a turn (`p`) its requests' rows carry the turn's id, so the
 * turn's ledger totals hold them: counted like a model call's report, cumulatively, so that the next
 * model call's report or `finishTurn`'s never counts them again. Between turns (`/compress`, under an
 * id of its own) the activity's own totals are added to the session's.
 */
export function countAuxiliary(s: ConversationState, p: TurnProgress | undefined, report: unknown): void {
  if (typeof report !== 'object' || report === null) return;
  const r = report as AuxiliaryReport;
  if (p) {
    const reported = asTurnAttempts(r.turnAttempts);
    if (!reported) return; // finishTurn finds them in the ledger
    countReport(s, p, p.ledger, reported);
    return;
  }
  const own = asTurnAttempts(r.auxAttempts);
  const more = own && attemptsBeyond(noAttempts(), own);
  if (!more) return;
  s.sessionApiCalls += more.attempts;
  s.sessionUsage = addUsage(s.sessionUsage, more.usage);
}

/** The session cap the totals reached, as a sentence; undefined while under both. */
export function sessionCapReached(s: ConversationState): string | undefined {
  const { maxCostUsd, maxTokens } = s.budget;
  if (maxCostUsd !== undefined && s.sessionUsage.cost_usd >= maxCostUsd)
    return `the session cost cap is reached: $${s.sessionUsage.cost_usd.toFixed(4)} of $${maxCostUsd}`;
  if (maxTokens !== undefined && s.sessionUsage.total_tokens >= maxTokens)
    return `the session token cap is reached: ${s.sessionUsage.total_tokens} of ${maxTokens} tokens`;
  return undefined;
}

/** Before a model call (docs/providers.md): a session cap reached ends the turn. */
export function checkSessionBudget(s: ConversationState): void {
  const reached = sessionCapReached(s);
  if (reached) throw new TurnEnd('session_budget_exceeded', reached);
}

/** What is left of the session caps, for a call's own retries to stop at (common/attempts.ts). */
export function spendLimitOf(s: ConversationState): { spendLimit?: SpendLimit } {
  const { maxCostUsd, maxTokens } = s.budget;
  if (maxCostUsd === undefined && maxTokens === undefined) return {};
  return {
    spendLimit: {
      ...(maxCostUsd !== undefined ? { costUsd: roundCost(maxCostUsd - s.sessionUsage.cost_usd) } : {}),
      ...(maxTokens !== undefined ? { tokens: maxTokens - s.sessionUsage.total_tokens } : {}),
    },
  };
}
