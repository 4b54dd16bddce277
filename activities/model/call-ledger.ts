/**
 * A model call's place in the usage ledger (store/ledger.ts): its row, keyed by the
 * activity attempt that makes the request, and the turn's totals a failure carries to the workflow.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Info as ActivityInfo } from '@temporalio/activity';
import type { CallModelArgs } from '../../common/activity-types.js';
import type { TurnAttempts } from '../../common/attempts.js';
import { SPEND_LIMIT_REACHED, capReached } from '../../common/attempts.js';
import { usageOf } from '../../common/attempts.js';
import type { priceUsage } from '../../shared/pricing.js';
import type { ActivityDeps } from '../deps.js';
import type { ProviderRef } from '../../common/providers.js';
import type { LedgerOutcome } from '../../store/ledger.js';
import { activityAttempts, attemptKey, startModelCall, turnAttempts } from '../../store/ledger.js';
import { storageFailure } from './storage-failure.js';
import type { ModelRequest } from '../../model-adapters/types.js';

/** A failure's (or cancellation's) detail carrying the turn's ledger totals; the workflow reads it in workflows/errors.ts. */
export function attemptsDetail(turn: TurnAttempts): { turnAttempts: TurnAttempts } {
  return { turnAttempts: turn };
}

/** `failure` with the turn's totals appended to its details (the first detail stays the provider's). */
export function withAttempts(failure: ApplicationFailure, turn: TurnAttempts | undefined): ApplicationFailure {
  if (!turn) return failure;
  return new ApplicationFailure(
    failure.message,
    failure.type,
    failure.nonRetryable,
    [...(failure.details ?? []), attemptsDetail(turn)],
    failure.cause,
    failure.nextRetryDelay,
    failure.category,
  );
}

/** (Always set for an activity a workflow scheduled; a test's bare activity falls back to its turn.) */
export function runIdOf(a: CallModelArgs, info: Pick<ActivityInfo, 'workflowExecution'>): string {
  return info.workflowExecution?.runId ?? `turn-${a.turnId}`;
}

/**
 * A retry whose call's earlier attempts already spent what was left of a session cap is not made:
 * it fails for good, with the turn's totals, and the workflow ends the turn at the cap
 * (workflows/model-slot.ts). Without the ledger (the database down) the retry goes ahead.
 */
export async function refuseOverSpend(
  db: ActivityDeps['db'],
  a: CallModelArgs,
  info: Pick<ActivityInfo, 'activityId' | 'workflowExecution'>,
): Promise<void> {
  const spent = await activityAttempts(db, a.conversationId, a.turnId, runIdOf(a, info), info.activityId).catch(
    () => undefined,
  );
  const cap = spent && a.spendLimit ? capReached(spent.usage, a.spendLimit) : undefined;
  if (!cap) return;
  const turn = await turnAttempts(db, a.conversationId, a.turnId).catch(() => undefined);
  throw withAttempts(
    ApplicationFailure.create({
      type: SPEND_LIMIT_REACHED,
      message: `the session ${cap} cap is reached: the earlier attempts of this model call spent what was left, so it is not retried`,
      nonRetryable: true,
    }),
    turn,
  );
}

/** The ledger row of this HTTP attempt, keyed by the activity attempt that made it (store/ledger.ts). */
export function ledgerEntry(
  a: CallModelArgs,
  info: Pick<ActivityInfo, 'activityId' | 'attempt' | 'workflowExecution'>,
  outcome: LedgerOutcome,
  usage: ReturnType<typeof priceUsage>,
  durationMs: number,
  model: string,
) {
  const runId = runIdOf(a, info);
  return {
    callKey: attemptKey(runId, info.activityId, info.attempt),
    sessionId: a.sessionId,
    conversationId: a.conversationId,
    turnId: a.turnId,
    seq: a.seq,
    step: a.iteration,
    attempt: info.attempt,
    workflowRunId: runId,
    activityId: info.activityId,
    provider: a.provider.provider,
    model,
    apiMode: a.provider.apiMode,
    outcome,
    usage,
    durationMs,
  };
}

/**
 * The attempt on the ledger before its request is sent (outcome `started`, with the request's size),
 * so a request whose worker dies under it is still counted. Without the ledger no request is sent:
 * the attempt fails as a storage failure and is retried like any other.
 */
export async function ledgerBeforeSend(
  db: ActivityDeps['db'],
  a: CallModelArgs,
  info: Pick<ActivityInfo, 'activityId' | 'attempt' | 'workflowExecution'>,
  ref: ProviderRef,
  request: ModelRequest,
): Promise<void> {
  const nothing = usageOf({
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0,
  });
  const row = { ...ledgerEntry(a, info, 'started', nothing, 0, ref.model), requestBytes: requestBytes(request) };
  try {
    await startModelCall(db, row);
  } catch (err) {
    throw storageFailure(err, 'putting the model call on the usage ledger');
  }
}

/** The request's size as JSON bytes: what is known of a request whose attempt died. */
export function requestBytes(request: ModelRequest): number {
  return Buffer.byteLength(JSON.stringify(request));
}
