/**
 * The checkpoint store on real files and the real `git`: a snapshot records what a shell could
 * change (deletions, rewrites, new files), a retry takes no second snapshot, a restore puts the
 * workspace back and leaves ignored files, files over the cap and the user's own repository alone,
 * and changes made outside Herald refuse a restore unless forced. The end-to-end path through a
 * conversation is in test/integration/checkpoints.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { patchBetween, restoreTo, summarise } from '../../checkpoints/restore.js';
import { takeSnapshot, turnRef } from '../../checkpoints/snapshot.js';
import { pruneStore, storeSize } from '../../checkpoints/retention.js';

const root = mkdtempSync(join(tmpdir(), 'herald-checkpoints-'));
after(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function setup() {
  n += 1;
  const ws = join(root, `ws${n}`);
  mkdirSync(join(ws, 'src'), { recursive: true });
  writeFileSync(join(ws, 'src', 'a.txt'), 'one\ntwo\n');
  writeFileSync(join(ws, 'b.txt'), 'keep me\n');
  writeFileSync(join(ws, '.gitignore'), 'build/\n');
  mkdirSync(join(ws, 'build'));
  writeFileSync(join(ws, 'build', 'out.bin'), 'ignored');
  return { ws, repo: { gitDir: join(root, `shadow${n}.git`), workTree: ws } };
}

/** Every file under a folder with its bytes, for a byte-for-byte comparison. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p, `${rel}${e.name}/`);
      else out[`${rel}${e.name}`] = readFileSync(p).toString('base64') + statSync(p).mode;
    }
  };
  walk(dir, '');
  return out;
}

describe('checkpoints', () => {
  it('records what a shell changed, and a restore undoes it', async () => {
    const { ws, repo } = setup();
    const before = await takeSnapshot(repo, turnRef(1, 'before'), 'turn 1 before');
    assert.equal(before.existing, false);
    rmSync(join(ws, 'b.txt'));
    writeFileSync(join(ws, 'src', 'a.txt'), 'one\nTWO\nthree\n');
    writeFileSync(join(ws, 'c.txt'), 'new\n');
    writeFileSync(join(ws, 'build', 'out.bin'), 'still ignored');
    const afterSnap = await takeSnapshot(repo, turnRef(1, 'after'), 'turn 1 after');
    assert.deepEqual(await summarise(repo, before.commit, afterSnap.commit), { files: 3, added: 3, removed: 2 });
    const patch = await patchBetween(repo, before.commit, afterSnap.commit, 100_000);
    assert.match(patch, /-keep me/);
    assert.match(patch, /\+TWO/);
    assert.doesNotMatch(patch, /out\.bin/);

    // A retry finds the snapshot: same commit, nothing new.
    const again = await takeSnapshot(repo, turnRef(1, 'after'), 'turn 1 after');
    assert.equal(again.commit, afterSnap.commit);
    assert.equal(again.existing, true);

    const r = await restoreTo(repo, before.commit, {
      force: false,
      saveRef: 'refs/herald/rewinds/1',
      limits: { maxFileBytes: 1e6, maxSnapshotBytes: 1e8 },
      title: 'rewind',
    });
    assert.equal(r.restored, true);
    assert.equal(readFileSync(join(ws, 'b.txt'), 'utf8'), 'keep me\n');
    assert.equal(readFileSync(join(ws, 'src', 'a.txt'), 'utf8'), 'one\ntwo\n');
    assert.equal(existsSync(join(ws, 'c.txt')), false);
    assert.equal(readFileSync(join(ws, 'build', 'out.bin'), 'utf8'), 'still ignored');
  });

  it('refuses a restore over changes made outside Herald unless forced, and saves them first', async () => {
    const { ws, repo } = setup();
    const limits = { maxFileBytes: 1e6, maxSnapshotBytes: 1e8 };
    const before = await takeSnapshot(repo, turnRef(1, 'before'), 'b');
    writeFileSync(join(ws, 'b.txt'), 'agent\n');
    await takeSnapshot(repo, turnRef(1, 'after'), 'a');
    writeFileSync(join(ws, 'b.txt'), 'the user typed this\n');
    const refused = await restoreTo(repo, before.commit, {
      force: false,
      saveRef: 'refs/herald/rewinds/1',
      limits,
      title: 'r',
    });
    assert.equal(refused.restored, false);
    assert.deepEqual(!refused.restored && refused.wouldLose, ['b.txt']);
    assert.equal(readFileSync(join(ws, 'b.txt'), 'utf8'), 'the user typed this\n');
    const forced = await restoreTo(repo, before.commit, {
      force: true,
      saveRef: 'refs/herald/rewinds/1',
      limits,
      title: 'r',
    });
    assert.equal(forced.restored, true);
    assert.equal(readFileSync(join(ws, 'b.txt'), 'utf8'), 'keep me\n');
    assert.ok(forced.restored && forced.savedAs);
  });

  it('reports a file over the cap and never removes it', async () => {
    const { ws, repo } = setup();
    const limits = { maxFileBytes: 1000, maxSnapshotBytes: 1e8 };
    const before = await takeSnapshot(repo, turnRef(1, 'before'), 'b', limits);
    writeFileSync(join(ws, 'big.dat'), Buffer.alloc(5000, 1));
    const afterSnap = await takeSnapshot(repo, turnRef(1, 'after'), 'a', limits);
    assert.equal(afterSnap.notes.length, 1);
    assert.match(afterSnap.notes[0]!, /^not snapshotted: big\.dat \(.*file cap\)/);
    assert.deepEqual((await takeSnapshot(repo, turnRef(1, 'after'), 'a', limits)).notes, afterSnap.notes);
    await restoreTo(repo, before.commit, { force: false, saveRef: 'refs/herald/rewinds/1', limits, title: 'r' });
    assert.equal(statSync(join(ws, 'big.dat')).size, 5000);
  });

  it("leaves the user's own repository byte-for-byte as it was", async () => {
    const { ws, repo } = setup();
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    };
    execFileSync('git', ['init', '-q'], { cwd: ws, env });
    execFileSync('git', ['add', '-A'], { cwd: ws, env });
    execFileSync('git', ['commit', '-qm', 'user'], { cwd: ws, env });
    const userGit = tree(join(ws, '.git'));
    const before = await takeSnapshot(repo, turnRef(1, 'before'), 'b');
    writeFileSync(join(ws, 'src', 'a.txt'), 'changed\n');
    await takeSnapshot(repo, turnRef(1, 'after'), 'a');
    await restoreTo(repo, before.commit, {
      force: false,
      saveRef: 'refs/herald/rewinds/1',
      limits: { maxFileBytes: 1e6, maxSnapshotBytes: 1e8 },
      title: 'r',
    });
    assert.deepEqual(tree(join(ws, '.git')), userGit);
    assert.equal(readFileSync(join(ws, 'src', 'a.txt'), 'utf8'), 'one\ntwo\n');
  });

  it('prunes shadow repositories past the age limit, and the oldest past the size limit', async () => {
    const store = join(root, 'store');
    for (const name of ['old', 'mid', 'new']) {
      const { repo } = setup();
      await takeSnapshot({ ...repo, gitDir: join(store, `${name}.git`) }, turnRef(1, 'before'), 'b');
    }
    const day = 86_400_000;
    const now = Date.now();
    utimesSync(join(store, 'old.git', 'HEAD'), (now - 40 * day) / 1000, (now - 40 * day) / 1000);
    utimesSync(join(store, 'mid.git', 'HEAD'), (now - 2 * day) / 1000, (now - 2 * day) / 1000);
    assert.equal(storeSize(store).repos, 3);
    assert.deepEqual(pruneStore(store, { retentionDays: 30, maxStoreMb: 1024 }, now).removed, 1);
    assert.equal(existsSync(join(store, 'old.git')), false);
    // Over the size limit: the least recently used goes first.
    pruneStore(store, { retentionDays: 30, maxStoreMb: storeSize(store).bytes / 1024 / 1024 - 0.001 }, now);
    assert.equal(existsSync(join(store, 'mid.git')), false);
    assert.equal(existsSync(join(store, 'new.git')), true);
  });

  it('a snapshot after a worker died mid-snapshot (its lock left behind) is taken once', async () => {
    const { ws, repo } = setup();
    await takeSnapshot(repo, turnRef(1, 'before'), 'b');
    writeFileSync(join(ws, 'b.txt'), 'changed\n');
    writeFileSync(join(repo.gitDir, 'index.lock'), '');
    const first = await takeSnapshot(repo, turnRef(1, 'after'), 'a');
    const retry = await takeSnapshot(repo, turnRef(1, 'after'), 'a');
    assert.equal(retry.commit, first.commit);
    const refs = execFileSync(
      'git',
      ['--git-dir', repo.gitDir, 'for-each-ref', '--format=%(refname)', 'refs/herald/turns/'],
      {
        encoding: 'utf8',
      },
    );
    assert.deepEqual(refs.trim().split('\n'), ['refs/herald/turns/1/after', 'refs/herald/turns/1/before']);
  });
});
