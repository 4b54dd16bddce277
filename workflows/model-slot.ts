/**
 * One model call slot with failure recovery (docs/providers.md): the activity's retry policy retries the
 * same call; when it gives up, this decides (common/recovery.ts) whether to refresh or rotate a
 * credential, fall back to the next provider, compress, strip reasoning signatures, wait for the
 * database, or end the turn. Every path is bounded.
 */
import { isCancellation, sleep } from '@temporalio/workflow';
import type { CallModelResult } from '../common/activity-types.js';
import type { FailureReason } from '../common/error-reasons.js';
import { providerLabel } from '../common/providers.js';
import type { SlotState } from '../common/recovery.js';
import { CHAIN_RESTARTS_PER_SLOT, CHAIN_RESTART_PAUSE_MS, decideRecovery, isTransient } from '../common/recovery.js';
import { modelActivities, storeStep } from './activities.js';
import { checkSessionBudget, countCall, countFailedCall, spendLimitOf } from './attempts.js';
import { compressNow } from './context.js';
import { timerLabel } from './labels.js';
import {
  TurnEnd,
  failureKindOf,
  isSpendLimitReached,
  rootMessage,
  stalledSeconds,
  statedContextLimit,
} from './errors.js';
import type { ProviderError } from './provider-chain.js';
import {
  chainFailureMessage,
  noteProviderError,
  credentialIndexOf,
  fallbacksLeft,
  poolSizeOf,
  rememberContextLength,
  rotateCredential,
  startTurnOnPrimary,
  switchToFallback,
} from './provider-chain.js';
import type { ConversationState } from './state.js';
import type { TurnProgress } from './turn-progress.js';

/** How long the workflow waits for the database before a model call is retried, and how often. */
const STORAGE_WAIT = '15 seconds';
/**
 * How long a turn waits for the database, from the start of the first model call it failed
 * (docs/reliability.md): the call itself waits inside its attempts (activities/model/call-prepare.ts),
 * so the workflow looks again every couple of minutes, and the turn fails at the first look after this.
 */
export const STORAGE_OUTAGE_MS = 10 * 60_000;

type SlotCounters = Omit<SlotState, 'poolSize' | 'fallbacksLeft' | 'attempts'> & {
  chainRestarts: number;
  /** The ledger's attempt count when the last failure was attributed. */
  ledgerMark: number;
  /** HTTP attempts each provider of the chain made in this slot, by label, as the ledger counts them. */
  attemptsBy: Record<string, number>;
  /** Why each provider of the chain failed in this round, the primary first. */
  errors: ProviderError[];
};

export interface SlotOptions {
  steer?: string | undefined;
  note?: string | undefined;
  toolChoiceNone?: boolean;
  maxOutputTokens?: number | undefined;
}

export async function callModelSlot(
  s: ConversationState,
  p: TurnProgress,
  opts: SlotOptions,
): Promise<CallModelResult> {
  const slot: SlotCounters = {
    rotations: 0,
    refreshed: false,
    compressions: 0,
    strippedReasoning: false,
    chainRestarts: 0,
    errors: [],
    ledgerMark: 0,
    attemptsBy: {},
  };
  /** When the first call that met the database down was started (undefined: none has). */
  let storageSince: number | undefined;
  const steer = opts.steer;
  slot.ledgerMark = p.ledger.attempts;
  for (;;) {
    checkSessionBudget(s);
    const seq = s.nextSeq;
    const calledAt = Date.now();
    try {
      const r = await modelActivities(`model call ${p.iteration}: ${providerLabel(s.provider)}`).callModel({
        conversationId: s.conversationId,
        sessionId: s.sessionId,
        turnId: p.turnId,
        seq,
        iteration: p.iteration,
        maxIterations: s.maxIterations,
        provider: s.provider,
        tools: s.tools,
        credentialIndex: credentialIndexOf(s),
        fallbackAvailable: fallbacksLeft(s, p.chainPos) > 0,
        ...(slot.strippedReasoning ? { stripReasoning: true } : {}),
        ...(opts.maxOutputTokens ? { maxOutputTokens: opts.maxOutputTokens } : {}),
        ...(opts.note ? { ephemeralNote: opts.note } : {}),
        ...(steer ? { steer } : {}),
        ...(opts.toolChoiceNone ? { toolChoiceNone: true } : {}),
        ...(s.mcp ? { mcp: s.mcp } : {}),
        ...spendLimitOf(s),
      });
      if (r.mcpChanged && s.mcp) s.mcp.stale = true;
      s.nextSeq = seq + 1;
      p.tailRole = 'assistant';
      countCall(s, p, r);
      s.lastPromptTokens = r.usage.input_tokens + r.usage.cache_read_tokens + r.usage.cache_write_tokens;
      return r;
    } catch (err) {
      // Failed and stopped attempts are paid for too: counted before anything else happens.
      countFailedCall(s, p, err);
      if (isCancellation(err)) {
        // A stopped call may never have stored the steer it carried: it goes back, and becomes
        // the next user message (moved out of the tool result if the call had appended it).
        if (steer) s.pendingSteer.unshift(steer);
        throw err;
      }
      const kind = failureKindOf(err);
      if (kind === undefined) throw err;
      // Attempts that failed late may have reached a session cap: no fallback or retry goes past it.
      checkSessionBudget(s);
      // (The call's own retry found the cap reached: so it is, whatever rounding says here.)
      if (isSpendLimitReached(err)) throw new TurnEnd('session_budget_exceeded', rootMessage(err));
      // The steer text stays with every later attempt: the attempt that failed may have failed
      // before storing it, and storing it is idempotent (the same text is never appended twice).
      // The database refused the reply for good: no other provider or retry can help.
      if (kind === 'rejected') throw new TurnEnd('internal_error', rootMessage(err));
      if (kind === 'storage') {
        storageSince ??= calledAt;
        if (Date.now() - storageSince >= STORAGE_OUTAGE_MS)
          throw new TurnEnd(
            'internal_error',
            `the database stayed unavailable for ${Math.round((Date.now() - storageSince) / 60_000)} minutes: ${rootMessage(err)}`,
          );
        await sleep(STORAGE_WAIT, { summary: timerLabel('database wait before the model call again', STORAGE_WAIT) });
        continue;
      }
      await recover(s, p, slot, kind, err);
    }
  }
}

