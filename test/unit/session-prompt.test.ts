/** The per-database cache of a session's system prompt and marker nonce (store/sessions.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../store/db.js';
import { sessionMarkerNonce, sessionPrompt } from '../../store/sessions.js';

/** A stand-in pool holding session rows; counts the statements it is sent. */
function fakeDb(rows: Record<string, { system_prompt: string | null; marker_nonce: string | null }>) {
  const db = {
    queries: 0,
    query(_sql: string, [id, nonce]: [string, string]) {
      db.queries++;
      const row = rows[id];
      if (!row) return Promise.resolve({ rows: [] });
      row.marker_nonce ??= nonce;
      return Promise.resolve({ rows: [{ ...row }] });
    },
  };
  return db;
}

describe('sessionPrompt', () => {
  it('reads a session once per database, prompt and nonce in one statement', async () => {
    const db = fakeDb({ s1: { system_prompt: 'You are Herald.', marker_nonce: 'abc' } });
    const first = await sessionPrompt(db as unknown as Db, 's1');
    assert.deepEqual(first, { systemPrompt: 'You are Herald.', nonce: 'abc' });
    assert.deepEqual(await sessionPrompt(db as unknown as Db, 's1'), first);
    assert.equal(await sessionMarkerNonce(db as unknown as Db, 's1'), 'abc');
    assert.equal(db.queries, 1);
    // Another database with the same session id has its own row: never the first one's.
    const other = fakeDb({ s1: { system_prompt: 'Another prompt.', marker_nonce: 'def' } });
    assert.deepEqual(await sessionPrompt(other as unknown as Db, 's1'), {
      systemPrompt: 'Another prompt.',
      nonce: 'def',
    });
  });
  it('gives an old session without a nonce one that then stays, and refuses a missing session uncached', async () => {
    const rows = { old: { system_prompt: null, marker_nonce: null } };
    const db = fakeDb(rows);
    const p = await sessionPrompt(db as unknown as Db, 'old');
    assert.match(p.nonce, /^[0-9a-f]{16}$/);
    assert.equal(p.systemPrompt, '');
    assert.equal(rows.old.marker_nonce, p.nonce);
    await assert.rejects(sessionPrompt(db as unknown as Db, 'nope'), /session nope does not exist/);
    await assert.rejects(sessionPrompt(db as unknown as Db, 'nope'), /does not exist/);
    assert.equal(db.queries, 3);
  });
  it('is bounded: the least recently used session is read again after many others', async () => {
    const rows: Record<string, { system_prompt: string; marker_nonce: string }> = {};
    for (let i = 0; i < 2_100; i++) rows[`s${i}`] = { system_prompt: `p${i}`, marker_nonce: `n${i}` };
    const db = fakeDb(rows);
    for (let i = 0; i < 2_100; i++) await sessionPrompt(db as unknown as Db, `s${i}`);
    assert.equal(db.queries, 2_100);
    await sessionPrompt(db as unknown as Db, 's2099');
    assert.equal(db.queries, 2_100, 'a recent one is still cached');
    await sessionPrompt(db as unknown as Db, 's0');
    assert.equal(db.queries, 2_101, 'the oldest was evicted');
  });
});
