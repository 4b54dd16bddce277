/**
 * Workspace confinement (docs/tools.md): file tools resolve paths inside the conversation's workspace
 * or refuse them, whether the escape is `..`, an absolute path or a symlink.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WorkspaceEscapeError, resolveInWorkspace, workspaceRelative } from '../../workspace-files/confine.js';

describe('resolveInWorkspace', () => {
  let base: string;
  let ws: string;
  let outside: string;
  before(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'herald-ws-')));
    ws = join(base, 'ws');
    outside = join(base, 'outside');
    mkdirSync(join(ws, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(ws, 'src', 'a.txt'), 'a');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'secret-link'));
    symlinkSync(outside, join(ws, 'outside-dir'));
    symlinkSync(join(outside, 'not-yet.txt'), join(ws, 'dangling-link'));
    symlinkSync(join(ws, 'later.txt'), join(ws, 'dangling-inside'));
    symlinkSync(join(ws, 'src'), join(ws, 'src-link'));
  });
  after(() => {
    rmSync(base, { recursive: true, force: true });
  });

  const refused = (path: string) => assert.rejects(resolveInWorkspace(ws, path), WorkspaceEscapeError, path);

  it('resolves existing files inside the workspace', async () => {
    assert.equal(await resolveInWorkspace(ws, 'src/a.txt'), join(ws, 'src', 'a.txt'));
    assert.equal(await resolveInWorkspace(ws, './src/../src/a.txt'), join(ws, 'src', 'a.txt'));
    assert.equal(await resolveInWorkspace(ws, join(ws, 'src', 'a.txt')), join(ws, 'src', 'a.txt'));
    assert.equal(await resolveInWorkspace(ws, '.'), ws);
  });

  it('allows new files in new nested directories', async () => {
    assert.equal(await resolveInWorkspace(ws, 'new/deeper/file.txt'), join(ws, 'new', 'deeper', 'file.txt'));
  });

  it('follows symlinks that stay inside the workspace', async () => {
    assert.equal(await resolveInWorkspace(ws, 'src-link/a.txt'), join(ws, 'src', 'a.txt'));
  });

  it('refuses paths that climb out with ..', async () => {
    await refused('../x');
    await refused('../outside/secret.txt');
    await refused('src/../../outside');
    await refused('..');
  });

  it('refuses absolute paths elsewhere', async () => {
    await refused('/etc/passwd');
    await refused(join(outside, 'secret.txt'));
    // a sibling whose name merely starts with the workspace's
    await refused(`${ws}-other/file`);
  });

  it('refuses a symlink inside the workspace that points outside', async () => {
    await refused('secret-link');
    await refused('outside-dir/secret.txt');
    // a new file under a directory symlink that leads out
    await refused('outside-dir/new.txt');
  });

  it('refuses a dangling symlink that points outside (a write would follow it out)', async () => {
    await refused('dangling-link');
  });

  it('allows a dangling symlink whose target is inside the workspace', async () => {
    const resolved = await resolveInWorkspace(ws, 'dangling-inside');
    assert.ok(resolved.startsWith(`${ws}/`), resolved);
  });

  it('errors name the path and explain the rule', async () => {
    await assert.rejects(resolveInWorkspace(ws, '../x'), /path "\.\.\/x" is outside the workspace/);
  });
});

describe('workspaceRelative', () => {
  it('shows paths relative to the workspace, "." for the root', () => {
    assert.equal(workspaceRelative('/ws', '/ws/src/a.ts'), join('src', 'a.ts'));
    assert.equal(workspaceRelative('/ws', '/ws'), '.');
  });
});
