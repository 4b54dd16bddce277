/**
 * `terminal`: shell commands in the workspace with their exit code, capped output, and a process
 * group that timeouts and /stop kill completely, background children included — the same inside
 * the sandbox (bubblewrap, `required`) and without it (`sandbox.mode: off`).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { ToolContext } from '../../activities/tools/registry.js';
import { terminalTool } from '../../activities/tools/terminal.js';
import { testSandbox } from '../support/tool-context.js';

for (const mode of ['required', 'off'] as const)
  describe(`terminal (sandbox ${mode})`, () => {
    let ws: string;
    before(() => {
      ws = realpathSync(mkdtempSync(join(tmpdir(), 'herald-term-')));
    });
    after(() => {
      rmSync(ws, { recursive: true, force: true });
    });

    const context = (signal = new AbortController().signal, env: NodeJS.ProcessEnv = process.env): ToolContext => ({
      cwd: ws,
      signal,
      heartbeat: () => {},
      sandbox: testSandbox({ mode, env: ['HERALD_UNIT_VAR'] }, env),
    });
    const tool = terminalTool({ timeoutSeconds: 30, maxOutputChars: 1000 });

    it('reports output and a zero exit code', async () => {
      const r = await tool.handler({ command: 'echo hello' }, context());
      assert.match(r.content, /^hello\n\[exit code 0, \d+\.\ds\]$/);
      assert.equal(r.isError, false);
    });

    it('reports a non-zero exit code as an error, with stdout and stderr', async () => {
      const r = await tool.handler({ command: 'echo out; echo err >&2; exit 3' }, context());
      assert.equal(r.isError, true);
      assert.match(r.content, /out\n/);
      assert.match(r.content, /err\n/);
      assert.match(r.content, /\[exit code 3, \d+\.\ds\]$/);
    });

    it('reports the exit code even when there is no output', async () => {
      const r = await tool.handler({ command: 'false' }, context());
      assert.match(r.content, /^\[exit code 1, \d+\.\ds\]$/);
    });

    it('runs in the workspace with the given environment', async () => {
      const r = await tool.handler(
        { command: 'pwd; echo "v=$HERALD_UNIT_VAR"' },
        context(undefined, { PATH: process.env.PATH, HERALD_UNIT_VAR: 'seen' }),
      );
      assert.ok(r.content.startsWith(`${ws}\nv=seen\n`), r.content);
    });

    it('returns long output whole, leaving storage and preview to the runtime at its configured size', async () => {
      const r = await tool.handler(
        { command: "printf START; head -c 20000 /dev/zero | tr '\\0' x; printf END" },
        context(),
      );
      assert.ok(r.content.startsWith('START'));
      assert.match(r.content, /END\n\[exit code 0/);
      assert.ok(r.content.length > 20_000, `content is ${r.content.length} characters`);
      // Over this, the tool runtime stores the result in the workspace and shows a preview.
      assert.equal(tool.maxResultChars, 1000);
    });

    it('kills a command that runs past its timeout, background children included', async () => {
      const marker = join(ws, 'timeout-marker');
      const quick = terminalTool({ timeoutSeconds: 0.3, maxOutputChars: 1000 });
      const started = Date.now();
      const r = await quick.handler({ command: `(sleep 0.8; touch ${marker}) & sleep 30` }, context());
      assert.ok(Date.now() - started < 3000, 'returned promptly');
      assert.equal(r.isError, true);
      assert.match(r.content, /\[killed after 0\.3s timeout, /);
      await sleep(1200);
      assert.equal(existsSync(marker), false, 'the background child was killed too');
    });

    it('uses the timeout argument over the default', () => {
      assert.equal(tool.timeoutSeconds!({ command: 'x', timeout: 5 }), 5);
      assert.equal(tool.timeoutSeconds!({ command: 'x' }), 30);
    });

    it('kills the whole process group when aborted, background child included', async () => {
      const marker = join(ws, 'abort-marker');
      const ac = new AbortController();
      const started = Date.now();
      const run = tool.handler({ command: `(sleep 2; touch ${marker}) & sleep 30` }, context(ac.signal));
      setTimeout(() => ac.abort(), 200);
      await assert.rejects(run);
      assert.ok(Date.now() - started < 2000, `abort took ${Date.now() - started} ms`);
      await sleep(2500);
      assert.equal(existsSync(marker), false, 'the background child was killed too');
    });

    it('describes itself for the batch planner', () => {
      assert.deepEqual(tool.traits, { readOnly: false, pathScoped: false, serial: true });
      assert.equal(tool.summarize!({ command: 'npm test\n  -- --watch' }), 'terminal: npm test -- --watch');
    });
  });
