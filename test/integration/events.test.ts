/**
 * The event side channel: clients attach mid-turn and see the rest of the stream, attach after
 * the turn and get it replayed, and a retried model call's partial output is reset, not
 * duplicated.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { StoredEvent } from '../../client/events.js';
import { ReplyAssembler } from '../../client/reply-assembler.js';
import { lastEventSeq, pruneEvents } from '../../store/events.js';
import { spawnHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';
import { variedText } from '../support/varied-text.js';

const LONG_REPLY = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen.';

describe('events', () => {
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

  it('shows the rest of the stream to a client attached mid-turn, and replays it after', async () => {
    stack.fake.script([{ text: LONG_REPLY, chunkDelayMs: 60 }]);
    const conv = stack.herald.conversation('watch-mid');
    const pending = conv.send('count', { start: {} });
    await eventually(async () => (await stack.events('watch-mid')).some((e) => e.kind === 'text.delta'));

    const from = await lastEventSeq(stack.db, 'watch-mid');
    const seen: StoredEvent[] = [];
    const watch = await conv.watch((e) => seen.push(e), from);
    const result = await pending;
    await eventually(() => seen.some((e) => e.kind === 'turn.ended'));
    await watch.stop();

    const live = seen
      .filter((e) => e.kind === 'text.delta')
      .map((e) => e.payload.text as string)
      .join('');
    assert.ok(
      live.length > 0 && live.length < LONG_REPLY.length,
      `expected only the rest of the stream, got ${JSON.stringify(live)}`,
    );
    assert.ok(LONG_REPLY.endsWith(live));
    assert.ok(seen.every((e) => e.seq > from));
    assert.deepEqual(
      (seen.find((e) => e.kind === 'turn.ended')!.payload.result as { final_response: string }).final_response,
      result.final_response,
    );

    // Attached after the turn, `herald watch --from 0 --json` replays it all, in order.
    const cli = spawnHerald(['watch', 'watch-mid', '--from', '0', '--json'], { ...stack.workerEnv() });
    await cli.waitFor('"turn.ended"');
    cli.kill('SIGTERM');
    await cli.exited;
    const replayed = cli
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as StoredEvent);
    assert.deepEqual(
      replayed.map((e) => e.seq),
      replayed.map((_, i) => i + 1),
    );
    assert.equal(
      replayed
        .filter((e) => e.kind === 'text.delta')
        .map((e) => e.payload.text as string)
        .join(''),
      LONG_REPLY,
    );
  });

  it('batches a fast stream instead of writing one row per token', async () => {
    const text = variedText(4000);
    stack.fake.script([{ text }]);
    await stack.herald.conversation('batched').send('go', { start: {} });
    const deltas = (await stack.events('batched')).filter((e) => e.kind === 'text.delta');
    assert.equal(deltas.map((e) => e.payload.text as string).join(''), text);
    assert.ok(deltas.length <= 20, `${deltas.length} delta rows for 500 stream chunks`);
  });

  it('publishes the first delta of a stream at once, as its own event, and batches the rest', async () => {
    // 8 chunks of 5 characters, 10 ms apart: inside one 40 ms batch interval after the first.
    const text = 'Hello, world, streamed fast to all.....';
    stack.fake.script([{ text, chunkChars: 5, chunkDelayMs: 10 }]);
    const conv = stack.herald.conversation('first-token');
    const seen: StoredEvent[] = [];
    const watch = await conv.watch((e) => seen.push(e));
    await conv.send('go', { start: {} });
    await eventually(() => seen.some((e) => e.kind === 'turn.ended'));
    await watch.stop();
    const deltas = seen.filter((e) => e.kind === 'text.delta').map((e) => e.payload.text as string);
    assert.equal(deltas.join(''), text);
    // The first chunk was not held for the batch timer (it would have carried the next chunks too).
    assert.equal(deltas[0], 'Hello');
    assert.ok(deltas.length < 8, `${deltas.length} delta events for 8 chunks: the rest were not batched`);
  });

  it('publishes the first delta after a pause at once too', async () => {
    // Chunks 80 ms apart: each one arrives after a quiet interval, so none waits for the timer.
    stack.fake.script([{ text: 'aaaabbbbcccc', chunkChars: 4, chunkDelayMs: 80 }]);
    const seen: StoredEvent[] = [];
    const conv = stack.herald.conversation('after-pause');
    const watch = await conv.watch((e) => seen.push(e));
    await conv.send('go', { start: {} });
    await eventually(() => seen.some((e) => e.kind === 'turn.ended'));
    await watch.stop();
    const deltas = seen.filter((e) => e.kind === 'text.delta').map((e) => e.payload.text as string);
    assert.deepEqual(deltas, ['aaaa', 'bbbb', 'cccc']);
  });

  it('emits a reset when a model call is retried after partial output, so the final text is not duplicated', async () => {
    stack.fake.script([
      { text: 'Partial answer that gets cut', cutAfterChunks: 3, chunkDelayMs: 20 },
      { text: 'The complete answer.' },
    ]);
    const conv = stack.herald.conversation('reset');
    const r = await conv.send('answer', { start: {} });
    assert.equal(r.final_response, 'The complete answer.');
    const events = await stack.events('reset');
    const kinds = events.map((e) => e.kind);
    const resetAt = kinds.indexOf('stream.reset');
    assert.ok(resetAt > 0, 'no stream.reset event');
    assert.ok(kinds.slice(0, resetAt).includes('text.delta'), 'the first attempt streamed nothing before the cut');
    const assembler = new ReplyAssembler();
    for (const e of events) assembler.apply(e);
    assert.equal(assembler.lastText('reset:1'), 'The complete answer.');
    // A naive concatenation would have duplicated the partial text.
    const naive = events
      .filter((e) => e.kind === 'text.delta')
      .map((e) => e.payload.text as string)
      .join('');
    assert.notEqual(naive, 'The complete answer.');
    // The ledger has both attempts; the transcript only the answer.
    const calls = await stack.db.query(
      "SELECT attempt, outcome, error_type FROM model_calls WHERE session_id = 'reset' ORDER BY attempt",
    );
    assert.deepEqual(calls.rows, [
      { attempt: 1, outcome: 'error', error_type: 'server_error' },
      { attempt: 2, outcome: 'ok', error_type: null },
    ]);
    assert.deepEqual(
      (await stack.transcript('reset')).map((m) => m.content),
      ['answer', 'The complete answer.'],
    );
  });

  it('prunes events past their retention, keeping the sequence for new ones', async () => {
    stack.fake.script([{ text: 'old' }, { text: 'new' }]);
    const conv = stack.herald.conversation('pruned');
    await conv.send('first', { start: {} });
    const before = await stack.events('pruned');
    await stack.db.query("UPDATE events SET created_at = now() - interval '10 days' WHERE conversation_id = 'pruned'");
    const removed = await pruneEvents(stack.db, 7 * 86_400_000);
    assert.ok(removed >= before.length);
    assert.equal((await stack.events('pruned')).length, 0);
    await conv.send('second');
    const after = await stack.events('pruned');
    assert.ok(after[0]!.seq > before.at(-1)!.seq, 'sequence numbers are never reused');
    // The transcript is not affected.
    assert.equal((await stack.transcript('pruned')).length, 4);
  });
});
