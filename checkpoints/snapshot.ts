/**
 * Snapshots of a workspace in its shadow repository (shadow-git.ts; docs/checkpoints.md). A snapshot
 * stages what changed since the last one (git's index keeps file stats, so an unchanged file costs
 * one `lstat`), writes a tree, and records a commit under a ref named by its turn and phase:
 * `refs/herald/turns/<turn>/<phase>`. The ref is the idempotency key — a retried activity, or one
 * run again after a worker died, finds the ref and returns the same snapshot. `refs/herald/latest`
 * (the shadow repository's HEAD) always names the state Herald last saw (a snapshot or a restore), so changes made outside Herald
 * since then can be found.
 *
 * Caps: a file over `maxFileBytes` is never stored (and never deleted by a restore: it is not
 * Herald's to remove), and once the files staged by one snapshot reach `maxSnapshotBytes` the rest
 * wait for the next; both are written in the snapshot's notes ("not snapshotted: …"), kept in its
 * commit message so a retry reports them too.
 */
import { lstatSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readRef, writeRef } from './refs.js';
import type { ShadowRepo } from './shadow-git.js';
import { ensureShadowRepo, git, gitText, nulList } from './shadow-git.js';

export interface SnapshotLimits {
  maxFileBytes: number;
  maxSnapshotBytes: number;
}

export const DEFAULT_SNAPSHOT_LIMITS: SnapshotLimits = {
  maxFileBytes: 5 * 1024 * 1024,
  maxSnapshotBytes: 200 * 1024 * 1024,
};

export interface Snapshot {
  commit: string;
  /** "not snapshotted: <path> (<why>)", at most MAX_NOTES of them, each bounded. */
  notes: string[];
  /** True when this call found the snapshot already taken (a retry). */
  existing: boolean;
}

export const LATEST_REF = 'refs/herald/latest';
const MAX_NOTES = 20;
const MAX_NOTE_CHARS = 300;
const NOTE_MARK = 'not snapshotted: ';

export function turnRef(turn: number, phase: string): string {
  return `refs/herald/turns/${turn}/${phase}`;
}

function note(path: string, why: string): string {
  const p = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  return `${NOTE_MARK}${p} (${why})`.slice(0, MAX_NOTE_CHARS);
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** What changed since the index was last written: untracked (not ignored), modified and deleted paths. */
async function changedPaths(repo: ShadowRepo): Promise<string[]> {
  const out = await git(repo, [
    'ls-files',
    '-z',
    '--others',
    '--modified',
    '--deleted',
    '--exclude-standard',
    '--no-empty-directory',
  ]);
  return [...new Set(nulList(out.stdout))];
}

/**
 * Stage what changed, within the caps; `notes` says what was left out.
 */
async function stage(repo: ShadowRepo, limits: SnapshotLimits, notes: string[]): Promise<void> {
  const changed = await changedPaths(repo);
  const add: string[] = [];
  const drop: string[] = [];
  let total = 0;
  let deferred = 0;
  for (const path of changed) {
    const st = lstatSync(join(repo.workTree, path), { throwIfNoEntry: false });
    if (!st || !st.isFile()) {
      add.push(path); // deleted, a link, a nested repository: git stores what it can
      continue;
    }
    if (st.size > limits.maxFileBytes) {
      if (notes.length < MAX_NOTES)
        notes.push(note(path, `${mb(st.size)}, over the ${mb(limits.maxFileBytes)} file cap`));
      drop.push(path);
      continue;
    }
    if (total + st.size > limits.maxSnapshotBytes) {
      deferred += 1;
      drop.push(path);
      continue;
    }
    total += st.size;
    add.push(path);
  }
  if (deferred)
    notes.push(
      `${NOTE_MARK}${deferred} file(s) (the ${mb(limits.maxSnapshotBytes)} snapshot cap was reached; they wait for the next snapshot)`,
    );
  if (add.length)
    await git(repo, ['add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'], {
      input: add.join('\0') + '\0',
      ok: [1],
    });
  // A tracked file now over a cap leaves the snapshot: no old copy of it is restored later.
  if (drop.length)
    await git(repo, ['rm', '-q', '--cached', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'], {
      input: drop.join('\0') + '\0',
    });
}

/**
 * A worker that died inside git leaves its lock behind; only one activity of a conversation uses
 * its shadow repository at a time (the workflow runs them one after another), so it is stale.
 */
function clearStaleLock(repo: ShadowRepo): void {
  const lock = join(repo.gitDir, 'index.lock');
  if (statSync(lock, { throwIfNoEntry: false })) rmSync(lock, { force: true });
}

/** The notes a snapshot's commit message carries. */
export async function notesOf(repo: ShadowRepo, commit: string): Promise<string[]> {
  const body = await gitText(repo, ['log', '-1', '--format=%B', commit]);
  return body
    .split('\n')
    .filter((l) => l.startsWith(NOTE_MARK))
    .slice(0, MAX_NOTES + 1);
}

/** Take the snapshot `ref` names, or return it when it exists. */
export async function takeSnapshot(
  repo: ShadowRepo,
  ref: string,
  title: string,
  limits: SnapshotLimits = DEFAULT_SNAPSHOT_LIMITS,
): Promise<Snapshot> {
  await ensureShadowRepo(repo);
  const found = readRef(repo, ref);
  if (found) return { commit: found, notes: await notesOf(repo, found), existing: true };
  clearStaleLock(repo);
  const notes: string[] = [];
  await stage(repo, limits, notes);
  const commit = await commitIndex(repo, [title, '', ...notes].join('\n'));
  writeRef(repo, ref, commit);
  return { commit, notes, existing: false };
}

/**
 * A commit of the index as it is, on `refs/herald/latest` (the shadow repository's HEAD points
 * there): one `git commit`, no hooks, whatever the index holds.
 */
export async function commitIndex(repo: ShadowRepo, message: string): Promise<string> {
  await git(repo, ['commit', '-q', '--allow-empty', '--no-verify', '--no-gpg-sign', '-m', message]);
  const id = readRef(repo, LATEST_REF);
  if (!id) throw new Error('the snapshot commit left no ref');
  return id;
}
