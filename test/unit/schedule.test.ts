/** Scheduled conversations' pure parts (docs/schedules.md): intervals, cron shapes, run sessions, run input. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isCronLike,
  parseEvery,
  scheduleIdFor,
  scheduleNameOf,
  scheduledRunInputSchema,
  sessionForRun,
} from '../../common/schedule.js';

describe('schedules', () => {
  it('reads intervals, and refuses what is not one or is under a second', () => {
    assert.equal(parseEvery('1h'), 3_600_000);
    assert.equal(parseEvery('30s'), 30_000);
    assert.equal(parseEvery('15 minutes'), 900_000);
    assert.equal(parseEvery('2d'), 172_800_000);
    for (const bad of ['', 'hourly', '0s', '0.5s', '-1h', '1y', '9999d']) assert.equal(parseEvery(bad), undefined, bad);
  });

  it('takes cron expressions of 5 to 7 fields and the @ macros', () => {
    for (const ok of ['0 9 * * 1-5', '*/15 * * * *', '0 0 1 JAN *', '@daily', '0 0 12 * * ? 2027'])
      assert.ok(isCronLike(ok), ok);
    for (const bad of ['', 'every day', '* * *', '0 9 * * 1-5; rm -rf /', '@sometimes'])
      assert.ok(!isCronLike(bad), bad);
  });

  it("names a run's session after the schedule and the time it was due", () => {
    assert.equal(sessionForRun('herald-schedule-nightly-2026-12-07T04:00:00Z'), 'nightly-2026-12-07T04:00:00Z');
    assert.equal(sessionForRun('other id/with spaces'), 'other-id-with-spaces');
    assert.ok(sessionForRun(`herald-schedule-${'x'.repeat(300)}`).length <= 128);
  });

  it('keeps schedule ids in their own namespace', () => {
    assert.equal(scheduleIdFor('nightly'), 'herald-nightly');
    assert.equal(scheduleNameOf('herald-nightly'), 'nightly');
    assert.equal(scheduleNameOf('someone-elses'), undefined);
  });

  it("checks a run's input like any workflow input", () => {
    assert.ok(scheduledRunInputSchema.safeParse({ schedule: 'a', message: 'hi' }).success);
    assert.ok(scheduledRunInputSchema.safeParse({ schedule: 'a', message: 'hi', session: 'standing' }).success);
    for (const bad of [
      {},
      { schedule: 'A B', message: 'hi' },
      { schedule: 'a', message: '' },
      { schedule: 'a', message: 'x'.repeat(16_001) },
      { schedule: 'a', message: 'hi', session: 'no spaces allowed' },
      { schedule: 'a', message: 'hi', extra: true },
    ])
      assert.ok(!scheduledRunInputSchema.safeParse(bad).success, JSON.stringify(bad).slice(0, 60));
  });
});
