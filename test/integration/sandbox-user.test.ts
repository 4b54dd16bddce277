/**
 * The sandbox user and the workspace cap, end to end with approvals off (docs/sandbox-user.md):
 * what a sandboxed command leaves in the workspace is never root's and never privileged, the
 * worker's file tools and the sandbox keep sharing the workspace, nothing the sandbox can reach
 * changes a later call, preparing the sandbox in a folder where the filesystem lies fails cleanly,
 * and a workspace cannot grow past its disk cap.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolSandbox } from '../../sandbox/sandbox.js';
import { sandboxIdentity } from '../../sandbox/sandbox-user.js';
import { terminalTool } from '../../activities/tools/terminal.js';
import { sandboxConfigSchema } from '../../common/sandbox-policy.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';
import { variedText } from '../support/varied-text.js';

const isRoot = process.getuid?.() === 0;
/** Who the sandbox runs as on the host: the sandbox user for a root worker, else the worker itself. */
const expected = (() => {
  if (!isRoot) return { uid: process.getuid!(), gid: process.getgid!() };
  const id = sandboxIdentity();
  assert.ok(id.ok, 'a sandbox user is available');
  return { uid: id.identity.uid, gid: id.identity.gid };
})();

/** Every entry under a folder (no symlinks followed), with its lstat. */
function entries(dir: string, out: Array<[string, Stats]> = []): Array<[string, Stats]> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    out.push([p, st]);
    if (st.isDirectory()) entries(p, out);
  }
  return out;
}

