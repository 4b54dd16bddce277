/** Who a root worker's tools run as, and the walk that hands them the workspace (docs/sandbox-user.md). */
import assert from 'node:assert/strict';
import { chmodSync, linkSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FIXED_SANDBOX_ID, sandboxIdentity } from '../../sandbox/sandbox-user.js';
import { seccompProgram } from '../../sandbox/seccomp.js';
import { walkWorkspace } from '../../sandbox/workspace-walk.js';

const root = mkdtempSync(join(tmpdir(), 'herald-sbx-unit-'));
after(() => rmSync(root, { recursive: true, force: true }));

function accounts(name: string, passwd: string, group: string) {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'passwd'), passwd);
  writeFileSync(join(dir, 'group'), group);
  return [join(dir, 'passwd'), join(dir, 'group')] as const;
}

describe('the sandbox user', () => {
  it('is the herald-sandbox account when there is one, else the fixed id 65533', () => {
    const withAccount = accounts(
      'a',
      'root:x:0:0::/root:/bin/sh\nherald-sandbox:x:998:997::/nonexistent:/usr/sbin/nologin\n',
      'herald-sandbox:x:996:\n',
    );
    assert.deepEqual(sandboxIdentity(...withAccount), {
      ok: true,
      identity: { uid: 998, gid: 996, source: 'account' },
    });
    const without = accounts('b', 'root:x:0:0::/root:/bin/sh\n', 'root:x:0:\n');
    assert.deepEqual(sandboxIdentity(...without), {
      ok: true,
      identity: { uid: FIXED_SANDBOX_ID, gid: FIXED_SANDBOX_ID, source: 'fixed' },
    });
  });

  it('is refused when the account is root or the fixed id belongs to someone else', () => {
    const rootAccount = accounts('c', 'herald-sandbox:x:0:0::/:/bin/sh\n', '');
    assert.match((sandboxIdentity(...rootAccount) as { reason: string }).reason, /must not be root/);
    const clash = accounts('d', `alice:x:${FIXED_SANDBOX_ID}:100::/home/alice:/bin/sh\n`, '');
    assert.match((sandboxIdentity(...clash) as { reason: string }).reason, /belongs to another account.*doctor --fix/);
  });

  it('assembles a seccomp program for both architectures', () => {
    for (const arch of ['x64', 'arm64']) {
      const program = seccompProgram(arch)!;
      assert.equal(program.length % 8, 0);
      assert.ok(program.length / 8 < 256, `${arch}: ${program.length / 8} instructions`);
    }
    assert.equal(seccompProgram('ia32'), undefined);
  });
});

describe('the workspace walk', () => {
  it('measures allocated disk, hard links once', async () => {
    const ws = join(root, 'measure');
    mkdirSync(ws);
    writeFileSync(join(ws, 'a'), Buffer.alloc(1024 * 1024, 1));
    linkSync(join(ws, 'a'), join(ws, 'a-again'));
    const r = await walkWorkspace(ws);
    assert.ok(r.bytes >= 1024 * 1024 && r.bytes < 1.2 * 1024 * 1024, `${r.bytes}`);
    assert.equal(r.complete, true);
  });

  it('stops at its entry budget and says so', async () => {
    const ws = join(root, 'budget');
    mkdirSync(ws);
    for (let i = 0; i < 300; i++) writeFileSync(join(ws, `f${i}`), 'x');
    const r = await walkWorkspace(ws, { maxEntries: 100 });
    assert.equal(r.complete, false);
  });

  it('strips setuid, setgid and world write, keeping a folder’s setgid', async () => {
    const ws = join(root, 'strip');
    mkdirSync(join(ws, 'd'), { recursive: true });
    writeFileSync(join(ws, 'x'), '#!/bin/sh\n');
    chmodSync(join(ws, 'x'), 0o6777);
    chmodSync(join(ws, 'd'), 0o2777);
    const r = await walkWorkspace(ws, { strip: true });
    assert.equal(r.stripped, 2);
    assert.equal(statSync(join(ws, 'x')).mode & 0o7777, 0o775);
    assert.equal(statSync(join(ws, 'd')).mode & 0o7777, 0o2775);
  });

  it(
    'hands entries to the sandbox user without following symlinks; the folder itself and .git keep their owner',
    { skip: process.getuid?.() !== 0 && 'changing owners needs root' },
    async () => {
      const ws = join(root, 'adopt');
      const outside = join(root, 'outside.txt');
      writeFileSync(outside, 'host file\n');
      mkdirSync(join(ws, '.git'), { recursive: true });
      mkdirSync(join(ws, 'src'));
      writeFileSync(join(ws, 'src/a.js'), '1\n');
      symlinkSync(outside, join(ws, 'link'));
      symlinkSync(root, join(ws, 'src/up'));
      const r = await walkWorkspace(ws, { adopt: { uid: 54321, gid: 54322 } });
      assert.ok(r.adopted >= 3);
      assert.equal(statSync(join(ws, 'src/a.js')).uid, 54321);
      assert.equal(statSync(join(ws, 'src')).gid, 54322);
      for (const kept of [ws, join(ws, '.git')]) {
        const st = statSync(kept);
        assert.equal(st.uid, 0, kept);
        assert.equal(st.gid, 54322, kept);
        assert.equal(st.mode & 0o2070, 0o2070, kept);
      }
      assert.equal(statSync(outside).uid, 0, 'the symlink’s target is untouched');
      assert.equal(statSync(root).uid, 0);
    },
  );
});
