/**
 * Confined workspaces, end to end (sandbox on, approvals off): a caller cannot widen the boundary
 * through `cwd`. Every folder class the worker depends on is refused with InvalidInput naming
 * `cwd` and the roots, before any activity touches it; the worker goes on serving; a resumed
 * session's stored folder and a workspace swapped for a symlink after the start are decided again.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

describe('confined workspaces', () => {
  let stack: TestStack;
  let ws: string;
  let n = 0;

  before(async () => {
    stack = await createTestStack({ configYaml: 'approvals:\n  mode: "off"\n' });
    ws = join(stack.workspaces, 'project');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'notes.txt'), 'hello\n');
    mkdirSync(join(stack.home, 'temporal'), { recursive: true });
    symlinkSync('/etc', join(stack.workspaces, 'to-etc'));
    symlinkSync(homedir(), join(stack.workspaces, 'to-home'));
    symlinkSync(stack.home, join(stack.workspaces, 'to-herald-home'));
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  /** Start a conversation with this cwd; it must fail InvalidInput naming cwd and the roots, with nothing run. */
  async function refused(cwd: string, why?: RegExp): Promise<string> {
    const id = `cwd-attack-${++n}`;
    stack.fake.script([{ toolCalls: [{ name: 'terminal', arguments: { command: 'touch pwned' } }] }, { text: 'x' }]);
    const handle = await stack.temporal.workflow.start('conversation', {
      taskQueue: stack.taskQueue,
      workflowId: `session-${id}`,
      args: [{ message: 'go', cwd }],
    });
    const err = await handle.result().then(
      () => assert.fail(`cwd ${JSON.stringify(cwd.slice(0, 80))} was accepted`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowFailedError, String(err));
    const cause = err.cause as { type?: string; message?: string };
    assert.equal(cause.type, 'InvalidInput', cause.message);
    assert.match(cause.message ?? '', /cwd/);
    if (why) assert.match(cause.message ?? '', why);
    assert.equal(stack.fake.requests.length, 0, 'no model call was made');
    const rows = await stack.db.query('SELECT 1 FROM sessions WHERE id = $1', [id]);
    assert.equal(rows.rows.length, 0, 'no session was created');
    stack.fake.reset();
    return cause.message ?? '';
  }

  it('refuses every folder the worker depends on, naming cwd and the roots, before anything runs', async () => {
    const runtime = readdirSync(tmpdir())
      .filter((d) => /^herald-sandbox-[A-Za-z0-9]{6}$/.test(d))
      .map((d) => join(tmpdir(), d));
    assert.ok(runtime.length > 0, 'the sandbox keeps a runtime folder');
    const cases: Array<[string, RegExp]> = [
      ['/var/run/postgresql', /refused|no such directory/],
      ['/run', /runtime sockets/],
      [homedir(), /worker’s home/],
      [dirname(PROJECT_ROOT), /holds .*Herald’s own install/],
      [PROJECT_ROOT, /Herald’s own install/],
      [join(PROJECT_ROOT, 'workers'), /Herald’s own install/],
      [stack.home, /Herald home/],
      [join(stack.home, 'temporal'), /Herald home/],
      [runtime[0]!, /sandbox/],
      ['/proc', /process table/],
      ['/', /whole file system/],
      ['/sys', /refused/],
      ['/dev', /refused/],
      ['/etc', /refused/],
    ];
    for (const [cwd, why] of cases) {
      const message = await refused(cwd, why);
      assert.ok(message.includes(stack.workspaces), `the roots are listed: ${message}`);
    }
  });

  it('the worker serves the next conversation right after a cwd=/proc attempt, in a workspace inside its root', async () => {
    await refused('/proc');
    await refused('/proc/self/root');
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'pwd && cat notes.txt && touch made-here' } }] },
      { text: 'done' },
    ]);
    const r = await stack.herald.conversation('cwd-good').send('go', { start: { cwd: ws } });
    assert.equal(r.final_response, 'done');
    assert.ok(existsSync(join(ws, 'made-here')));
    const tool = (await stack.transcript('cwd-good')).find((m) => m.role === 'tool');
    assert.match(String(tool?.content), /hello/);
  });

  it('refuses an attack corpus of other folders a caller may name', async () => {
    const corpus: Array<[string, RegExp?]> = [
      ['/root'],
      ['/home'],
      ...readdirSync('/home').map((h): [string] => [join('/home', h)]),
      ['/var/lib/postgresql'],
      ['/var/spool/cron'],
      ['/var/log'],
      ['/usr/bin', /refused/],
      ['/boot'],
      ['/dev/shm', /refused/],
      ['/proc/1/cwd'],
      [tmpdir(), /refused/],
      [join(homedir(), '.config', 'temporalio')],
      [join(homedir(), '.config')],
      [join(homedir(), '.local', 'share')],
      [join(homedir(), '.cache')],
      [join(homedir(), '.ssh')],
      [join(PROJECT_ROOT, 'node_modules'), /refused/],
      [join(PROJECT_ROOT, 'node_modules', 'zod')],
      [join(stack.workspaces, 'to-etc'), /\/etc is refused/],
      [join(stack.workspaces, 'to-home'), /refused/],
      [join(stack.workspaces, 'to-herald-home'), /Herald home/],
      [`${stack.workspaces}/..`, /refused|outside/],
      [`${ws}/../../..`, /refused|outside/],
      [`${stack.workspaces}/to-etc/..`, /whole file system/],
      ['../../etc', /refused|outside|no such directory/],
      [`${ws}\u0000/../../etc`, /control characters/],
      [`${ws}/${'a'.repeat(4_100)}`, /too long/],
      ['/nonexistent/folder', /no such directory/],
    ];
    for (const [cwd, why] of corpus) await refused(cwd, why);
  });

  it('a bind mount of the worker’s node_modules inside a root is refused, and so is a folder holding a bind of /etc', async (t) => {
    const nm = join(stack.workspaces, 'nm');
    const conf = join(stack.workspaces, 'holder', 'conf');
    mkdirSync(nm);
    mkdirSync(conf, { recursive: true });
    const mounted: string[] = [];
    try {
      for (const [from, to] of [
        [realpathSync(join(PROJECT_ROOT, 'node_modules')), nm],
        ['/etc', conf],
      ] as const) {
        try {
          execFileSync('mount', ['--bind', from, to], { stdio: 'ignore' });
          mounted.push(to);
        } catch {
          t.skip('bind mounts are not allowed here');
          return;
        }
      }
      await refused(nm, /node_modules mounted again/);
      await refused(join(nm, 'zod'), /node_modules\/zod mounted again/);
      await refused(join(stack.workspaces, 'holder'), /a mount of \/etc/);
    } finally {
      for (const m of mounted.reverse()) execFileSync('umount', [m]);
    }
  });

  it('a resumed session whose stored workspace is no longer allowed is refused', async () => {
    stack.fake.script([{ text: 'first' }]);
    const conv = stack.herald.conversation('cwd-resume');
    assert.equal((await conv.send('hi', { start: { cwd: ws } })).final_response, 'first');
    await conv.end();
    await stack.temporal.workflow.getHandle(conv.workflowId).result();
    // A row written before the roots (or by a worker with other roots).
    await stack.db.query(`UPDATE sessions SET cwd = '/etc' WHERE id = 'cwd-resume'`);
    stack.fake.reset();
    const handle = await stack.temporal.workflow.start('conversation', {
      taskQueue: stack.taskQueue,
      workflowId: 'session-cwd-resume-again',
      args: [{ sessionId: 'cwd-resume', message: 'again' }],
    });
    const err = await handle.result().then(
      () => assert.fail('resumed'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowFailedError);
    assert.equal((err.cause as { type?: string }).type, 'InvalidInput');
    assert.match(err.cause?.message ?? '', /cwd: \/etc is refused/);
    assert.equal(stack.fake.requests.length, 0);
  });

  it('the tool activity decides the workspace again: a folder swapped for a symlink to /etc after the start is refused', async () => {
    const swapped = join(stack.workspaces, 'swapped');
    mkdirSync(swapped);
    stack.fake.script([{ text: 'ready' }]);
    const conv = stack.herald.conversation('cwd-swap');
    assert.equal((await conv.send('hi', { start: { cwd: swapped } })).final_response, 'ready');
    rmSync(swapped, { recursive: true });
    symlinkSync('/etc', swapped);
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'touch /etc/herald-pwned; ls' } }] },
      { text: 'refused' },
    ]);
    assert.equal((await conv.send('again')).final_response, 'refused');
    const tool = (await stack.transcript('cwd-swap')).filter((m) => m.role === 'tool').pop();
    assert.match(String(tool?.content), /Refused by this worker: cwd: \/etc is refused/);
    assert.equal(existsSync('/etc/herald-pwned'), false);
    await conv.end();
  });
});
