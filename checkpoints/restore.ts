/**
 * What a turn changed, and putting a workspace back the way a snapshot recorded it
 * (docs/checkpoints.md). A restore changes only what the shadow repository tracks: files the
 * workspace ignores, files over the cap and the user's `.git` are never written or removed.
 */
import type { ShadowRepo } from './shadow-git.js';
import { git, gitText, nulList } from './shadow-git.js';
import type { SnapshotLimits } from './snapshot.js';
import { LATEST_REF, commitIndex, takeSnapshot } from './snapshot.js';
import { lstatSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface ChangeSummary {
  files: number;
  added: number;
  removed: number;
}

/** Files changed between two snapshots, and lines added and removed (binary files count as files only). */
export async function summarise(repo: ShadowRepo, from: string, to: string): Promise<ChangeSummary> {
  const out = (await git(repo, ['diff-tree', '-r', '-z', '--numstat', '--no-renames', from, to])).stdout;
  const summary: ChangeSummary = { files: 0, added: 0, removed: 0 };
  for (const rec of nulList(out)) {
    const m = /^(\d+|-)\t(\d+|-)\t/.exec(rec);
    if (!m) continue;
    summary.files += 1;
    summary.added += m[1] === '-' ? 0 : Number(m[1]);
    summary.removed += m[2] === '-' ? 0 : Number(m[2]);
  }
  return summary;
}

/** The unified diff between two snapshots, cut at `maxChars` (with a line saying so). */
export async function patchBetween(repo: ShadowRepo, from: string, to: string, maxChars: number): Promise<string> {
  const out = await git(repo, [
    'diff-tree',
    '-r',
    '-p',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--no-renames',
    '--full-index',
    from,
    to,
  ]);
  const text = out.stdout.toString('utf8');
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[… diff cut at ${maxChars} characters]\n`;
}

/** The most paths named in a refusal. */
const MAX_NAMED = 50;

/**
 * Paths changed in the workspace since Herald last saw it (a snapshot or a restore): untracked ones
 * over the file cap do not count (no snapshot would hold them).
 */
export async function changedOutside(repo: ShadowRepo, limits: SnapshotLimits): Promise<string[]> {
  const latest = await gitText(repo, ['rev-parse', '--verify', '-q', LATEST_REF]).catch(() => '');
  if (!latest) return [];
  // The index is what `latest` recorded unless a snapshot was cut short: compare with the tree itself.
  await git(repo, ['read-tree', latest]);
  const modified = nulList((await git(repo, ['ls-files', '-z', '--modified', '--deleted'])).stdout);
  const others = nulList(
    (await git(repo, ['ls-files', '-z', '--others', '--exclude-standard', '--no-empty-directory'])).stdout,
  ).filter((p) => {
    const st = lstatSync(join(repo.workTree, p), { throwIfNoEntry: false });
    return !(st?.isFile() && st.size > limits.maxFileBytes);
  });
  return [...new Set([...modified, ...others])];
}

export type RestoreOutcome =
  | { restored: true; commit: string; changed: ChangeSummary; savedAs?: string }
  | { restored: false; refused: string; wouldLose: string[] };

/**
 * Put the workspace back to snapshot `target`. Changes made outside Herald since its latest
 * snapshot refuse the restore unless `force`; with force they are first saved under `saveRef`, so
 * even then nothing is lost for good.
 */
export async function restoreTo(
  repo: ShadowRepo,
  target: string,
  o: { force: boolean; saveRef: string; limits: SnapshotLimits; title: string },
): Promise<RestoreOutcome> {
  const outside = await changedOutside(repo, o.limits);
  let savedAs: string | undefined;
  if (outside.length) {
    if (!o.force)
      return {
        restored: false,
        refused: `${outside.length} file(s) changed outside Herald since its latest snapshot; rewind with force to discard them (they are saved first)`,
        wouldLose: outside.slice(0, MAX_NAMED),
      };
    savedAs = (await takeSnapshot(repo, o.saveRef, 'changes outside Herald, saved before a forced rewind', o.limits))
      .commit;
  }
  const before = await gitText(repo, ['rev-parse', '--verify', LATEST_REF]);
  // The index holds what the workspace holds now (as Herald last saw it); `-u` moves both to the target.
  await git(repo, ['read-tree', before]);
  await git(repo, ['read-tree', '--reset', '-u', target]);
  const commit = await commitIndex(repo, o.title);
  return {
    restored: true,
    commit,
    changed: await summarise(repo, before, commit),
    ...(savedAs ? { savedAs } : {}),
  };
}

/**
 * Write snapshot `commit` into `dest` (a new, empty folder), through an index of its own: the
 * conversation's index and workspace are not touched. Returns how many files were written.
 */
export async function exportSnapshot(repo: ShadowRepo, commit: string, dest: string): Promise<number> {
  const indexFile = join(repo.gitDir, `fork-${process.pid}-${Date.now()}.index`);
  try {
    await git(repo, ['read-tree', commit], { indexFile });
    await git(repo, ['checkout-index', '-a', '-f', `--prefix=${dest.endsWith('/') ? dest : `${dest}/`}`], {
      indexFile,
    });
    return nulList((await git(repo, ['ls-files', '-z'], { indexFile })).stdout).length;
  } finally {
    rmSync(indexFile, { force: true });
  }
}
