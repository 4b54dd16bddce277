/** Runaway loops in a local model's stream (model-adapters/runaway.ts). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RUNAWAY_WINDOW, RunawayWatch, isRunawayTail } from '../../model-adapters/runaway.js';
import { PROJECT_ROOT } from '../../runtime/paths.js';

const counting = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1)).join('\n');

/** Feed `text` in pieces of `size`; the number of characters fed when the watch tripped, if it did. */
function trippedAfter(text: string, size = 16, key = 'call 0'): number | undefined {
  const w = new RunawayWatch();
  for (let at = 0; at < text.length; at += size) if (w.feed(key, text.slice(at, at + size))) return at + size;
  return undefined;
}

describe('runaway loops', () => {
  it('cuts the counting loop Qwen2.5-Coder 1.5B wrote into write_file, a little past the window', () => {
    const args = JSON.stringify({ path: 'settings.ini', content: counting(3000) });
    const at = trippedAfter(args);
    assert.ok(at !== undefined && at <= RUNAWAY_WINDOW + 400, `tripped after ${at} of ${args.length} characters`);
  });

  it('cuts a literal loop of text, short or long units', () => {
    assert.ok(trippedAfter('max_connections = 320\n'.repeat(200), 8, 'text') !== undefined);
    assert.ok(trippedAfter('ha'.repeat(2000), 8, 'text') !== undefined);
    const paragraph = 'I will now read the file again to be sure of the value it holds. '.repeat(2); // 130 chars
    assert.ok(trippedAfter(paragraph.repeat(40), 8, 'text') !== undefined);
  });

  it('leaves ordinary output alone: code, prose, JSON and data of this repository, in every window', () => {
    const files = [
      'README.md',
      'docs/architecture.md',
      'activities/model/call-model.ts',
      'shared/config-schema.ts',
      'package-lock.json',
      'test/fixtures/commands/README.md',
    ];
    for (const f of files) {
      let text: string;
      try {
        text = readFileSync(join(PROJECT_ROOT, f), 'utf8');
      } catch {
        continue;
      }
      for (let end = RUNAWAY_WINDOW; end <= Math.min(text.length, 200_000); end += 97)
        assert.equal(isRunawayTail(text.slice(0, end)), false, `${f} up to ${end}`);
    }
  });

  it('needs the whole window: a few repeated lines, or a short stream, are not a loop', () => {
    assert.equal(isRunawayTail(counting(50)), false);
    assert.equal(isRunawayTail(`${'x'.repeat(10)}\n`.repeat(20)), false);
    assert.equal(trippedAfter(`intro\n${'- item\n'.repeat(30)}outro`), undefined);
  });

  it('cuts lines that differ only in their numbers (what the model wrote into a memory call), at a cost', () => {
    const listing = Array.from(
      { length: 200 },
      (_, i) => `MEMORY (${41 + i} of 2200 characters): ${i + 1}. I prefer tabs over spaces for indentation\n\n`,
    ).join('');
    assert.ok(trippedAfter(JSON.stringify({ action: 'add', match: listing })) !== undefined);
    // The cost, accepted for local servers: generated data that regular is cut too.
    const inserts = Array.from({ length: 100 }, (_, i) => `INSERT INTO t (id, n) VALUES (${i}, ${i * i});\n`).join('');
    assert.ok(trippedAfter(inserts) !== undefined);
  });

  it('watches each stream on its own and keeps only a bounded tail', () => {
    const w = new RunawayWatch();
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo'];
    // Two calls' arguments interleaved: each alone is ordinary.
    for (let i = 0; i < 400; i++) {
      assert.equal(
        w.feed('call 0', `${words[(i * 7) % 11]} ${words[(i * i) % 11]} of a report on ${i % 13} things\n`),
        false,
      );
      assert.equal(w.feed('call 1', `{"k${i}": "${(i * 31337).toString(36)}"}`), false);
    }
    assert.equal(w.tripped, undefined);
    for (let i = 0; i < 300; i++) w.feed('text', 'again and again. ');
    assert.equal(w.tripped, 'text');
  });
});
