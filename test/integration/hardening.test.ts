/**
 * Nothing a caller sends can wedge a conversation (docs/architecture.md, bounds): each hostile-caller scenario,
 * on a live stack. After every test the conversation's histories show no workflow task failing
 * twice in a row.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { WorkflowFailedError } from '@temporalio/client';
import { CONVERSATION_WORKFLOW, workflowIdFor } from '../../common/constants.js';
import { isValidOrder } from '../../shared/role-order.js';
import type { RecordedRequest } from '../support/fake-provider.js';
import { activitiesPerRun, longestTaskFailureStreak, runsOf } from '../support/histories.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: RecordedRequest) => r.body.messages as WireMessage[];
const lastUser = (r: RecordedRequest) => messagesOf(r).findLast((m) => m.role === 'user')?.content ?? '';
/** A summary call of the compression (its system prompt says so). */
const isSummaryCall = (r: RecordedRequest) =>
  (messagesOf(r)[0]?.content ?? '').startsWith('You compress the earlier part');
/** A reply long enough that a few turns leave something to compress. */
const wordy = (s: string) => `${s} ${'words '.repeat(40)}`;

describe('workflow hardening', () => {
  let stack: TestStack;
  let ws: string;

  before(async () => {
    stack = await createTestStack({
      configYaml: 'model: { streamStallSeconds: 2 }\nretry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\n',
    });
    ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'a.txt'), 'alpha\n');
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  const handleOf = (session: string) => stack.temporal.workflow.getHandle(workflowIdFor(session));
  const noWedge = async (session: string) => {
    const streak = longestTaskFailureStreak(await runsOf(stack.temporal, workflowIdFor(session)));
    assert.ok(streak <= 1, `${streak} workflow tasks failed in a row`);
  };
  const sessionRow = async (id: string) =>
    (await stack.db.query<{ ended_at: Date | null }>('SELECT ended_at FROM sessions WHERE id = $1', [id])).rows[0];

  it('messages that add up past the bounds are refused or ignored, and the conversation goes on (1)', async () => {
    stack.fake.respond((req) =>
      lastUser(req) === 'start' ? { text: 'slow…', hangAfterChunks: 1 } : { text: `ok ${lastUser(req).length}` },
    );
    const conv = stack.herald.conversation('hd-big');
    const first = conv.send('start', { start: { cwd: ws, busyPolicy: 'queue' } });
    await stack.fake.waitForRequests(1);
    const big = (c: string) => c.repeat(350_000);
    for (const c of ['a', 'b', 'c', 'd']) await conv.post(big(c), `big-${c}`);
    await assert.rejects(conv.send(big('e'), { id: 'big-e' }), (err: Error & { cause?: Error }) =>
      /message refused: the waiting messages would hold/.test(String(err.cause?.message)),
    );
    await conv.stop();
    await first;
    await eventually(async () => {
      const st = await conv.state();
      return st.queued_messages.length === 0 && st.turn === 3 && st.status === 'idle';
    });
    const users = (await stack.transcript('hd-big')).filter((m) => m.role === 'user');
    assert.equal(users.length, 3, 'the start message and the two that fit');
    await noWedge('hd-big');
  });

  it('the client refuses a message Temporal could not carry, and the conversation goes on (1)', async () => {
    stack.fake.respond(() => ({ text: 'fine' }));
    const conv = stack.herald.conversation('hd-payload');
    await conv.send('hello', { start: { cwd: ws } });
    // Under the character cap, but 2.4 MB as JSON: the server would admit the update and no worker
    // could answer it (its acceptance or rejection carries the request back, over the limit).
    const huge = '\ud800'.repeat(399_990);
    await assert.rejects(conv.send(huge), /too large as a payload/);
    await assert.rejects(conv.post(huge), /too large as a payload/);
    assert.equal((await conv.send('still there?')).final_response, 'fine');
    await noWedge('hd-payload');
  });

  it('a message that is small in characters but large encoded is refused where it enters, by any caller (1)', async () => {
    stack.fake.respond(() => ({ text: 'fine' }));
    const conv = stack.herald.conversation('hd-encoded');
    await conv.send('hello', { start: { cwd: ws } });
    // 200,000 characters (half the character cap) and 200 KB as UTF-8, but 1.2 MB as JSON: each
    // control character is escaped to six bytes. Sent bypassing Herald's client, as an update and
    // as a signal: the workflow bounds what it holds in encoded bytes, so it refuses or ignores it.
    const hostile = '\u0001'.repeat(200_000);
    await assert.rejects(conv.send(hostile), /too large as a payload/);
    await assert.rejects(
      handleOf('hd-encoded').executeUpdate('sendMessage', { args: [{ text: hostile, id: 'hostile-1' }] }),
      (err: Error & { cause?: Error }) =>
        /message refused: the waiting messages would hold \d+ bytes/.test(String(err.cause?.message ?? err.message)),
    );
    await handleOf('hd-encoded').signal('userMessage', { text: hostile, id: 'hostile-2' });
    await eventually(async () => (await conv.state()).ignored_messages.count >= 1);
    assert.match(String((await conv.state()).ignored_messages.last_reason), /would hold \d+ bytes/);
    assert.equal((await conv.send('still there?')).final_response, 'fine');
    const users = (await stack.transcript('hd-encoded')).filter((m) => m.role === 'user');
    assert.equal(users.length, 2, 'neither hostile copy became a message');
    await noWedge('hd-encoded');
  });

  it('steer text is bounded too: what does not fit is ignored, the turn goes on (1)', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1.5; echo slept' } }] },
      { text: 'steered' },
    ]);
    const conv = stack.herald.conversation('hd-steer');
    const pending = conv.send('go', { start: { cwd: ws, busyPolicy: 'steer' } });
    await stack.fake.waitForRequests(1);
    for (let i = 0; i < 5; i++) await conv.steer('s'.repeat(90_000));
    assert.equal((await pending).final_response, 'steered');
    const sent = messagesOf(stack.fake.requests[1]!).at(-1)!.content!;
    assert.ok(sent.length < 200_000 + 10_000, `the model got ${sent.length} characters of steer`);
    await noWedge('hd-steer');
  });

  it('steer text survives a model call that failed before it was stored', async () => {
    // The database refuses the update that delivers the steer, transiently, for every attempt of
    // the first activity: the workflow waits for the database and calls again, steer included.
    await stack.db.query(`
      DROP SEQUENCE IF EXISTS herald_test_steer_failures;
      CREATE SEQUENCE herald_test_steer_failures;
      CREATE OR REPLACE FUNCTION herald_test_steer_fail() RETURNS trigger AS $$
      BEGIN
        IF NEW.content LIKE '%STEER-ME%' AND nextval('herald_test_steer_failures') <= 3 THEN
          RAISE EXCEPTION 'serialization failure injected by the test' USING ERRCODE = '40001';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      DROP TRIGGER IF EXISTS herald_test_steer_fail ON messages;
      CREATE TRIGGER herald_test_steer_fail BEFORE UPDATE ON messages FOR EACH ROW EXECUTE FUNCTION herald_test_steer_fail();
    `);
    try {
      stack.fake.script([
        { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo done' } }] },
        { text: 'steered' },
      ]);
      const conv = stack.herald.conversation('hd-steer-kept');
      const pending = conv.send('go', { start: { cwd: ws, busyPolicy: 'steer' } });
      await stack.fake.waitForRequests(1);
      await conv.steer('STEER-ME: use tabs');
      assert.equal((await pending).final_response, 'steered');
      const sent = messagesOf(stack.fake.requests[1]!).at(-1)!.content!;
      assert.match(sent, /STEER-ME: use tabs/);
      assert.equal(stack.fake.requests.length, 2, 'the failed attempts never reached the provider');
    } finally {
      await stack.db.query('DROP TRIGGER IF EXISTS herald_test_steer_fail ON messages');
    }
  });

  it('steer carried by a model call that /stop cancelled becomes the next user message, once', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo done' } }] },
      { text: 'too late', delayMs: 5_000 },
      { text: 'got the steer' },
    ]);
    const conv = stack.herald.conversation('hd-steer-stopped');
    const pending = conv.send('go', { start: { cwd: ws, busyPolicy: 'steer' } });
    await stack.fake.waitForRequests(1);
    await conv.steer('STEERED-ONCE: use tabs');
    await stack.fake.waitForRequests(2);
    await conv.stop();
    assert.equal((await pending).interrupted, true);
    await eventually(() => stack.fake.requests.length === 3);
    assert.equal(messagesOf(stack.fake.requests[2]!).at(-1)!.content, 'STEERED-ONCE: use tabs');
    await eventually(async () => (await conv.state()).status === 'idle');
    const copies = (await stack.transcript('hd-steer-stopped')).filter((m) =>
      (m.content ?? '').includes('STEERED-ONCE'),
    );
    assert.deepEqual(
      copies.map((m) => m.role),
      ['user'],
      'the steer is in the transcript once, as the message it became',
    );
  });

  it('a message that steered a turn, sent again by id, is answered by that turn and not run twice (15)', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo done' } }] },
      { text: 'steered answer' },
    ]);
    const conv = stack.herald.conversation('hd-steer-id');
    const pending = conv.send('go', { start: { cwd: ws, busyPolicy: 'steer' } });
    await stack.fake.waitForRequests(1);
    await conv.post('STEER-BY-ID: use tabs', 'st-1');
    assert.equal((await pending).final_response, 'steered answer');
    const again = await conv.send('STEER-BY-ID: use tabs', { id: 'st-1' });
    assert.equal(again.final_response, 'steered answer');
    assert.equal(again.message_id, 'st-1');
    assert.equal(stack.fake.requests.length, 2, 'no model call for the repeat');
    const copies = (await stack.transcript('hd-steer-id')).filter((m) => (m.content ?? '').includes('STEER-BY-ID'));
    assert.equal(copies.length, 1);
  });

  it('signals whose payload cannot be decoded are ignored, not fatal (2)', async () => {
    stack.fake.script([{ text: 'first' }, { text: 'still here' }]);
    const conv = stack.herald.conversation('hd-undecodable');
    await conv.send('hello', { start: { cwd: ws } });
    const raw = (signalName: string, encoding: string, data: string) =>
      stack.temporal.workflowService.signalWorkflowExecution({
        namespace: 'default',
        workflowExecution: { workflowId: conv.workflowId },
        signalName,
        input: { payloads: [{ metadata: { encoding: Buffer.from(encoding) }, data: Buffer.from(data) }] },
      });
    await raw('userMessage', 'binary/weird', 'x');
    await raw('userMessage', 'json/plain', '{"text": "broken');
    await raw('approve', 'json/plain', '\u0000\u0001');
    await raw('steer', 'binary/weird', '');
    const r = await conv.send('are you there?');
    assert.equal(r.final_response, 'still here', JSON.stringify({ r, requests: stack.fake.requests.map(lastUser) }));
    assert.equal((await stack.transcript('hd-undecodable')).filter((m) => m.role === 'user').length, 2);
    await noWedge('hd-undecodable');
  });

  it('compress then end while a turn runs: the compression is answered and the conversation ends (3)', async () => {
    stack.fake.script([{ text: 'slow…', hangAfterChunks: 1 }]);
    const conv = stack.herald.conversation('hd-compress-end');
    const turn = conv.send('start', { start: { cwd: ws } });
    await stack.fake.waitForRequests(1);
    const compressed = conv.compress();
    await eventually(async () => {
      const h = await handleOf('hd-compress-end').fetchHistory();
      return h.events?.some(
        (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'compress',
      );
    });
    await conv.end('done');
    await conv.stop();
    await turn;
    assert.match(
      (await compressed).message,
      /ended before the compression ran/,
      JSON.stringify(stack.fake.requests.map(lastUser)),
    );
    await handleOf('hd-compress-end').result();
    assert.ok((await sessionRow('hd-compress-end'))?.ended_at, 'the session row is closed');
    await noWedge('hd-compress-end');
  });

  it('a resumed conversation that had compressed goes on in its latest session (4)', async () => {
    stack.fake.respond((req) =>
      isSummaryCall(req)
        ? { text: 'SUMMARY: we talked about alpha.' }
        : { text: wordy(`reply to ${lastUser(req).slice(0, 20)}`) },
    );
    const conv = stack.herald.conversation('hd-resume');
    for (const t of ['one', 'two', 'three', 'four', 'five', 'six']) await conv.send(t, { start: { cwd: ws } });
    const c = await conv.compress();
    assert.equal(c.compressed, true, c.message);
    assert.equal(c.session_id, 'hd-resume.1');
    await conv.end('pause');
    await handleOf('hd-resume').result();

    const again = await conv.send('seven', { start: { cwd: ws } });
    assert.equal(again.session_id, 'hd-resume.1', 'the resumed run goes on in the compressed session');
    const request = stack.fake.requests.at(-1)!;
    assert.ok(messagesOf(request).some((m) => m.content?.includes('SUMMARY: we talked about alpha')));
    assert.ok(!(await sessionRow('hd-resume.1'))?.ended_at, 'the resumed session is open again');
    const c2 = await conv.compress();
    if (c2.compressed) assert.equal(c2.session_id, 'hd-resume.2', 'a later compression makes a new session');
    await noWedge('hd-resume');
  });

  it('a database refusal fails the turn, not the conversation; the paid call is made once and its usage recorded (6, 11)', async () => {
    await stack.db.query(`
      CREATE OR REPLACE FUNCTION herald_test_refuse() RETURNS trigger AS $$
      BEGIN
        IF NEW.content LIKE '%REFUSE-ME%' THEN RAISE EXCEPTION 'refused by the test trigger'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      DROP TRIGGER IF EXISTS herald_test_refuse ON messages;
      CREATE TRIGGER herald_test_refuse BEFORE INSERT OR UPDATE ON messages FOR EACH ROW EXECUTE FUNCTION herald_test_refuse();
    `);
    try {
      stack.fake.script([{ text: 'here is REFUSE-ME in my reply' }, { text: 'fine now' }]);
      const conv = stack.herald.conversation('hd-refused');
      const r1 = await conv.send('say the word', { start: { cwd: ws } });
      assert.equal(r1.failed, true);
      assert.match(r1.error ?? '', /refused by the test trigger/);
      assert.equal(stack.fake.requests.length, 1, 'the paid call was not repeated');
      const ledger = await stack.db.query<{ outcome: string }>(
        "SELECT outcome FROM model_calls WHERE session_id = 'hd-refused'",
      );
      assert.deepEqual(
        ledger.rows.map((r) => r.outcome),
        ['ok'],
        'its usage is in the ledger',
      );
      // A user message the database refuses: that turn fails, the conversation lives on.
      const r2 = await conv.send('REFUSE-ME please');
      assert.equal(r2.failed, true);
      const r3 = await conv.send('and now?');
      assert.equal(r3.final_response, 'fine now');
      await noWedge('hd-refused');
    } finally {
      await stack.db.query('DROP TRIGGER IF EXISTS herald_test_refuse ON messages');
    }
  });

  it('around the idle timeout every message is either answered or refused, never dropped (7)', async () => {
    stack.fake.respond(() => ({ text: 'answer' }));
    const conv = stack.herald.conversation('hd-idle');
    await conv.send('wake', { start: { cwd: ws, idleTimeout: '2s' } });
    const outcomes: string[] = [];
    for (let i = 0; i < 14; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const settled = await Promise.race([
        conv.send(`m${i}`, { id: `idle-${i}` }).then(
          (r) => `answered:${r.final_response ?? r.turn_exit_reason}`,
          (err: Error) => `refused:${err.message}`,
        ),
        new Promise<string>((r) => setTimeout(() => r('hung'), 30_000)),
      ]);
      outcomes.push(settled);
    }
    assert.ok(!outcomes.includes('hung'), outcomes.join('\n'));
    await handleOf('hd-idle').result();
    assert.ok((await sessionRow('hd-idle'))?.ended_at);
    const answered = outcomes.filter((o) => o.startsWith('answered:answer')).length;
    const users = (await stack.transcript('hd-idle')).filter((m) => m.role === 'user').length;
    assert.equal(users, answered + 1, 'every answered message is in the transcript once, nothing else is');
    await noWedge('hd-idle');
  });

  it('steady sendMessage traffic cannot postpone continue-as-new (8)', async () => {
    stack.fake.respond(() => ({ text: 'ok', chunkDelayMs: 20 }));
    const conv = stack.herald.conversation('hd-steady');
    await conv.send('first', { start: { cwd: ws, busyPolicy: 'queue', continueAsNewAfterTurns: 2 } });
    const lanes = [0, 1, 2].map(async (lane) => {
      for (let i = 0; i < 4; i++) await conv.send(`lane ${lane} message ${i}`, { id: `steady-${lane}-${i}` });
    });
    await Promise.all(lanes);
    const runs = await runsOf(stack.temporal, conv.workflowId);
    const turns = activitiesPerRun(runs, 'recordUserMessage');
    assert.equal(
      turns.reduce((a, b) => a + b, 0),
      13,
    );
    assert.ok(Math.max(...turns) <= 2 + 3, `turns per run: ${turns.join(', ')}`);
    assert.ok(isValidOrder(await stack.transcript('hd-steady')));
    await noWedge('hd-steady');
  });

  it('a stream that stops sending is abandoned as a timeout and retried (9)', async () => {
    stack.fake.script([{ text: 'stuck', hangAfterChunks: 1 }, { text: 'recovered' }]);
    const started = Date.now();
    const r = await stack.herald.conversation('hd-stall').send('go', { start: { cwd: ws } });
    assert.equal(r.final_response, 'recovered', JSON.stringify(r));
    assert.equal(stack.fake.requests.length, 2);
    assert.ok(Date.now() - started < 60_000, 'caught in seconds, not after the 15-minute timeout');
    const events = await stack.events('hd-stall');
    assert.ok(events.some((e) => e.kind === 'status' && /made no progress for 2 s/.test(String(e.payload.message))));
  });

  it('a provider that keeps stalling fails the turn after two stalled attempts, and its error counts what the ledger counts', async () => {
    stack.fake.script([
      { text: 'stuck', hangAfterChunks: 1 },
      { text: 'stuck again', hangAfterChunks: 1 },
    ]);
    const started = Date.now();
    const r = await stack.herald.conversation('hd-stall-dead').send('go', { start: { cwd: ws } });
    assert.equal(r.turn_exit_reason, 'model_error', JSON.stringify(r));
    // Two windows of 2 s, not six attempts (the retry policy's three, then the chain again).
    assert.equal(stack.fake.requests.length, 2);
    assert.ok(Date.now() - started < 30_000, `failed in ${Date.now() - started} ms`);
    assert.match(String(r.error), /after 2 attempts/);
    assert.match(String(r.error), /made no progress for 2 s/);
    const ledger = await stack.db.query("SELECT 1 FROM model_calls WHERE session_id = 'hd-stall-dead'");
    assert.equal(ledger.rowCount, 2, 'the ledger lists the same two attempts');
    assert.equal(r.api_calls, 2);
  });

  it('a 3,000-character model name is refused at the start with a clear error (10)', async () => {
    await assert.rejects(
      stack.herald.conversation('hd-long-model').send('hi', { start: { cwd: ws, model: 'm'.repeat(3000) } }),
      /model: too long \(3000 characters; at most 200\)/,
    );
    // Past the client, the workflow refuses it too (a start through `temporal workflow start`).
    await assert.rejects(
      stack.temporal.workflow.execute(CONVERSATION_WORKFLOW, {
        taskQueue: stack.taskQueue,
        workflowId: workflowIdFor('hd-long-model-raw'),
        args: [{ model: 'm'.repeat(3000) }],
      }),
      (err: WorkflowFailedError) => /model: too long/.test(String(err.cause?.message)),
    );
  });

  it('oversized ignored signals make the run continue as new instead of growing to the limit (13)', async () => {
    stack.fake.script([{ text: 'hello' }]);
    const conv = stack.herald.conversation('hd-flood');
    await conv.send('hi', { start: { cwd: ws } });
    const before = (await handleOf('hd-flood').describe()).runId;
    // Each is over the message cap: ignored, but its bytes are in history all the same.
    for (let i = 0; i < 8; i++) await conv.steer({ text: 'z'.repeat(1_200_000) } as never);
    await eventually(async () => (await handleOf('hd-flood').describe()).runId !== before, 30_000);
    const old = await stack.temporal.workflow.getHandle(workflowIdFor('hd-flood'), before).describe();
    assert.equal(old.status.name, 'CONTINUED_AS_NEW');
    // The new run is small and answers (its predecessor's history is too large for a client to fetch whole).
    stack.fake.script([{ text: 'still here' }]);
    assert.equal((await conv.send('and now?')).final_response, 'still here');
    assert.ok((await handleOf('hd-flood').describe()).historyLength < 100);
    // The count of ignored signals travels with the conversation, with the latest reason.
    const { ignored_messages } = await conv.state();
    assert.equal(ignored_messages.count, 8);
    assert.match(ignored_messages.last_reason ?? '', /steer signal: text: too large/);
  });

  it('carried state is refused from callers; a bad workflow id and a zero idle timeout are refused (14, 15)', async () => {
    const start = (workflowId: string, input: Record<string, unknown>) =>
      stack.temporal.workflow.execute(CONVERSATION_WORKFLOW, { taskQueue: stack.taskQueue, workflowId, args: [input] });
    await assert.rejects(start('session-hd-carried', { carried: { clarify: {} } }), (err: WorkflowFailedError) =>
      /carried: internal to continue-as-new/.test(String(err.cause?.message)),
    );
    await assert.rejects(start('hd bad id!', {}), (err: WorkflowFailedError) =>
      /invalid conversation id/.test(String(err.cause?.message)),
    );
    await assert.rejects(start('session-hd-zero', { idleTimeout: '0s' }), (err: WorkflowFailedError) =>
      /idleTimeout: between 1 second and 366 days/.test(String(err.cause?.message)),
    );
  });

  it('a message id is answered from the store however long ago it ran (15)', async () => {
    stack.fake.respond((req) => ({ text: `answer to ${lastUser(req)}` }));
    const conv = stack.herald.conversation('hd-ids');
    const firstResult = await conv.send('number 0', { id: 'id-0', start: { cwd: ws } });
    for (let i = 1; i <= 22; i++) await conv.send(`number ${i}`, { id: `id-${i}` });
    const calls = stack.fake.requests.length;
    const again = await conv.send('number 0 (sent again)', { id: 'id-0' });
    assert.equal(again.final_response, firstResult.final_response);
    assert.equal(stack.fake.requests.length, calls, 'no model call for a repeated id');
  });

  it('a message id answered before the conversation ended is answered from the store after a resume (15)', async () => {
    stack.fake.respond((req) => ({ text: `answer to ${lastUser(req)}` }));
    const conv = stack.herald.conversation('hd-ids-resumed');
    await conv.send('number 1', { id: 'r-1', start: { cwd: ws, continueAsNewAfterTurns: 1 } });
    await conv.send('number 2', { id: 'r-2' });
    await conv.end();
    await eventually(async () => (await handleOf('hd-ids-resumed').describe()).status.name === 'COMPLETED');
    const calls = stack.fake.requests.length;
    const rows = async () =>
      (await stack.db.query("SELECT count(*)::int AS n FROM messages WHERE message_id = 'r-1'")).rows[0].n as number;
    const before = await rows();
    // A new execution of the same conversation (r-1 ran two runs ago in the one before it).
    const again = await conv.send('number 1 (sent again)', { id: 'r-1', start: { cwd: ws } });
    assert.equal(again.final_response, 'answer to number 1');
    assert.equal(stack.fake.requests.length, calls, 'no model call for a repeated id');
    assert.equal(await rows(), before, 'nothing recorded twice');
    assert.equal((await conv.send('number 3', { id: 'r-3' })).final_response, 'answer to number 3');
    assert.ok(isValidOrder(await stack.transcript('hd-ids-resumed')));
  });

  it('the start message goes first even when signals arrive with the start (15)', async () => {
    stack.fake.respond((req) => ({ text: `re: ${lastUser(req)}` }));
    await stack.temporal.workflow.signalWithStart(CONVERSATION_WORKFLOW, {
      taskQueue: stack.taskQueue,
      workflowId: workflowIdFor('hd-order'),
      args: [{ message: 'first', cwd: ws, busyPolicy: 'queue' }],
      signal: 'userMessage',
      signalArgs: [{ text: 'second', id: 'second' }],
    });
    await eventually(async () => (await stack.transcript('hd-order')).filter((m) => m.role === 'user').length === 2);
    const users = (await stack.transcript('hd-order')).filter((m) => m.role === 'user').map((m) => m.content);
    assert.deepEqual(users, ['first', 'second']);
  });

  it('`temporal workflow cancel` closes the session row (15)', async () => {
    stack.fake.script([{ text: 'hi' }]);
    const conv = stack.herald.conversation('hd-cancel');
    await conv.send('hello', { start: { cwd: ws } });
    await handleOf('hd-cancel').cancel();
    await assert.rejects(handleOf('hd-cancel').result());
    await eventually(async () => (await sessionRow('hd-cancel'))?.ended_at);
  });

  it('/stop cancels a manual compression (15)', async () => {
    stack.fake.respond((req) => (isSummaryCall(req) ? { text: 'SUMMARY', delayMs: 20_000 } : { text: wordy('ok') }));
    const conv = stack.herald.conversation('hd-stop-compress');
    for (const t of ['one', 'two', 'three', 'four', 'five', 'six']) await conv.send(t, { start: { cwd: ws } });
    const compressing = conv.compress();
    await eventually(async () => (await conv.state()).status === 'compressing');
    const stoppedAt = Date.now();
    await conv.stop();
    const r = await compressing;
    assert.equal(r.compressed, false);
    assert.match(r.message, /compression stopped/);
    assert.ok(Date.now() - stoppedAt < 10_000);
    await noWedge('hd-stop-compress');
  });
});
