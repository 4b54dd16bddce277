/** The event publisher's batching (activities/events/publisher.ts), against a stand-in pool. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventPublisher } from '../../activities/events/publisher.js';
import type { Db } from '../../store/db.js';

/** A pool that records each appendEvents statement's kinds; with `held`, answers only on release(). */
function fakeDb(held = false) {
  let release = () => {};
  const db = {
    /** Let the statements in flight answer (and the ones after them not wait). */
    release() {
      held = false;
      release();
    },
    statements: [] as string[][],
    texts: [] as string[],
    async query(_sql: string, params: unknown[]) {
      const kinds = params[2] as string[];
      const payloads = (params[4] as string[]).map((p) => JSON.parse(p) as { text?: string });
      db.statements.push(kinds);
      for (const p of payloads) if (p.text) db.texts.push(p.text);
      if (held) await new Promise<void>((r) => (release = r));
      return { rows: [{ last_seq: String(db.statements.flat().length) }] };
    },
  };
  return db;
}

const log = { warn() {} };

describe('EventPublisher', () => {
  it('writes what one tick queues as one statement, in order', async () => {
    const db = fakeDb();
    const pub = new EventPublisher(db as unknown as Db, 'c1', 't1', log);
    pub.emit('tool.started', { name: 'read_file' });
    pub.emit('status', { text: 'reading' });
    pub.emit('tool.completed', { name: 'read_file' });
    await pub.flush();
    assert.deepEqual(db.statements, [['tool.started', 'status', 'tool.completed']]);
  });

  it('sends the first delta of a call at once, not after the batching interval', async (t) => {
    // The clock is mocked (no timed assertion): what counts is that the first delta is written in
    // the same turn of the event loop, and the next ones only when the interval's timer fires.
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    const db = fakeDb();
    const pub = new EventPublisher(db as unknown as Db, 'c1', 't1', log);
    pub.textDelta('Hel');
    await new Promise<void>((r) => setImmediate(r));
    assert.deepEqual(db.statements, [['text.delta']], 'written within the same turn of the event loop');
    pub.textDelta('lo');
    pub.textDelta(' world');
    await new Promise<void>((r) => setImmediate(r));
    assert.equal(db.statements.length, 1, 'later deltas wait for the interval');
    t.mock.timers.tick(40);
    await new Promise<void>((r) => setImmediate(r));
    assert.equal(db.statements.length, 2, 'and go out when it ends');
    await pub.flush();
    assert.deepEqual(db.texts, ['Hel', 'lo world']);
  });

  it('coalesces what queues while a write is in flight into one statement after it', async () => {
    const db = fakeDb(true);
    const pub = new EventPublisher(db as unknown as Db, 'c1', 't1', log);
    pub.emit('step', { n: 1 });
    await new Promise<void>((r) => setImmediate(r)); // the first write is now in flight
    pub.emit('tool.started');
    await new Promise<void>((r) => setImmediate(r));
    pub.emit('tool.completed');
    await new Promise<void>((r) => setImmediate(r));
    pub.emit('step', { n: 2 });
    const flushed = pub.flush();
    db.release();
    await flushed;
    assert.deepEqual(db.statements, [['step'], ['tool.started', 'tool.completed', 'step']]);
  });

  it('keeps deltas and events in order, and a flush waits for everything queued', async () => {
    const db = fakeDb();
    const pub = new EventPublisher(db as unknown as Db, 'c1', 't1', log);
    pub.textDelta('a');
    pub.reasoningDelta('r');
    pub.textDelta('b');
    pub.emit('turn.ended');
    await pub.flush();
    assert.deepEqual(db.statements.flat(), ['text.delta', 'reasoning.delta', 'text.delta', 'turn.ended']);
    assert.deepEqual(db.texts, ['a', 'r', 'b']);
  });
});
