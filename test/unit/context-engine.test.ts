import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultEngine, loadEngine } from '../../activities/context-engine.js';
import { DEFAULT_COMPRESSION } from '../../common/context-window.js';

describe('loadEngine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-engine-'));

  it('gives the built-in engine for "default"', async () => {
    assert.equal(await loadEngine('default', dir), defaultEngine);
  });

  it('loads a module relative to the config folder', async () => {
    writeFileSync(join(dir, 'mine.mjs'), "export default { name: 'mine', async compress() { return undefined; } };\n");
    const engine = await loadEngine('./mine.mjs', dir);
    assert.equal(engine.name, 'mine');
  });

  it('says what is wrong with a module that is not an engine', async () => {
    writeFileSync(join(dir, 'bad.mjs'), 'export const compress = () => {};\n');
    await assert.rejects(loadEngine('./bad.mjs', dir), /must export a default object with compress\(\)/);
    await assert.rejects(loadEngine('./missing.mjs', dir), /Cannot find module|ERR_MODULE_NOT_FOUND/);
  });
});

describe('defaultEngine', () => {
  const settings = DEFAULT_COMPRESSION;
  const msg = (seq: number, role: 'user' | 'assistant', content: string) => ({ seq, role, content, tokens: 500 });

  it('keeps head and tail, summarises the middle, and falls back to a mechanical summary', async () => {
    const transcript = Array.from({ length: 40 }, (_, i) => msg(i, i % 2 ? 'assistant' : 'user', `message ${i}`));
    const out = await defaultEngine.compress({
      transcript,
      window: 16_000,
      reason: 'preflight',
      firstCompression: true,
      todos: [],
      settings,
      summarise: () => Promise.reject(new Error('no model')),
      log: { warn: () => {} },
    });
    assert.ok(out);
    assert.equal(out.fallbackSummary, true);
    assert.equal(out.messages[0]!.content, 'message 0');
    assert.ok(out.messages.length < transcript.length);
    assert.ok(out.messages.some((m) => m.content?.includes('CONTEXT SUMMARY')));
    assert.equal(out.messages.at(-1)!.content, 'message 39');
  });

  it('does nothing for a transcript with no middle', async () => {
    const out = await defaultEngine.compress({
      transcript: [msg(0, 'user', 'hi'), msg(1, 'assistant', 'hello')],
      window: 16_000,
      reason: 'preflight',
      firstCompression: true,
      todos: [],
      settings,
      summarise: () => Promise.resolve('never'),
      log: { warn: () => {} },
    });
    assert.equal(out, undefined);
  });
});

describe('a short transcript of big tool results still compresses (from Hermes’ tests)', () => {
  // 7 messages: a question and three reads of large files. The tail's 8-message floor used to hold
  // all of it, nothing was left to summarise, and the turn ended context_too_large.
  const big = (name: string) => `${name} line\n`.repeat(4_000);
  const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: '{}' } });
  const transcript = [
    { seq: 0, role: 'user' as const, content: 'compare the three logs', tokens: 10 },
    { seq: 1, role: 'assistant' as const, content: '', tool_calls: [call('a')], tokens: 20 },
    { seq: 2, role: 'tool' as const, tool_call_id: 'a', name: 'read_file', content: big('alpha'), tokens: 10_000 },
    { seq: 3, role: 'assistant' as const, content: '', tool_calls: [call('b')], tokens: 20 },
    { seq: 4, role: 'tool' as const, tool_call_id: 'b', name: 'read_file', content: big('beta'), tokens: 10_000 },
    { seq: 5, role: 'assistant' as const, content: '', tool_calls: [call('c')], tokens: 20 },
    { seq: 6, role: 'tool' as const, tool_call_id: 'c', name: 'read_file', content: big('gamma'), tokens: 10_000 },
  ];

  for (const reason of ['overflow', 'preflight'] as const) {
    it(`${reason}: the old results are cut to their ends, the newest to what fits, every pair kept`, async () => {
      const out = await defaultEngine.compress({
        transcript,
        window: 16_000,
        reason,
        firstCompression: true,
        todos: [],
        settings: DEFAULT_COMPRESSION,
        summarise: () => Promise.reject(new Error('not needed')),
        log: { warn: () => {} },
      });
      assert.ok(out, 'something to compress');
      assert.equal(out.messages.length, 7);
      const before = transcript.reduce((n, m) => n + (m.content?.length ?? 0), 0);
      const after = out.messages.reduce((n, m) => n + (m.content?.length ?? 0), 0);
      assert.ok(after < before / 4, `${after} of ${before} chars`);
      const results = out.messages.filter((m) => m.role === 'tool');
      assert.deepEqual(
        results.map((m) => m.tool_call_id),
        ['a', 'b', 'c'],
      );
      for (const r of results) {
        assert.match(r.content!, /characters of this tool result cut by Herald to fit the context window/);
        assert.ok(
          r.content!.startsWith(transcript.find((t) => t.tool_call_id === r.tool_call_id)!.content.slice(0, 50)),
        );
      }
      assert.equal(out.messages[0]!.content, 'compare the three logs');
    });
  }

  it('small tool results are left alone: nothing to do', async () => {
    const small = transcript.map((m) => (m.role === 'tool' ? { ...m, content: 'ok', tokens: 1 } : m));
    const out = await defaultEngine.compress({
      transcript: small,
      window: 16_000,
      reason: 'overflow',
      firstCompression: true,
      todos: [],
      settings: DEFAULT_COMPRESSION,
      summarise: () => Promise.reject(new Error('not needed')),
      log: { warn: () => {} },
    });
    assert.equal(out, undefined);
  });
});
