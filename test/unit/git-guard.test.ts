/**
 * The git guard's parts on real files and the real `git`: configuration read as git reads it and
 * rewritten so that git reads back exactly what was kept, the walk that finds every repository
 * (and says when its budget ran out), and the before/after check that neutralises only what a
 * command added. The end-to-end check through the sandbox and the user's own git is in
 * test/integration/git-guard.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseBytes, readConfig, renderConfig } from '../../sandbox/git-config.js';
import type { ConfigEntry } from '../../sandbox/git-config.js';
import { settleGit, snapshotGit } from '../../sandbox/git-guard.js';
import { findRepositories } from '../../sandbox/git-repos.js';
import { runsProgram } from '../../sandbox/git-run-keys.js';
import { holdDir } from '../../sandbox/workspace-dir.js';

const root = mkdtempSync(join(tmpdir(), 'herald-git-guard-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const d = join(root, `ws${n++}`);
  mkdirSync(d);
  return d;
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: '1' } }).toString();
const entries = (text: string): ConfigEntry[] => {
  const r = parseBytes(Buffer.from(text));
  assert.ok(r.ok, `git parses: ${text}`);
  return r.entries;
};

describe('git guard: configuration as git reads it', () => {
  it('sees keys wherever git does: on the header line, upper-cased, continued, after comments', () => {
    const listed = entries(
      '# [core] fsmonitor = no\n[core] fsmonitor = "a"\n[CORE]\n\tFsMonitor = b \\\n c\n[core]x=1 ; comment\n[alias]\n\tst\n',
    );
    assert.deepEqual(listed, [
      { key: 'core.fsmonitor', value: 'a' },
      { key: 'core.fsmonitor', value: 'b  c' },
      { key: 'core.x', value: '1' },
      { key: 'alias.st', value: undefined },
    ]);
  });

  it('rewrites a configuration that git reads back entry for entry, odd values and subsections included', () => {
    const odd: ConfigEntry[] = [
      { key: 'core.bare', value: 'false' },
      { key: 'remote.we "ird\\.one.url', value: 'a "quoted" \\ back\nslash\tand tab\bbs ; # not a comment' },
      { key: 'branch.main.merge', value: '' },
      { key: 'core.flag', value: undefined },
      { key: 'core..empty', value: 'sub' },
    ];
    assert.deepEqual(entries(renderConfig(odd)), odd);
  });

  it('reports a file git cannot parse, and one too large to read, instead of guessing', () => {
    const ws = fresh();
    writeFileSync(join(ws, 'bad'), '[core\nfsmonitor = x\n');
    writeFileSync(join(ws, 'big'), `${'# pad\n'.repeat(400_000)}[core]\n\tfsmonitor = x\n`);
    assert.deepEqual(readConfig(join(ws, 'bad')), { ok: false, why: 'unparsable' });
    assert.deepEqual(readConfig(join(ws, 'big')), { ok: false, why: 'too large' });
  });

  it('knows which keys run programs, by section and name in any subsection', () => {
    const ctx = { gitDir: '/w/r/.git', workspace: '/w' };
    const runs = (key: string, value?: string) => runsProgram({ key, value }, ctx);
    assert.equal(runs('core.fsmonitor', 'x'), true);
    assert.equal(runs('core..fsmonitor', 'x'), true);
    assert.equal(runs('Filter.LFS.Clean', 'x'), true);
    assert.equal(runs('pager.log', 'false'), false);
    assert.equal(runs('pager.log', 'sh -c x'), true);
    assert.equal(runs('core.worktree', '..'), false);
    assert.equal(runs('core.worktree', '../../..'), true);
    assert.equal(runs('submodule.s.update', '!sh'), true);
    assert.equal(runs('remote.origin.url', 'ext::sh -c x'), false, 'ext:: needs protocol.allow, which is caught');
  });
});

describe('git guard: finding repositories', () => {
  it('finds .git folders, files and links, and bare git directories at any depth, node_modules and dot-folders included', () => {
    const ws = fresh();
    git(ws, 'init', '-q', 'a/b/c/d/e/f/g/deep');
    git(ws, 'init', '-q', 'node_modules/pkg');
    git(ws, 'init', '-q', '.cache/x/r');
    git(ws, 'init', '-q', '--bare', 'vendor/bare.git');
    mkdirSync(join(ws, 'p'));
    writeFileSync(join(ws, 'p/.git'), 'gitdir: ../vendor/bare.git\n');
    mkdirSync(join(ws, 'l'));
    symlinkSync('../node_modules/pkg/.git', join(ws, 'l/.git'));
    const scan = findRepositories(ws);
    assert.equal(scan.complete, true);
    const rel = (ps: string[]) => ps.map((p) => p.slice(ws.length + 1)).sort();
    assert.deepEqual(rel(scan.dotGitDirs), ['.cache/x/r/.git', 'a/b/c/d/e/f/g/deep/.git', 'node_modules/pkg/.git']);
    assert.deepEqual(rel(scan.pointers), ['l/.git', 'p/.git']);
    assert.deepEqual(rel(scan.bareDirs), ['vendor/bare.git']);
  });

  it('says when the budget ran out before every folder was read', () => {
    const ws = fresh();
    for (let i = 0; i < 50; i++) mkdirSync(join(ws, `d${i}`));
    const scan = findRepositories(ws, 20);
    assert.equal(scan.complete, false);
    assert.equal(findRepositories(ws, 1000).complete, true);
  });
});

describe('git guard: before and after a command', () => {
  it('removes what a command added and keeps what the user had, saying what it did', () => {
    const ws = fresh();
    git(ws, 'init', '-q');
    git(ws, 'config', 'alias.co', 'checkout');
    git(ws, 'config', 'pull.rebase', 'true');
    const before = snapshotGit(ws);
    // "The command": a new key on the header line, a nested repository with a hook, an include.
    writeFileSync(join(ws, '.git/config'), `${readFileSync(join(ws, '.git/config'), 'utf8')}[core] fsmonitor = "x"\n`);
    git(ws, 'init', '-q', 'sub');
    writeFileSync(join(ws, 'sub/.git/hooks/post-checkout'), '#!/bin/sh\n', { mode: 0o755 });
    writeFileSync(join(ws, 'inc.cfg'), '[alias]\n\tx = !sh\n');
    git(ws, 'config', '--file', 'sub/.git/config', 'include.path', '../../inc.cfg');
    const notes = settleGit(ws, before).join('\n');
    assert.match(notes, /\.git\/config: removed core\.fsmonitor/);
    assert.match(notes, /sub\/\.git\/hooks\/post-checkout: hooks\/post-checkout is no longer executable/);
    assert.match(notes, /inc\.cfg: removed alias\.x/);
    assert.equal(git(ws, 'config', '--get', 'alias.co').trim(), 'checkout');
    assert.equal(git(ws, 'config', '--get', 'pull.rebase').trim(), 'true');
    assert.throws(() => git(ws, 'config', '--get', 'core.fsmonitor'));
    assert.equal(statSync(join(ws, 'sub/.git/hooks/post-checkout')).mode & 0o111, 0);
    assert.equal(git(join(ws, 'sub'), 'config', '--get', 'include.path').trim(), '../../inc.cfg', 'the include stays');
    assert.deepEqual(settleGit(ws, snapshotGit(ws)), [], 'nothing new: nothing to say');
  });

  it('renames aside links out of the workspace and files git cannot parse', () => {
    const ws = fresh();
    const outside = fresh();
    git(outside, 'init', '-q');
    const before = snapshotGit(ws);
    mkdirSync(join(ws, 'l'));
    symlinkSync(join(outside, '.git'), join(ws, 'l/.git'));
    git(ws, 'init', '-q', 'r');
    writeFileSync(join(ws, 'r/.git/config'), '[core\n\tfsmonitor = x\n');
    const notes = settleGit(ws, before).join('\n');
    assert.match(
      notes,
      /l\/\.git: a \.git file or link leading out of the workspace: renamed to \.git\.herald-disabled/,
    );
    assert.match(notes, /r\/\.git\/config: config \(unparsable\): renamed to config\.herald-disabled/);
    assert.equal(existsSync(join(ws, 'l/.git')), false);
    assert.equal(existsSync(join(outside, '.git/config')), true, 'the outside repository is untouched');
  });

  it('says so when a command grows the workspace past the budget', () => {
    const ws = fresh();
    const before = snapshotGit(ws, { maxEntries: 1000 });
    assert.equal(before.scan.complete, true);
    for (let i = 0; i < 1200; i++) writeFileSync(join(ws, `f${i}`), '');
    assert.match(settleGit(ws, before).join('\n'), /more than 1,000 files and folders.*sandbox\.gitGuard\.maxEntries/);
  });

  it('keeps its cost bounded when a command plants hundreds of repositories: past its parse budget they are renamed aside', () => {
    const ws = fresh();
    const before = snapshotGit(ws);
    for (let i = 0; i < 500; i++) {
      const g = join(ws, 'many', `g${i}`);
      mkdirSync(join(g, 'objects'), { recursive: true });
      mkdirSync(join(g, 'refs'));
      writeFileSync(join(g, 'HEAD'), 'ref: refs/heads/main\n');
      writeFileSync(join(g, 'config'), `[alias]\n\tx${i} = !touch /tmp/x\n`);
    }
    // The bound is the parse budget, counted in repositories (its time is npm run bench's to measure).
    const notes = settleGit(ws, before).join('\n');
    assert.match(notes, /and \d+ more/);
    for (let i = 0; i < 500; i++) {
      const config = join(ws, 'many', `g${i}`, 'config');
      if (!existsSync(config)) continue; // renamed aside
      assert.doesNotMatch(readFileSync(config, 'utf8'), /alias/, `g${i}`);
    }
  });

  it('changes files only through folders opened without following links, so a swapped folder sends no write outside', () => {
    const ws = fresh();
    const outside = fresh();
    mkdirSync(join(ws, 'real/sub'), { recursive: true });
    symlinkSync(outside, join(ws, 'swapped'));
    const held = holdDir(ws, join(ws, 'real/sub'));
    writeFileSync(held.at('f'), 'x');
    held.close();
    assert.equal(readFileSync(join(ws, 'real/sub/f'), 'utf8'), 'x');
    assert.throws(() => holdDir(ws, join(ws, 'swapped')), /ELOOP|ENOTDIR/);
    mkdirSync(join(outside, 'deeper'));
    assert.throws(() => holdDir(ws, join(ws, 'swapped/deeper')), /ELOOP|ENOTDIR/);
  });
});
