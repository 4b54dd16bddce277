/**
 * What the read-only mounts cannot stop in a repository, checked around each sandboxed call.
 * `.git/commondir` is a plain file git reads to find the repository's config and hooks: written
 * by a sandboxed command, it would point the user's next `git status` at attacker-made ones, so a
 * change to it is undone when the call ends. A repository created during the call (`git init` in
 * a subfolder, then a submodule entry) had nothing to protect yet: whatever in its config would
 * run a program (fsmonitor, hooksPath, pager, aliases, filters, credential helpers, includes) is
 * removed and its hooks lose their execute bits before the user's own git can read them; it is
 * protected like the others from the next call on.
 */
import { chmodSync, lstatSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gitDirs } from './protected-mounts.js';

interface Snapshot {
  commondirs: Map<string, string | undefined>;
  repos: Set<string>;
}

function readIfFile(p: string): string | undefined {
  try {
    return lstatSync(p).isFile() ? readFileSync(p, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

export function snapshotGit(workspace: string): Snapshot {
  const repos = gitDirs(workspace);
  return {
    commondirs: new Map(repos.map((g) => [join(g, 'commondir'), readIfFile(join(g, 'commondir'))])),
    repos: new Set(repos),
  };
}

/** Undo what must not stay, and say what happened, for the tool result. */
export function settleGit(workspace: string, before: Snapshot): string[] {
  const notes: string[] = [];
  for (const [path, was] of before.commondirs) {
    const now = lstatSync(path, { throwIfNoEntry: false });
    const text = readIfFile(path);
    if (was === undefined ? now === undefined : text === was) continue;
    if (was === undefined) rmSync(path, { recursive: true, force: true });
    else writeFileSync(path, was);
    notes.push(
      `[sandbox: undid a change to ${relative(workspace, path)}: it would make git take its config and hooks from elsewhere]`,
    );
  }
  for (const g of gitDirs(workspace).filter((d) => !before.repos.has(d))) {
    const removed = neutralise(g);
    notes.push(
      `[sandbox: this command created the git repository ${relative(workspace, g)}; its hooks and config are ` +
        `read-only from the next command on${removed.length ? `; removed what would run programs: ${removed.join(', ')}` : ''}]`,
    );
  }
  return notes;
}

/** Config keys (section.name, subsection elided as `*`) that make git run a program. */
const RUNS_PROGRAMS =
  /^(?:core\.(?:fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy)|sequence\.editor|diff\.external|diff\.\*\.(?:textconv|command)|merge\.\*\.driver|filter\.\*\.(?:clean|smudge|process)|credential(?:\.\*)?\.helper|gpg(?:\.\*)?\.program|uploadpack\.packobjectshook|alias\..*|include\.path|includeif\.\*\.path|pager\..*|interactive\.difffilter|remote\.\*\.(?:uploadpack|receivepack)|(?:browser|man)\.\*\.cmd|web\.browser)$/;

/** Remove what would run programs from a repository's config and hooks; returns what was removed. */
function neutralise(gitDir: string): string[] {
  const removed: string[] = [];
  const configPath = join(gitDir, 'config');
  const text = readIfFile(configPath);
  if (text !== undefined) {
    let section = '';
    let skipping = false;
    const kept: string[] = [];
    for (const line of text.split('\n')) {
      if (skipping) {
        skipping = line.trimEnd().endsWith('\\');
        continue;
      }
      const header = /^\s*\[\s*([A-Za-z0-9.-]+)(\s+"[^"]*")?\s*\]/.exec(line);
      if (header) section = `${header[1]!.toLowerCase()}${header[2] ? '.*' : ''}`;
      const kv = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(=|$)/.exec(header ? '' : line);
      const key = kv ? `${section}.${kv[1]!.toLowerCase()}` : '';
      if (key && RUNS_PROGRAMS.test(key)) {
        removed.push(key);
        skipping = line.trimEnd().endsWith('\\');
        continue;
      }
      kept.push(line);
    }
    if (removed.length) writeFileSync(configPath, kept.join('\n'));
  }
  const hooks = join(gitDir, 'hooks');
  let entries: string[] = [];
  try {
    entries = readdirSync(hooks);
  } catch {
    // no hooks folder
  }
  for (const name of entries) {
    const p = join(hooks, name);
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st || name.endsWith('.sample')) continue;
    if (st.isSymbolicLink() || !st.isFile()) {
      rmSync(p, { recursive: true, force: true });
      removed.push(`hooks/${name}`);
    } else if (st.mode & 0o111) {
      chmodSync(p, st.mode & ~0o111);
      removed.push(`hooks/${name}`);
    }
  }
  return removed;
}
