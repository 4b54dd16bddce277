/**
 * Every place in a workspace that the user's own `git` could take for a repository, whatever its
 * depth: `.git` folders, `.git` files and links (`gitdir: …`, linked worktrees, absorbed
 * submodules) and folders that are git directories themselves (a bare repository, `.git/modules/x`,
 * `.git/worktrees/x`), which git uses when the user's working directory is in them. No folder is
 * skipped — node_modules and dot-folders included — since a sandboxed command can write anywhere in
 * the workspace. The walk is bounded by a count of directory entries: the caller learns when the
 * budget ran out, and fails closed.
 */
import type { Dirent } from 'node:fs';
import { readdirSync } from 'node:fs';
import { DEFAULT_GIT_GUARD_MAX_ENTRIES } from '../common/sandbox-policy.js';

export interface RepoScan {
  /** Folders named `.git`. */
  dotGitDirs: string[];
  /** `.git` entries that are files or symbolic links (they name the git directory elsewhere). */
  pointers: string[];
  /** Folders that hold `HEAD` with `objects` and `refs` (or a `commondir`): git directories by themselves. */
  bareDirs: string[];
  /** Directory entries looked at. */
  entries: number;
  /** False when the budget ran out before every folder was read. */
  complete: boolean;
  ms: number;
}

/** The names that make a folder a repository (or a git directory itself). */
const PARTS = new Set(['.git', 'objects', 'refs', 'HEAD', 'commondir']);

export function findRepositories(workspace: string, maxEntries = DEFAULT_GIT_GUARD_MAX_ENTRIES): RepoScan {
  const started = performance.now();
  const scan: RepoScan = { dotGitDirs: [], pointers: [], bareDirs: [], entries: 0, complete: true, ms: 0 };
  // Depth first with an explicit stack: no recursion limit, memory bounded by the budget.
  const stack: string[] = [workspace];
  while (stack.length) {
    const dir = stack.pop()!;
    let list: Dirent[];
    try {
      list = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // vanished, or not readable by the worker: nothing git could read there either
    }
    scan.entries += list.length;
    if (scan.entries > maxEntries) {
      scan.complete = false;
      break;
    }
    let head = false;
    let objects = false;
    let refs = false;
    let commondir = false;
    for (const e of list) {
      const name = e.name;
      // Links are not followed (a link's target is walked where it lies, if inside), but git
      // follows them when it checks a git directory's parts.
      const isDir = e.isDirectory();
      if (isDir) stack.push(`${dir}/${name}`);
      if (name.length > 9 || !PARTS.has(name)) continue;
      if (name === '.git') (isDir ? scan.dotGitDirs : scan.pointers).push(`${dir}/${name}`);
      else if (name === 'objects') objects ||= isDir || e.isSymbolicLink();
      else if (name === 'refs') refs ||= isDir || e.isSymbolicLink();
      else if (name === 'HEAD') head = !isDir;
      else if (name === 'commondir') commondir = !isDir;
    }
    if (head && ((objects && refs) || commondir) && !dir.endsWith('/.git')) scan.bareDirs.push(dir);
  }
  scan.ms = performance.now() - started;
  return scan;
}