describe('the sandbox user and the workspace cap', () => {
  let stack: TestStack;
  let root: string;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'herald-sbx-user-'));
    stack = await createTestStack({
      workspaceRoots: [root],
      configYaml: [
        'approvals:',
        '  mode: "off"',
        'sandbox:',
        '  mode: required',
        '  limits:',
        '    workspaceMb: 64',
        '',
      ].join('\n'),
    });
  });

  after(async () => {
    await stack?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const workspace = (name: string) => {
    const ws = join(root, name);
    execFileSync('git', ['init', '-q', ws]);
    return ws;
  };

  /** One conversation turn in which the model makes these tool calls, then says done. */
  async function run(id: string, ws: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>) {
    stack.fake.script([{ text: 'Working.', toolCalls: calls }, { text: 'Done.' }]);
    const result = await stack.herald.conversation(id).send('go', { id: `${id}-1`, start: { cwd: ws } });
    assert.equal(result.completed, true, JSON.stringify(result));
    const tools = (await stack.transcript(id)).filter((m) => m.role === 'tool');
    assert.equal(tools.length, calls.length);
    return tools.map((t) => t.content ?? '');
  }
  const sh = (command: string) => ({ name: 'terminal', arguments: { command, timeout: 30 } });

  it('leaves no setuid, setgid or root-owned file on the host after chmod 4755, chmod u+s or chown root', async () => {
    const ws = workspace('suid');
    const out = await run('sbx-suid', ws, [
      sh('cp /bin/sh x && chmod 4755 x; chmod u+s x; chmod g+s x; echo "mode $(stat -c %a x)"'),
      sh(
        `python3 -c "import os; os.close(os.open('y', os.O_CREAT|os.O_WRONLY, 0o6755))"; touch z; chown 0:0 z; chgrp 0 z; stat -c '%u:%g' y z`,
      ),
      sh('id -u; id -G'),
    ]);
    assert.match(out[0]!, /chmod: changing permissions of 'x': Operation not permitted/);
    assert.match(out[0]!, /mode 755/);
    assert.match(out[1]!, /Operation not permitted/);
    assert.match(out[2]!, new RegExp(`^${isRoot ? expected.uid : 65534}\\n`));
    for (const [p, st] of entries(ws)) {
      if (st.isSymbolicLink()) continue;
      assert.equal(st.mode & 0o6000 && st.isFile() ? p : '', '', `no setuid/setgid file: ${p}`);
    }
    assert.equal(existsSync(join(ws, 'y')), false, 'a file created setuid is refused outright');
    for (const f of ['x', 'z']) {
      const st = statSync(join(ws, f));
      assert.equal(st.uid, expected.uid, `${f} is the sandbox user's on the host`);
      assert.notEqual(st.uid, 0);
      assert.notEqual(st.gid, 0);
      assert.equal(st.mode & 0o6000, 0);
    }
  });

  it('shares the workspace both ways: the worker’s file tools edit what the sandbox wrote, the sandbox edits and runs what they wrote', async () => {
    const ws = workspace('share');
    const out = await run('sbx-share', ws, [
      sh('mkdir -p src && printf "made by the sandbox\\n" > src/made.txt && echo ok'),
      { name: 'patch', arguments: { path: 'src/made.txt', old_string: 'made by', new_string: 'patched after' } },
      { name: 'write_file', arguments: { path: 'tools/run.sh', content: 'echo the script ran\n' } },
      sh(
        'chmod +x tools/run.sh && ./tools/run.sh && cat src/made.txt && echo more >> tools/run.sh && rm -r tools && echo removed',
      ),
      sh('git add -A && git -c user.name=a -c user.email=a@b commit -qm one && git log --oneline | wc -l'),
    ]);
    assert.match(out[0]!, /^ok/);
    assert.match(out[1]!, /Replaced 1 occurrence/);
    assert.match(out[2]!, /Wrote/);
    assert.match(out[3]!, /the script ran\npatched after the sandbox\nremoved/);
    assert.match(out[4]!, /^1\n/);
    const made = statSync(join(ws, 'src'));
    assert.equal(made.uid, expected.uid, 'a folder the sandbox made is the sandbox user’s');
    if (isRoot) {
      // The user's own git on the host still trusts the repository: its folder and .git keep their owner.
      assert.equal(statSync(ws).uid, 0);
      assert.equal(statSync(join(ws, '.git')).uid, 0);
      assert.equal(
        execFileSync('git', ['-C', ws, 'log', '--oneline']).toString().split('\n').filter(Boolean).length,
        1,
      );
    }
  });

  it('is not changed by anything written where its runtime files used to be, nor follows a planted symlink', async () => {
    const config = sandboxConfigSchema.parse({ mode: 'required' });
    const sandbox = ToolSandbox.create({ config, env: process.env, hidden: [stack.home] });
    assert.equal(sandbox.status.active, true, sandbox.status.reason);
    const runtimeDir = (sandbox as unknown as { machine: { runtimeDir: string } }).machine.runtimeDir;
    // An allow-all filter (one instruction: RET ALLOW), and the names the worker once read, in its runtime folder.
    const allowAll = Buffer.from([0x06, 0, 0, 0, 0, 0, 0xff, 0x7f]);
    for (const name of ['seccomp.bpf', 'bridge.cjs', 'gitconfig']) writeFileSync(join(runtimeDir, name), allowAll);
    const ws = workspace('runtime');
    const tool = terminalTool({ timeoutSeconds: 20, maxOutputChars: 100_000 });
    const ctx = { cwd: ws, signal: new AbortController().signal, heartbeat: () => {}, sandbox };
    const plant = await tool.handler(
      { command: 'ln -s /etc/hostname h; ln -s / up; mkdir d; ln -s /etc d/etc; echo planted' },
      ctx,
    );
    assert.match(plant.content, /planted/);
    const hostname = statSync('/etc/hostname');
    const r = await tool.handler({ command: 'cp /bin/sh x; chmod 4755 x; stat -c %a x; unshare -U true' }, ctx);
    assert.match(r.content, /Operation not permitted/);
    assert.match(r.content, /^.*\n?755/m);
    assert.equal(statSync(join(ws, 'x')).mode & 0o6000, 0);
    // The walk that hands the workspace to the sandbox user followed none of the links.
    const now = statSync('/etc/hostname');
    assert.deepEqual([now.uid, now.gid, now.mode], [hostname.uid, hostname.gid, hostname.mode]);
    assert.equal(statSync('/etc').uid, 0);
    assert.equal(statSync('/').uid, 0);
  });

  it('fails cleanly, in bounded time, when asked to prepare in /proc, /sys or /dev, and serves the next conversation', async () => {
    const config = sandboxConfigSchema.parse({ mode: 'required' });
    const sandbox = ToolSandbox.create({ config, env: process.env, hidden: [stack.home] });
    for (const dir of ['/proc', '/proc/self', '/sys/kernel', '/dev']) {
      if (!existsSync(dir)) continue;
      const started = Date.now();
      const prepared = await sandbox.prepare({ command: 'true', workspace: dir });
      if (prepared.ok) await prepared.process.finish(undefined);
      assert.ok(Date.now() - started < 20_000, `${dir} took ${Date.now() - started} ms`);
      if (!prepared.ok) assert.match(prepared.error, /^Refused: /);
    }
    // A conversation whose cwd is /proc: refused at the start, or its tool call fails; either way the worker goes on.
    stack.fake.script([{ text: 'Trying.', toolCalls: [sh('echo inside')] }, { text: 'Tried.' }]);
    await stack.herald
      .conversation('sbx-proc')
      .send('go', { id: 'proc-1', start: { cwd: '/proc' } })
      .catch((err: Error) => assert.match(err.message, /cwd|InvalidInput|workspace/i));
    // Refused at the start, its scripted replies were never asked for.
    stack.fake.reset();
    const ws = workspace('after-proc');
    const out = await run('sbx-after-proc', ws, [sh('echo still serving')]);
    assert.match(out[0]!, /still serving/);
  });

  it('holds the workspace to its disk cap: a file stops at the room left, a command going over is stopped, then only deleting works; file tools refuse too', async () => {
    const ws = workspace('cap');
    const out = await run('sbx-cap', ws, [
      sh('head -c 70000000 /dev/zero > one; ls -l one | cut -d" " -f5; rm -f one'),
      sh('head -c 40000000 /dev/zero > a; sleep 1; head -c 40000000 /dev/zero > b; sleep 3; echo not stopped'),
      sh('echo more > small.txt'),
      { name: 'write_file', arguments: { path: 'notes.txt', content: variedText(200_000) } },
      sh('rm -f a b; echo freed'),
      { name: 'write_file', arguments: { path: 'notes.txt', content: 'fits now\n' } },
    ]);
    // One file: cut at the room left under the cap, with the cap named.
    assert.match(out[0]!, /File size limit exceeded|File too large/);
    assert.match(out[0]!, /the workspace reached its disk cap of 64 MB \(sandbox\.limits\.workspaceMb/);
    // Many files: the command is stopped once the workspace is over.
    assert.match(out[1]!, /stopped the command: the workspace went over its disk cap of 64 MB/);
    assert.doesNotMatch(out[1]!, /not stopped/);
    // Over the cap, nothing more is written, by commands or file tools, until files are deleted.
    assert.match(out[2]!, /over its disk cap of 64 MB \(sandbox\.limits\.workspaceMb\): nothing can be written/);
    assert.match(out[3]!, /Refused: writing \d+ bytes would take the workspace over its disk cap of 64 MB/);
    assert.match(out[4]!, /freed/);
    assert.match(out[5]!, /Wrote 9 bytes/);
    let bytes = 0;
    for (const [, st] of entries(ws)) bytes += st.blocks * 512;
    assert.ok(bytes < 64 * 1024 * 1024, `workspace holds ${bytes} bytes`);
  });
});
