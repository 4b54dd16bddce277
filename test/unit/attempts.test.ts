/**
 * Every attempt counted: the workflow adds what a report of the turn's ledger totals
 * holds beyond what it counted, so reports that repeat, arrive twice or are missed never count an
 * attempt twice or lose one for good; malformed reports are ignored; the session caps stop a retry.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnAttempts } from '../../common/attempts.js';
import {
  addAttempts,
  asTurnAttempts,
  attemptsBeyond,
  capReached,
  noAttempts,
  usageOf,
  withLateAttempts,
} from '../../common/attempts.js';
import { ActivityFailure, ApplicationFailure, CancelledFailure, RetryState } from '@temporalio/common';
import type { CallModelResult } from '../../common/activity-types.js';
import type { TurnResult } from '../../common/contract.js';
import { emptyUsage } from '../../common/messages.js';
import { countCall, countFailedCall, countLate } from '../../workflows/attempts.js';
import type { ConversationState } from '../../workflows/state.js';
import { TurnProgress } from '../../workflows/turn-progress.js';

const report = (attempts: number, input: number, output = 0, cost = 0): TurnAttempts => ({
  attempts,
  usage: usageOf({
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: cost,
  }),
});

/** What the workflow does with each report (workflows/attempts.ts), as a fold. */
function fold(reports: readonly TurnAttempts[]): { counted: TurnAttempts; added: TurnAttempts } {
  let counted = noAttempts();
  let added = noAttempts();
  for (const r of reports) {
    const more = attemptsBeyond(counted, r);
    if (!more) continue;
    counted = addAttempts(counted, more);
    added = addAttempts(added, more);
  }
  return { counted, added };
}

describe('attemptsBeyond', () => {
  it('is what a newer report adds: failed attempts before a success are counted with it', () => {
    // One successful call counted; the next call failed twice (300 input each), then succeeded (400 in, 20 out).
    const more = attemptsBeyond(report(1, 100, 10, 0.001), report(4, 1100, 30, 0.004));
    assert.deepEqual(more, report(3, 1000, 20, 0.003));
  });

  it('adds nothing for a report seen before, or an older one', () => {
    assert.equal(attemptsBeyond(report(3, 500), report(3, 500)), undefined);
    assert.equal(attemptsBeyond(report(3, 500), report(2, 400)), undefined);
  });

  it('counts usage that came without a new attempt, and an attempt without usage', () => {
    assert.deepEqual(attemptsBeyond(report(2, 500), report(2, 650)), report(0, 150));
    assert.deepEqual(attemptsBeyond(report(2, 500), report(3, 500)), report(1, 0));
  });

  it('ends at the last report whatever came twice or was missed on the way', () => {
    const snapshots = [report(1, 100, 1, 0.0003), report(3, 320, 2, 0.0009), report(4, 400, 9, 0.0012)];
    const delivered = [snapshots[0]!, snapshots[0]!, snapshots[2]!, snapshots[1]!, snapshots[2]!];
    const { counted, added } = fold(delivered);
    assert.deepEqual(counted, snapshots[2]);
    assert.deepEqual(added, snapshots[2]);
  });

  it('keeps costs to the micro-dollar (no float dust makes a report look new)', () => {
    const counted = report(3, 0, 0, 0.1 + 0.2);
    assert.equal(attemptsBeyond(counted, report(3, 0, 0, 0.3)), undefined);
    assert.equal(attemptsBeyond(report(3, 0, 0, 0.3), report(3, 0, 0, 0.1 + 0.2)), undefined);
  });
});

describe('asTurnAttempts', () => {
  it('takes a well-formed report, its total recomputed and its cost rounded', () => {
    const u = { ...emptyUsage(), input_tokens: 10, output_tokens: 5, cache_read_tokens: 2, total_tokens: 999 };
    const r = asTurnAttempts({ attempts: 2, usage: { ...u, cost_usd: 0.12345678 } });
    assert.equal(r?.attempts, 2);
    assert.equal(r?.usage.total_tokens, 17);
    assert.equal(r?.usage.cost_usd, 0.123457);
  });

  it('ignores anything malformed', () => {
    const usage = emptyUsage();
    for (const bad of [
      undefined,
      null,
      'three',
      { attempts: 2 },
      { attempts: -1, usage },
      { attempts: 1.5, usage },
      { attempts: Number.NaN, usage },
      { attempts: 1, usage: { ...usage, input_tokens: '5' } },
      { attempts: 1, usage: { ...usage, cost_usd: -0.1 } },
      { attempts: 1, usage: { ...usage, output_tokens: Number.POSITIVE_INFINITY } },
    ])
      assert.equal(asTurnAttempts(bad), undefined, JSON.stringify(bad));
  });
});

describe('withLateAttempts', () => {
  it("adds attempts only the ledger knew of to the turn's calls, usage and the session's cost", () => {
    const turn = report(1, 100, 10, 0.002).usage;
    const session = report(5, 900, 50, 0.02).usage;
    const result = { api_calls: 1, usage: { turn, session }, estimated_cost_usd: 0.02 } as TurnResult;
    const r = withLateAttempts(result, report(2, 400, 0, 0.0012));
    assert.equal(r.api_calls, 3);
    assert.equal(r.usage.turn.input_tokens, 500);
    assert.equal(r.usage.session.input_tokens, 1300);
    assert.equal(r.usage.session.cost_usd, 0.0212);
    assert.equal(r.estimated_cost_usd, 0.0212);
  });
});

