/**
 * The conversation workflow's contract: input validation, update validation, idempotent message
 * ids, busy policies, serialized turns, `end`, and continue-as-new carrying the conversation.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { isValidOrder } from '../../shared/role-order.js';
import { sendMessageUpdate, stateQuery, userMessageSignal } from '../../workflows/definitions.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

describe('conversation contract', () => {
  let stack: TestStack;
  before(async () => {
    stack = await createTestStack();
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  const start = (id: string, input: Record<string, unknown>) =>
    stack.temporal.workflow.start('conversation', {
      taskQueue: stack.taskQueue,
      workflowId: `session-${id}`,
      args: [input],
    });

  for (const [name, input, field] of [
    ['unknown field', { mesage: 'hi' }, /mesage/],
    ['bad provider', { provider: 'acme' }, /provider/],
    ['bad idle timeout', { idleTimeout: 'soonish' }, /idleTimeout/],
    ['missing workspace', { cwd: '/definitely/not/here' }, /cwd/],
  ] as const) {
    it(`rejects invalid input: ${name}`, async () => {
      const h = await start(`bad-${name.replace(/ /g, '-')}`, input);
      const err = await h.result().then(
        () => assert.fail('expected failure'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof WorkflowFailedError);
      assert.equal((err.cause as { type?: string }).type, 'InvalidInput');
      assert.match(err.cause?.message ?? '', field);
    });
  }

  it('rejects malformed sendMessage updates without touching history', async () => {
    stack.fake.script([{ text: 'hello' }]);
    const h = await start('validate', {});
    await assert.rejects(h.executeUpdate(sendMessageUpdate, { args: [{ text: '' }] }), WorkflowUpdateFailedError);
    await assert.rejects(h.executeUpdate(sendMessageUpdate, { args: [{ body: 'x' } as never] }), (err: Error) =>
      /invalid sendMessage/.test(String((err.cause as Error | undefined)?.message)),
    );
    await h.signal(userMessageSignal, 42);
    const r = await h.executeUpdate(sendMessageUpdate, { args: [{ text: 'hi', id: 'ok-1' }] });
    assert.equal(r.final_response, 'hello');
    stack.fake.assertDone();
  });

  it('runs a message id once: a repeated sendMessage returns the first result', async () => {
    stack.fake.script([{ text: 'only once' }]);
    const conv = stack.herald.conversation('idem');
    const a = await conv.send('do it', { id: 'same-id', start: {} });
    const b = await stack.temporal.workflow
      .getHandle('session-idem')
      .executeUpdate(sendMessageUpdate, { args: [{ text: 'do it', id: 'same-id' }] });
    assert.deepEqual(b, a);
    assert.equal((await stack.transcript('idem')).length, 2);
    stack.fake.assertDone();
  });

  it('queues messages under the queue policy and never runs two turns at once', async () => {
    stack.fake.script([{ text: 'first, slowly', chunkDelayMs: 150 }, { text: 'second' }, { text: 'third' }]);
    const conv = stack.herald.conversation('queued');
    const p1 = conv.send('one', { id: 'q1', start: { busyPolicy: 'queue' } });
    await stack.fake.waitForRequests(1);
    // Wait until the update is accepted, so the signal after it is really later.
    const u2 = await stack.temporal.workflow
      .getHandle('session-queued')
      .startUpdate(sendMessageUpdate, { args: [{ text: 'two', id: 'q2' }], updateId: 'q2', waitForStage: 'ACCEPTED' });
    const p2 = u2.result();
    await conv.post('three', 'q3');
    const s = await eventually(async () => {
      const st = await conv.state();
      return st.queued_messages.length === 2 ? st : undefined;
    });
    assert.deepEqual(
      s.queued_messages.map((m) => m.id),
      ['q2', 'q3'],
    );
    const [r1, r2] = await Promise.all([p1, p2]);
    assert.equal(r1.final_response, 'first, slowly');
    assert.equal(r2.final_response, 'second');
    await eventually(async () => (await conv.state()).turn === 3 && (await conv.state()).status === 'idle');
    const transcript = await stack.transcript('queued');
    assert.deepEqual(
      transcript.map((m) => m.content),
      ['one', 'first, slowly', 'two', 'second', 'three', 'third'],
    );
    // Each request saw only complete earlier turns: turns were serialized.
    assert.deepEqual(
      stack.fake.requests.map((r) => (r.body.messages as unknown[]).length),
      [2, 4, 6],
    );
    stack.fake.assertDone();
  });

  it('interrupts the running turn for a new message under the default policy', async () => {
    stack.fake.script([{ text: 'never finished', hangAfterChunks: 1 }, { text: 'new answer' }]);
    const conv = stack.herald.conversation('interrupting');
    const p1 = conv.send('long task', { id: 'i1', start: {} });
    await stack.fake.waitForRequests(1);
    const r2 = await conv.send('actually, do this', { id: 'i2' });
    const r1 = await p1;
    assert.equal(r1.interrupted, true);
    assert.equal(r2.final_response, 'new answer');
    const transcript = await stack.transcript('interrupting');
    assert.ok(isValidOrder(transcript));
    assert.deepEqual(
      transcript.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
    stack.fake.assertDone();
  });

  it('continues-as-new after N turns and keeps the conversation, counters and usage', async () => {
    stack.fake.script([{ text: 'a1' }, { text: 'a2' }, { text: 'a3' }, { text: 'a4' }, { text: 'a5' }]);
    const conv = stack.herald.conversation('can');
    for (const [i, text] of ['q1', 'q2', 'q3', 'q4', 'q5'].entries()) {
      const r = await conv.send(text, { id: text, start: { continueAsNewAfterTurns: 2 } });
      assert.equal(r.final_response, `a${i + 1}`);
      assert.equal(r.turn, i + 1);
    }
    const handle = stack.temporal.workflow.getHandle('session-can');
    const desc = await handle.describe();
    assert.notEqual(desc.runId, desc.raw.workflowExecutionInfo?.firstRunId);
    const state = await handle.query(stateQuery);
    assert.equal(state.turn, 5);
    assert.equal(state.usage.input_tokens, 500);
    const transcript = await stack.transcript('can');
    assert.equal(transcript.length, 10);
    // A repeated id from an earlier run still returns its first result.
    const again = await conv.send('q5', { id: 'q5' });
    assert.equal(again.final_response, 'a5');
    stack.fake.assertDone();
  });

  it('ends with `end`: the workflow completes with the last result', async () => {
    stack.fake.script([{ text: 'bye' }]);
    const conv = stack.herald.conversation('ending');
    await conv.send('hello', { start: {} });
    await conv.end('finished');
    const result = await stack.temporal.workflow.getHandle('session-ending').result();
    assert.equal((result as { final_response: string }).final_response, 'bye');
    const row = await stack.db.query('SELECT end_reason, ended_at FROM sessions WHERE id = $1', ['ending']);
    assert.equal(row.rows[0].end_reason, 'finished');
    await assert.rejects(conv.send('more?'), /ended|not found|completed/i);
  });

  it('rejects a message too large for Temporal payloads with a clear error, and keeps running', async () => {
    stack.fake.script([{ text: 'fine' }]);
    const conv = stack.herald.conversation('too-large');
    await conv.send('hello', { start: {} });
    const huge = 'x'.repeat(500_000);
    await assert.rejects(conv.send(huge), (err: Error) =>
      /too large/.test(String((err.cause as Error | undefined)?.message)),
    );
    await conv.post(huge); // a signal: logged and ignored by the workflow
    const state = await conv.state();
    assert.equal(state.status, 'idle');
    assert.equal(state.turn, 1);
  });
});
