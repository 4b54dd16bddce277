/** `herald usage`: per-attempt numbering across retries and fallbacks, the table and the totals line. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LedgerRow, LedgerTotals } from '../../store/ledger.js';
import { attemptKey } from '../../store/ledger.js';
import { formatDuration, numberTries, renderUsage, totalsLine } from '../../client/usage.js';

const at = new Date('2026-12-01T19:00:00Z');

function row(over: Partial<LedgerRow>): LedgerRow {
  return {
    conversationId: 'demo',
    turnId: 'demo:1',
    step: 1,
    purpose: 'turn',
    seq: 2,
    provider: 'custom',
    model: 'fake-model',
    attempt: 1,
    outcome: 'ok',
    errorType: null,
    inputTokens: 100,
    outputTokens: 10,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
    durationMs: 420,
    requestBytes: 2048,
    createdAt: at,
    ...over,
  };
}

const totals = (over: Partial<LedgerTotals>): LedgerTotals => ({
  attempts: 0,
  ok: 0,
  failed: 0,
  cancelled: 0,
  lost: 0,
  inFlight: 0,
  auxiliary: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
  ...over,
});

describe('attemptKey', () => {
  it('differs for every attempt, activity and run, and is the same for a re-delivered attempt', () => {
    const keys = [
      attemptKey('run-a', '7', 1),
      attemptKey('run-a', '7', 2),
      attemptKey('run-a', '8', 1), // a fallback or whole-call retry at the same step: a new activity
      attemptKey('run-b', '7', 1), // after continue-as-new: a new run
    ];
    assert.equal(new Set(keys).size, keys.length);
    assert.equal(attemptKey('run-a', '7', 2), attemptKey('run-a', '7', 2));
  });
});

describe('numberTries', () => {
  it('counts the requests of a step across activities, where Temporal starts again at 1', () => {
    const rows = [
      row({ attempt: 1, outcome: 'error', errorType: 'server_error' }),
      row({ attempt: 2, outcome: 'error', errorType: 'server_error' }),
      row({ attempt: 3, outcome: 'error', errorType: 'server_error' }),
      row({ attempt: 1, model: 'backup-model' }), // the fallback's first attempt
      row({ step: 2, seq: 4, attempt: 1 }),
      row({ turnId: 'demo:2', step: 1, seq: 6, attempt: 1 }),
    ];
    assert.deepEqual(
      numberTries(rows).map((r) => r.try),
      [1, 2, 3, 4, 1, 1],
    );
  });
});

describe('renderUsage', () => {
  it('prints one aligned line per attempt with its outcome, then the totals', () => {
    const report = {
      conversation: 'demo',
      attempts: numberTries([
        row({ outcome: 'error', errorType: 'server_error', inputTokens: 0, outputTokens: 0, durationMs: 35 }),
        row({ model: 'backup-model', attempt: 1, costUsd: 0.00123, cacheReadTokens: 50, durationMs: 1530 }),
        row({ step: 2, seq: 4, outcome: 'cancelled', inputTokens: 120, outputTokens: 0, durationMs: 200 }),
      ]),
      totals: totals({
        attempts: 3,
        ok: 1,
        failed: 1,
        cancelled: 1,
        inputTokens: 220,
        outputTokens: 10,
        cacheReadTokens: 50,
        costUsd: 0.00123,
      }),
    };
    const lines = renderUsage(report).split('\n');
    assert.deepEqual(lines, [
      'TURN  PURPOSE  STEP  ATTEMPT  PROVIDER/MODEL       OUTCOME                INPUT  OUTPUT  CACHED     COST   TIME',
      '   1  turn        1        1  custom/fake-model    failed (server_error)      0       0       0  $0.0000   35ms',
      '   1  turn        1        2  custom/backup-model  ok                       100      10      50  $0.0012   1.5s',
      '   1  turn        2        1  custom/fake-model    cancelled                120       0       0  $0.0000  200ms',
      'total: 3 HTTP attempts (1 ok, 1 failed, 1 cancelled) · 220 input + 10 output + 50 cached tokens · $0.0012',
    ]);
    assert.ok(lines.every((l) => l === l.trimEnd()));
  });

  it('says when nothing was recorded, and when only the newest attempts are listed', () => {
    assert.equal(
      renderUsage({ conversation: 'nope', attempts: [], totals: totals({}) }),
      '(no model calls recorded for nope)',
    );
    const out = renderUsage({
      conversation: 'big',
      attempts: numberTries([row({})]),
      totals: totals({ attempts: 5000, ok: 5000, inputTokens: 500_000, outputTokens: 50_000 }),
    });
    assert.match(out, /\(the newest 1 of 5000 attempts\)/);
  });

  it("labels a child agent's attempts with its own turn id, numbered apart from the parent's", () => {
    const child = { conversationId: 'demo.d1-3-0', turnId: 'demo.d1-3-0:1' };
    const attempts = numberTries([row({}), row({ ...child }), row({ ...child, attempt: 2 })]);
    assert.deepEqual(
      attempts.map((a) => a.try),
      [1, 1, 2],
    );
    const lines = renderUsage({ conversation: 'demo', attempts, totals: totals({ attempts: 3, ok: 3 }) }).split('\n');
    assert.match(lines[1]!, /^ +1 +turn +1 +1 /);
    assert.match(lines[2]!, /^demo\.d1-3-0:1 +turn +1 +1 /);
    assert.match(lines[3]!, /^demo\.d1-3-0:1 +turn +1 +2 /);
  });

  it('marks rows from before the step was recorded', () => {
    const out = renderUsage({
      conversation: 'demo',
      attempts: numberTries([row({ step: null })]),
      totals: totals({ attempts: 1, ok: 1 }),
    });
    assert.match(out.split('\n')[1]!, /^ {3}1 {2}turn {8}- {8}1 /);
  });

  it("shows what each auxiliary request was for, numbering a compression's requests apart from the turn's steps", () => {
    const compression = { purpose: 'compression' as const, step: null, seq: 9, model: 'aux-model' };
    const attempts = numberTries([
      row({}),
      row({ ...compression, outcome: 'error', errorType: 'server_error', inputTokens: 0, outputTokens: 0 }),
      row({ ...compression, model: 'fake-model', inputTokens: 900, outputTokens: 80 }), // the main model's summary
      row({ purpose: 'approval', step: null, seq: 4, inputTokens: 60, outputTokens: 1 }),
      row({ step: 2, seq: 10 }),
    ]);
    assert.deepEqual(
      attempts.map((a) => a.try),
      [1, 1, 2, 1, 1],
    );
    const lines = renderUsage({
      conversation: 'demo',
      attempts,
      totals: totals({ attempts: 5, ok: 4, failed: 1, auxiliary: 3, inputTokens: 1160, outputTokens: 101 }),
    }).split('\n');
    assert.match(lines[2]!, /^ +1 +compression +- +1 +custom\/aux-model +failed \(server_error\) /);
    assert.match(lines[3]!, /^ +1 +compression +- +2 +custom\/fake-model +ok +900 +80 /);
    assert.match(lines[4]!, /^ +1 +approval +- +1 +custom\/fake-model +ok +60 +1 /);
    assert.equal(
      lines.at(-1),
      'total: 5 HTTP attempts (4 ok, 1 failed, 0 cancelled; 3 auxiliary) · 1160 input + 101 output tokens · $0.0000',
    );
  });
});

describe('totalsLine and formatDuration', () => {
  it('names every kind of outcome, singular when one', () => {
    assert.equal(
      totalsLine(totals({ attempts: 1, ok: 1, inputTokens: 5, outputTokens: 1 })),
      'total: 1 HTTP attempt (1 ok, 0 failed, 0 cancelled) · 5 input + 1 output tokens · $0.0000',
    );
    assert.equal(formatDuration(999), '999ms');
    assert.equal(formatDuration(61_000), '61.0s');
  });
});

describe('lost attempts', () => {
  it('are shown with the size and time of the request they sent, and counted in the totals', () => {
    const text = renderUsage({
      conversation: 'demo',
      attempts: numberTries([
        row({ outcome: 'lost', inputTokens: 0, outputTokens: 0, durationMs: 0, requestBytes: 5120 }),
        row({ attempt: 2 }),
      ]),
      totals: totals({ attempts: 2, ok: 1, lost: 1, inputTokens: 100, outputTokens: 10 }),
    });
    assert.match(text, /lost \(worker died; 5\.0 kB sent at 19:00:00Z\)/);
    assert.match(text, /total: 2 HTTP attempts \(1 ok, 0 failed, 0 cancelled, 1 lost\)/);
  });

  it('leave the totals line as it was when there are none', () => {
    assert.doesNotMatch(totalsLine(totals({ attempts: 1, ok: 1 })), /lost|running/);
    assert.match(totalsLine(totals({ attempts: 1, inFlight: 1 })), /1 running/);
  });
});
