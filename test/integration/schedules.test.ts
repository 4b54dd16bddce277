/**
 * Scheduled conversations (docs/schedules.md) on the real dev server: a Temporal Schedule whose
 * runs are turns — a new session per run, or the next turn of a standing session with its memory.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { ScheduledRunResult } from '../../common/schedule.js';
import type { HeraldSchedules } from '../../client/schedules.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

describe('scheduled conversations', () => {
  let stack: TestStack;
  let schedules: HeraldSchedules;

  before(async () => {
    stack = await createTestStack();
    schedules = await stack.herald.schedules();
  });
  after(async () => {
    await stack.close();
  });

  /** Trigger the schedule and wait for that run's result (runs are due at whole seconds: one at a time). */
  async function runOnce(name: string, runsBefore: number): Promise<ScheduledRunResult> {
    await schedules.trigger(name);
    for (;;) {
      const runs = (await schedules.describe(name)).recentRuns;
      if (runs.length > runsBefore) {
        const handle = stack.temporal.workflow.getHandle(runs.at(-1)!.workflowId);
        const result = (await handle.result()) as ScheduledRunResult;
        await delay(1100); // the next trigger is due in another second, so it gets its own run id
        return result;
      }
      await delay(200);
    }
  }

  /** Poll a listing until it has `n` entries (or give its last answer after a while). */
  async function until<T>(list: () => Promise<T[]>, n: number): Promise<T[]> {
    let last: T[] = [];
    for (let i = 0; i < 100; i++) {
      last = await list();
      if (last.length === n) break;
      await delay(200);
    }
    return last;
  }

  it('a session-per-run schedule fires twice and each run answers in a session of its own', async () => {
    stack.fake.reset().script([{ text: 'first report' }, { text: 'second report' }]);
    const created = await schedules.create({ name: 'per-run', every: '1h', message: 'write the report', paused: true });
    assert.equal(created.session, null);
    assert.equal(created.spec, 'every 1h');
    const one = await runOnce('per-run', 0);
    const two = await runOnce('per-run', 1);
    assert.equal(one.answer, 'first report', JSON.stringify(one));
    assert.equal(two.answer, 'second report', JSON.stringify(two));
    assert.notEqual(one.session, two.session);
    assert.match(one.session, /^per-run-/);
    // Each run is a conversation like any other: its transcript holds the scheduled message.
    const transcript = await stack.transcript(two.session);
    assert.ok(transcript.some((m) => m.role === 'user' && m.content === 'write the report'));
    // The list comes from Temporal's visibility store, which follows a moment behind.
    const listed = await until(async () => (await schedules.list()).filter((s) => s.name === 'per-run'), 1);
    assert.deepEqual(
      listed.map((s) => [s.name, s.paused, s.recentRuns.length]),
      [['per-run', true, 2]],
    );
    await schedules.delete('per-run');
    assert.deepEqual(await until(async () => await schedules.list(), 0), []);
  });

  it('a schedule that continues a session adds a turn to it each run, with what came before', async () => {
    stack.fake.reset().script([{ text: 'noted: 1' }, { text: 'noted: 2' }]);
    await schedules.create({
      name: 'standing',
      cron: '0 9 * * *',
      session: 'sched-standing',
      message: 'count the runs',
      overlap: 'buffer_one',
      paused: true,
    });
    const view = await schedules.describe('standing');
    assert.equal(view.spec, 'cron 0 9 * * *');
    assert.equal(view.overlap, 'buffer_one');
    const one = await runOnce('standing', 0);
    const two = await runOnce('standing', 1);
    assert.deepEqual([one.session, two.session], ['sched-standing', 'sched-standing']);
    assert.deepEqual([one.answer, two.answer], ['noted: 1', 'noted: 2']);
    // The second run's model call saw the first run's turn.
    const second = stack.fake.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
    assert.ok(second.some((m) => m.role === 'assistant' && m.content === 'noted: 1'));
    const state = await stack.herald.conversation('sched-standing').state();
    assert.equal(state.turn, 2);
    await schedules.delete('standing');
  });

  it('refuses a schedule it could not run', async () => {
    await assert.rejects(schedules.create({ name: 'Bad Name', every: '1h', message: 'x' }), /invalid schedule name/);
    await assert.rejects(schedules.create({ name: 'both', every: '1h', cron: '@daily', message: 'x' }), /exactly one/);
    await assert.rejects(schedules.create({ name: 'soon', every: '5 parsecs', message: 'x' }), /not an interval/);
    await assert.rejects(
      schedules.create({ name: 'nowhere', every: '1h', message: 'x', start: { maxIterations: 0 } }),
      /invalid conversation options: maxIterations/,
    );
  });
});