describe('capReached', () => {
  it('names the cap that what was spent reaches', () => {
    const spent = report(2, 300, 10, 0.0015).usage;
    assert.equal(capReached(spent, { costUsd: 0.001 }), 'cost');
    assert.equal(capReached(spent, { costUsd: 0.002 }), undefined);
    assert.equal(capReached(spent, { tokens: 310 }), 'token');
    assert.equal(capReached(spent, { tokens: 311, costUsd: 1 }), undefined);
    assert.equal(capReached(spent, {}), undefined);
  });
});

describe('the workflow side (workflows/attempts.ts)', () => {
  const fresh = () => {
    const p = new TurnProgress('c:1', 1, 'm1');
    p.ledger = noAttempts();
    const s = { sessionUsage: report(0, 1000, 0, 0.01).usage, sessionApiCalls: 5 } as ConversationState;
    return { s, p };
  };
  const failure = (turnAttempts: TurnAttempts | undefined, cancelled = false) =>
    new ActivityFailure(
      'failed',
      'callModel',
      '3',
      RetryState.MAXIMUM_ATTEMPTS_REACHED,
      undefined,
      cancelled
        ? new CancelledFailure('CANCELLED', turnAttempts ? [{ turnAttempts }] : [])
        : ApplicationFailure.create({
            type: 'server_error',
            message: 'HTTP 500',
            details: [{ reason: 'server_error', providerMessage: 'boom' }, ...(turnAttempts ? [{ turnAttempts }] : [])],
          }),
    );
  const ok = (usage: TurnAttempts['usage'], more: Partial<CallModelResult> = {}) =>
    ({ usage, ...more }) as CallModelResult;

  it('counts failed attempts from their failure, then the success from its report, each once', () => {
    const { s, p } = fresh();
    countFailedCall(s, p, failure(report(3, 600, 3, 0.0018)));
    assert.deepEqual(
      [p.apiCalls, p.usage.input_tokens, s.sessionApiCalls, s.sessionUsage.input_tokens],
      [3, 600, 8, 1600],
    );
    // A fallback's success: its report holds the 3 failed attempts again, and itself.
    countCall(s, p, ok(report(1, 120, 7).usage, { turnAttempts: report(4, 720, 10, 0.0018) }));
    assert.deepEqual([p.apiCalls, p.usage.input_tokens, p.usage.output_tokens], [4, 720, 10]);
    assert.deepEqual([s.sessionApiCalls, s.sessionUsage.input_tokens, s.sessionUsage.cost_usd], [9, 1720, 0.0118]);
  });

  it('counts a stopped call from its cancellation', () => {
    const { s, p } = fresh();
    countFailedCall(s, p, failure(report(1, 250, 1), true));
    assert.deepEqual([p.apiCalls, p.usage.input_tokens], [1, 250]);
  });

  it('a failure without a report counts nothing now; the next report catches it up', () => {
    const { s, p } = fresh();
    countFailedCall(s, p, failure(undefined));
    assert.equal(p.apiCalls, 0);
    countCall(s, p, ok(report(1, 100).usage, { turnAttempts: report(4, 400) }));
    assert.deepEqual([p.apiCalls, p.usage.input_tokens], [4, 400]);
  });

  it('a result without totals counts its call alone, and a later report does not count it again', () => {
    const { s, p } = fresh();
    countCall(s, p, ok(report(1, 100).usage));
    countCall(s, p, ok(report(1, 200).usage, { turnAttempts: report(2, 300) }));
    assert.deepEqual([p.apiCalls, p.usage.input_tokens], [2, 300]);
  });

  it('a call whose ledger row could not be written is counted, and not taken for one a report holds', () => {
    const { s, p } = fresh();
    countCall(s, p, ok(report(1, 100).usage, { unledgered: true }));
    // The ledger has the next call's row only.
    countCall(s, p, ok(report(1, 200).usage, { turnAttempts: report(1, 200) }));
    assert.deepEqual([p.apiCalls, p.usage.input_tokens], [2, 300]);
  });

  it("adds finishTurn's late attempts to the result and the totals, as the stored result has them", () => {
    const { s, p } = fresh();
    countCall(s, p, ok(report(1, 100).usage, { turnAttempts: report(1, 100) }));
    const result = {
      api_calls: p.apiCalls,
      usage: { turn: p.usage, session: s.sessionUsage },
      estimated_cost_usd: s.sessionUsage.cost_usd,
    } as TurnResult;
    const late = report(1, 1000, 0, 0.003);
    const r = countLate(s, p, result, { lateAttempts: late });
    assert.deepEqual(r, withLateAttempts(result, late));
    assert.deepEqual([r.api_calls, r.usage.turn.input_tokens, r.usage.session.input_tokens], [2, 1100, 2100]);
    assert.deepEqual(r.usage.session, s.sessionUsage);
    assert.equal(s.sessionApiCalls, 7);
    // A finishTurn that found nothing returns nothing.
    assert.equal(countLate(s, p, result, undefined), result);
  });
});
