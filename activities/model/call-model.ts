/**
 * The model-call activity: load the transcript, call the provider (streaming, cancellable),
 * write the assistant message at the sequence the workflow gave it, and return a small record.
 * One model call per activity; the loop lives in the workflow.
 *
 * Three parts, one module each: prepare (call-prepare.ts: what the request needs), stream
 * (call-stream.ts: the request under its watchdogs) and settle (call-settle.ts: ledger, metrics,
 * events, the stored reply). This module wires them and owns the attempt's lifetime: its
 * heartbeat, its meter, and the reply kept across a moment's database outage.
 */
import { Context } from '@temporalio/activity';
import type { CallModelArgs, CallModelResult } from '../../common/activity-types.js';
import type { ActivityDeps } from '../deps.js';
import { keepHeartbeating } from '../deps.js';
import { currentEndpoint } from '../../common/providers.js';
import { EventPublisher } from '../events/publisher.js';
import { isTransientDbError } from '../../store/failures.js';
import { ledgerBeforeSend, refuseOverSpend, withAttempts } from './call-ledger.js';
import { startCallMeter } from './call-meter.js';
import { prepareCall } from './call-prepare.js';
import type { CallAttempt, Reply, SaveProgress } from './call-settle.js';
import { settleFailure, settleReply } from './call-settle.js';
import { streamReply } from './call-stream.js';
import { keepReply, takeReply } from './reply-cache.js';
import { storageFailure } from './storage-failure.js';

export function modelActivities(deps: ActivityDeps) {
  return {
    async callModel(a: CallModelArgs): Promise<CallModelResult> {
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      if (attempt > 1 && a.spendLimit) await refuseOverSpend(deps.db, a, ctx.info);
      const started = Date.now();
      const pub = new EventPublisher(deps.db, a.conversationId, a.turnId, deps.log, { iteration: a.iteration });
      announceAttempt(pub, a, attempt, deps);
      const stopHeartbeat = keepHeartbeating(() => ctx.heartbeat({ phase: 'model', attempt }));
      try {
        const prepared = await prepareCall(deps, a, ctx.cancellationSignal);
        const slotKey = `${a.sessionId}:${a.seq}:${a.turnId}`;
        const kept = takeReply(slotKey);
        if (!kept) await ledgerBeforeSend(deps.db, a, ctx.info, prepared.ref, prepared.request);
        const meter = startCallMeter(deps.metrics, prepared.ref, attempt, prepared.request.maxOutputTokens);
        const c: CallAttempt = {
          deps,
          a,
          info: ctx.info,
          cancellation: ctx.cancellationSignal,
          ref: prepared.ref,
          pub,
          meter,
          started,
        };
        try {
          const outcome = kept
            ? ({ kind: 'reply', response: kept.response } as const)
            : await streamReply(deps, a, prepared, { ctx, pub, meter });
          if (outcome.kind !== 'reply') {
            meter.end();
            throw await settleFailure(c, outcome, ctx.cancellationSignal);
          }
          const reply: Reply = { response: outcome.response, kept: !!kept, unrecorded: kept?.unrecorded };
          const progress: SaveProgress = { turn: undefined, unrecorded: reply.unrecorded };
          try {
            return await settleReply(c, prepared, reply, progress);
          } catch (err) {
            // A moment's outage: the retry saves this reply, without calling the provider again.
            // Anything else would fail the same way on every retry, each one a paid call: it fails now.
            if (isTransientDbError(err)) keepReply(slotKey, reply.response, progress.unrecorded);
            throw withAttempts(storageFailure(err, "saving the model's reply"), progress.turn);
          }
        } finally {
          meter.end();
        }
      } finally {
        stopHeartbeat();
      }
    },
  };
}

/** What watching clients see as an attempt begins; a retry first tells them to drop its partial output. */
function announceAttempt(pub: EventPublisher, a: CallModelArgs, attempt: number, deps: ActivityDeps): void {
  if (attempt > 1)
    pub.emit('stream.reset', {
      iteration: a.iteration,
      attempt,
      reason: 'the model call is being retried; discard its earlier partial output',
    });
  pub.emit('step', { iteration: a.iteration, max: a.maxIterations });
  const { model, provider } = currentEndpoint(a.provider, deps.config.providerDefaults);
  pub.emit('thinking', { state: 'started', model, provider, attempt });
}
