/**
 * `/stop` (signal `stop`) interrupts the running turn, not the conversation: the HTTP request to
 * the provider is aborted, running tools are killed, and the transcript stays valid.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { isValidOrder } from '../../shared/role-order.js';
import { sendStopNotice } from '../../activities/events/stop-notices.js';
import { SIDE_STOP_GRACE_MS } from '../../activities/model/call-stream.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

describe('stop', () => {
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

  it('aborts a slow streaming model call within a second and ends the turn as interrupted', async () => {
    stack.fake.script([{ text: 'I am thinking very slowly', hangAfterChunks: 2 }, { text: 'Back again.' }]);
    const conv = stack.herald.conversation('stop-model');
    const pending = conv.send('take your time', { id: 'slow', start: {} });
    const req = await stack.fake.waitForRequests(1);
    await eventually(async () => (await stack.events('stop-model')).some((e) => e.kind === 'text.delta'));
    const stopAt = Date.now();
    await conv.stop('user');
    const result = await pending;
    await eventually(() => req.abortedAt !== undefined);
    const latency = req.abortedAt! - stopAt;
    console.log(`stop → HTTP request aborted: ${latency} ms; stop → turn result: ${Date.now() - stopAt} ms`);
    assert.ok(latency < 1000, `abort took ${latency} ms`);
    assert.equal(result.interrupted, true);
    assert.equal(result.completed, false);
    assert.equal(result.turn_exit_reason, 'interrupted_during_api_call');
    assert.equal(result.final_response, null);

    // No partial model output entered the transcript; the conversation goes on.
    const transcript = await stack.transcript('stop-model');
    assert.deepEqual(
      transcript.map((m) => [m.role, m.content]),
      [
        ['user', 'take your time'],
        ['assistant', 'Operation interrupted.'],
      ],
    );
    const next = await conv.send('still there?', { id: 'next' });
    assert.equal(next.final_response, 'Back again.');
    assert.ok(isValidOrder(await stack.transcript('stop-model')));
  });

  it('aborts the provider request on the stop notice alone, then waits for the stop: one cancelled attempt, no repeat', async () => {
    stack.fake.script([{ text: 'streaming and then hanging', hangAfterChunks: 2 }, { text: 'Later.' }]);
    const conv = stack.herald.conversation('stop-notice');
    const pending = conv.send('go slowly', { id: 'noticed', start: {} });
    const req = await stack.fake.waitForRequests(1);
    await eventually(async () => (await stack.events('stop-notice')).some((e) => e.kind === 'text.delta'));
    const turnId = (await stack.events('stop-notice')).find((e) => e.kind === 'turn.started')!.turn_id!;

    // A notice for another turn (a late one) leaves the running call alone.
    await sendStopNotice(stack.db, { conversationId: 'stop-notice', turnId: 'an-older-turn' });
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(req.abortedAt, undefined, 'a notice for another turn aborted the request');

    // The notice alone (no signal yet) aborts the HTTP request: only the side channel can have done it.
    const noticeAt = Date.now();
    await sendStopNotice(stack.db, { conversationId: 'stop-notice', turnId });
    await eventually(() => req.abortedAt !== undefined);
    console.log(`stop notice → HTTP request aborted: ${req.abortedAt! - noticeAt} ms`);
    // The aborted call neither fails nor retries while the cancellation has not come.
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(stack.fake.requests.length, 1, 'the aborted call was retried before any cancellation');

    await conv.stop('user');
    const result = await pending;
    assert.equal(result.interrupted, true);
    assert.equal(result.turn_exit_reason, 'interrupted_during_api_call');
    assert.equal(stack.fake.requests.length, 1, 'the model call was repeated');
    const ledger = await stack.db.query<{ outcome: string; attempt: number }>(
      "SELECT outcome, attempt FROM model_calls WHERE session_id = 'stop-notice' ORDER BY attempt",
    );
    assert.deepEqual(ledger.rows, [{ outcome: 'cancelled', attempt: 1 }]);
    assert.equal((await conv.send('and now?', { id: 'after' })).final_response, 'Later.');
  });

  it('stop() sends the notice after the signal: the request is aborted and the turn ends interrupted', async () => {
    stack.fake.script([{ text: 'a long story, told slowly', hangAfterChunks: 2 }]);
    const conv = stack.herald.conversation('stop-client');
    const pending = conv.send('tell me', { id: 'client-stop', start: {} });
    const req = await stack.fake.waitForRequests(1);
    await eventually(async () => (await stack.events('stop-client')).some((e) => e.kind === 'text.delta'));
    const stopAt = Date.now();
    await conv.stop('user');
    await eventually(() => req.abortedAt !== undefined);
    const result = await pending;
    console.log(`stop() → HTTP request aborted: ${req.abortedAt! - stopAt} ms`);
    assert.equal(result.turn_exit_reason, 'interrupted_during_api_call');
    assert.equal(stack.fake.requests.length, 1);
    const ledger = await stack.db.query<{ outcome: string }>(
      "SELECT outcome FROM model_calls WHERE session_id = 'stop-client'",
    );
    assert.deepEqual(ledger.rows, [{ outcome: 'cancelled' }]);
  });

  it('a stop notice that no stop follows: the aborted call waits out the grace, then retries its request', async () => {
    stack.fake.script([{ text: 'cut short by a mistaken notice', hangAfterChunks: 2 }, { text: 'Answered anyway.' }]);
    const conv = stack.herald.conversation('stop-forged');
    const pending = conv.send('hello', { id: 'forged', start: {} });
    const req = await stack.fake.waitForRequests(1);
    await eventually(async () => (await stack.events('stop-forged')).some((e) => e.kind === 'text.delta'));
    const noticeAt = Date.now();
    await sendStopNotice(stack.db, { conversationId: 'stop-forged' });
    await eventually(() => req.abortedAt !== undefined);
    const result = await pending;
    const retryAt = stack.fake.requests[1]!.receivedAt;
    assert.ok(retryAt - noticeAt >= SIDE_STOP_GRACE_MS, `the request was repeated after ${retryAt - noticeAt} ms`);
    assert.equal(result.final_response, 'Answered anyway.');
    assert.equal(result.interrupted, false);
    const ledger = await stack.db.query<{ outcome: string; error_type: string | null }>(
      "SELECT outcome, error_type FROM model_calls WHERE session_id = 'stop-forged' ORDER BY attempt",
    );
    assert.deepEqual(ledger.rows, [
      { outcome: 'error', error_type: 'network' },
      { outcome: 'ok', error_type: null },
    ]);
  });

  it('kills a running terminal command and its children, and records a cancelled result', async () => {
    const workspace = join(stack.workspaces, 'stop-ws');
    mkdirSync(workspace, { recursive: true });
    const marker = join(workspace, 'child-survived');
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: `(sleep 3 && touch ${marker}) & sleep 60` } }] },
    ]);
    const conv = stack.herald.conversation('stop-tool');
    const pending = conv.send('sleep', { start: { cwd: workspace } });
    await eventually(async () => (await stack.events('stop-tool')).some((e) => e.kind === 'tool.started'));
    await new Promise((r) => setTimeout(r, 300));
    const stopAt = Date.now();
    await conv.stop();
    const result = await pending;
    console.log(`stop → turn result during a tool: ${Date.now() - stopAt} ms`);
    assert.equal(result.interrupted, true);
    assert.equal(result.turn_exit_reason, 'interrupted_during_tools');
    const transcript = await stack.transcript('stop-tool');
    assert.deepEqual(
      transcript.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    assert.match(transcript[2]!.content!, /cancelled/);
    assert.ok(isValidOrder(transcript));
    await new Promise((r) => setTimeout(r, 3500));
    assert.equal(existsSync(marker), false, 'the background child of the command kept running');
    stack.fake.script([{ text: 'fine' }]);
    assert.equal((await conv.send('ok?')).final_response, 'fine');
  });

  it('treats stop while idle as a no-op', async () => {
    stack.fake.script([{ text: 'one' }, { text: 'two' }]);
    const conv = stack.herald.conversation('stop-idle');
    await conv.send('1', { start: {} });
    await conv.stop();
    assert.equal((await conv.send('2')).final_response, 'two');
  });
});
