/**
 * A snapshot survives its worker: the worker process is killed (SIGKILL) while the turn's "before"
 * snapshot of a large workspace is being staged, another worker retries it, and the turn ends with
 * exactly one snapshot per (turn, phase) and a diff that shows the turn's change once (real
 * sandbox, real Temporal and Postgres, the fake provider).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { readRef } from '../../checkpoints/refs.js';
import { checkpointStore } from '../../checkpoints/paths.js';
import { turnRef } from '../../checkpoints/snapshot.js';
import type { HeraldProcess } from '../support/processes.js';
import { spawnHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

/** Enough files that staging them for the first snapshot takes long enough to be killed in. */
const FILES = 20_000;

async function worker(stack: TestStack): Promise<HeraldProcess> {
  const p = spawnHerald(['worker'], stack.workerEnv());
  await p.waitFor('worker polling');
  return p;
}

/** Wait for a path to exist, polling often: the lock of a running `git add` lives a second or so. */
async function appears(path: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > until) throw new Error(`${path} never appeared`);
    await sleep(2);
  }
}

describe('checkpoints when a worker dies mid-snapshot', () => {
  let stack: TestStack;
  const processes: HeraldProcess[] = [];
  before(async () => {
    stack = await createTestStack({
      worker: false,
      configYaml: ['approvals:', '  mode: "off"', 'sandbox:', '  mode: required', ''].join('\n'),
    });
  });
  after(async () => {
    for (const p of processes) p.kill();
    await stack?.close();
  });

  it('a worker killed during a snapshot leaves one snapshot after the retry, and the diff shows the change once', async () => {
    const ws = join(stack.workspaces, 'big');
    for (let d = 0; d < FILES / 500; d++) {
      const dir = join(ws, 'pkg', `m${d}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 500; f++) writeFileSync(join(dir, `f${f}.txt`), `module ${d} file ${f}\n`);
    }
    writeFileSync(join(ws, 'app.py'), 'print("old")\n');
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'printf \'print("new")\\n\' > app.py' } }] },
      { text: 'Changed it.' },
    ]);
    const first = await worker(stack);
    processes.push(first);
    const conv = stack.herald.conversation('cp-kill');
    const pending = conv.send('change app.py', { id: 'cp-kill-1', start: { cwd: ws } });

    // The conversation's shadow repository appears when the snapshot activity starts; its index lock
    // while the snapshot stages the workspace. The worker dies there.
    const store = checkpointStore(stack.home);
    await appears(store);
    let gitDir: string | undefined;
    while (!gitDir) {
      gitDir = readdirSync(store).find((n) => n.endsWith('.git'));
      if (!gitDir) await sleep(2);
    }
    const repo = { gitDir: join(store, gitDir), workTree: ws };
    await appears(join(repo.gitDir, 'index.lock'));
    first.kill('SIGKILL');
    await first.exited;
    assert.equal(readRef(repo, turnRef(1, 'before')), undefined, 'the worker died before its snapshot was recorded');

    processes.push(await worker(stack));
    const result = await pending;
    assert.equal(result.final_response, 'Changed it.');

    // One snapshot per (turn, phase): the retry found no ref, took the snapshot once, and the turn's
    // "after" snapshot followed it.
    const refs = execFileSync(
      'git',
      ['--git-dir', repo.gitDir, 'for-each-ref', '--format=%(refname)', 'refs/herald/turns'],
      {
        encoding: 'utf8',
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
      },
    )
      .trim()
      .split('\n');
    assert.deepEqual(refs, [turnRef(1, 'after'), turnRef(1, 'before')]);
    const rows = await stack.db.query<{ turn: number; before_commit: string; after_commit: string | null }>(
      'SELECT turn, before_commit, after_commit FROM checkpoints WHERE conversation_id = $1',
      ['cp-kill'],
    );
    assert.deepEqual(rows.rows, [
      { turn: 1, before_commit: readRef(repo, turnRef(1, 'before')), after_commit: readRef(repo, turnRef(1, 'after')) },
    ]);

    // The diff is the turn's one change, once; the 20,000 files it did not touch are not in it.
    const diff = await conv.diff();
    assert.ok(diff, 'the turn has a checkpoint');
    assert.deepEqual(
      { turn: diff.turn, files: diff.files, added: diff.added, removed: diff.removed },
      { turn: 1, files: 1, added: 1, removed: 1 },
    );
    assert.equal((diff.patch ?? '').match(/^\+print\("new"\)$/gm)?.length, 1);
    assert.equal((diff.patch ?? '').match(/^-print\("old"\)$/gm)?.length, 1);
    assert.doesNotMatch(diff.patch ?? '', /pkg\/m0/);

    const cli = spawnHerald(['diff', 'cp-kill'], stack.workerEnv());
    assert.equal(await cli.exited, 0, cli.output());
    assert.equal(cli.output().match(/turn 1: 1 file(s)? changed, \+1 −1/g)?.length, 1, cli.output());
    assert.equal(cli.output().match(/print\("new"\)/g)?.length, 1, cli.output());
  });
});
