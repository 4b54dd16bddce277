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