/** Carry out the recovery for one failure, or throw TurnEnd. */
async function recover(
  s: ConversationState,
  p: TurnProgress,
  slot: SlotCounters,
  reason: FailureReason,
  err: unknown,
): Promise<void> {
  // The attempts since the last failure were this provider's (its retries in the activity).
  const label = providerLabel(s.provider);
  slot.attemptsBy[label] = (slot.attemptsBy[label] ?? 0) + p.ledger.attempts - slot.ledgerMark;
  slot.ledgerMark = p.ledger.attempts;
  for (;;) {
    const decision = decideRecovery(reason, {
      ...slot,
      poolSize: poolSizeOf(s.provider),
      fallbacksLeft: fallbacksLeft(s, p.chainPos),
      attempts: slot.attemptsBy[label],
    });
    switch (decision.action) {
      case 'refresh_credential': {
        slot.refreshed = true;
        const { changed } = await storeStep('refreshCredentials', {
          provider: s.provider,
          credentialIndex: credentialIndexOf(s),
        });
        if (changed) return;
        continue; // nothing new to try with: decide again (rotate or fall back)
      }
      case 'rotate_credential':
        slot.rotations += 1;
        await rotateCredential(s, reason, p.turnId);
        return;
      case 'fallback':
        noteProviderError(slot.errors, s.provider, reason, rootMessage(err));
        p.chainPos = await switchToFallback(s, p.chainPos, reason, p.turnId);
        // A switch resets the slot's counters; the compressor follows the new model's window.
        slot.rotations = 0;
        slot.refreshed = false;
        slot.compressions = 0;
        slot.strippedReasoning = false;
        return;
      case 'compress': {
        // The window is smaller than we thought: believe the provider's own number when it gives one.
        const limit = decision.lowerContextTo ?? statedContextLimit(err);
        if (limit) {
          const learned = Math.min(s.provider.contextLength ?? limit, limit);
          // Kept past this turn.
          rememberContextLength(s, learned);
        }
        slot.compressions += 1;
        p.status = 'compressing';
        const c = await compressNow(s, p, 'overflow');
        p.status = 'thinking';
        if (!c.compressed || !c.progress) {
          throw new TurnEnd(
            'context_too_large',
            `the conversation is too large for ${providerLabel(s.provider)} and compression made no progress (${c.tokensBefore} → ${c.tokensAfter} tokens)`,
          );
        }
        return;
      }
      case 'strip_reasoning':
        slot.strippedReasoning = true;
        return;
      case 'fail':
        // A stream that stalled has already cost its windows (activities/model/stall-watch.ts): the
        // chain is not gone round again, so a dead provider fails the turn in minutes, not many.
        if (isTransient(reason) && slot.chainRestarts < CHAIN_RESTARTS_PER_SLOT && stalledSeconds(err) === undefined) {
          slot.chainRestarts += 1;
          await storeStep('publishStatus', {
            conversationId: s.conversationId,
            turnId: p.turnId,
            kind: 'retry',
            message: `every provider failed (${reason}); trying again from the start of the chain in ${CHAIN_RESTART_PAUSE_MS / 1000} s`,
          });
          await sleep(CHAIN_RESTART_PAUSE_MS, {
            summary: timerLabel('pause before the provider chain again', CHAIN_RESTART_PAUSE_MS),
          });
          p.chainPos = startTurnOnPrimary(s);
          slot.rotations = 0;
          slot.refreshed = false;
          slot.errors = [];
          return;
        }
        // Every provider's error, the primary's first: the last one alone hides the real cause.
        if (slot.errors.length) {
          noteProviderError(slot.errors, s.provider, reason, `${decision.message}: ${rootMessage(err)}`);
          throw new TurnEnd('model_error', chainFailureMessage(slot.errors));
        }
        throw new TurnEnd('model_error', `${decision.message} (${reason}): ${rootMessage(err)}`);
    }
  }
}
