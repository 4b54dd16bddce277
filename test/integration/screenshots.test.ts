/**
 * The README's pictures are taken by a test: the same scripts that wrote docs/images run here in
 * headless Chromium against real stacks, into a scratch folder, and fail when the REPL or the Web
 * UI no longer shows what the pictures promise (each script waits for the text it photographs).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../runtime/paths.js';

function runScript(script: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(PROJECT_ROOT, 'scripts', script), ...args],
      { cwd: PROJECT_ROOT, env: { ...process.env, NO_COLOR: undefined }, timeout: 240_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** A PNG, and not an empty page: a blank 1920×700 screenshot compresses to a few KB. */
function assertPicture(path: string): void {
  const size = statSync(path).size;
  assert.ok(size > 20_000, `${path} is only ${size} bytes`);
}

describe('README screenshots', () => {
  it('herald chat in tmux, photographed by headless Chromium', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'herald-shots-')), 'repl.png');
    const r = await runScript('repl-screenshot.ts', [out]);
    assert.equal(r.code, 0, r.output);
    assertPicture(out);
  });

  it('the Web UI list, the needs-you list, its column settings, and a conversation waiting for an approval', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-shots-'));
    const r = await runScript('screenshots.ts', [dir]);
    assert.equal(r.code, 0, r.output);
    for (const name of [
      'webui-list.png',
      'webui-needs-you.png',
      'webui-columns.png',
      'webui-details.png',
      'webui-history.png',
    ])
      assertPicture(join(dir, name));
  });
});
