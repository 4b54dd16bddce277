/**
 * Which workspace paths the sandbox mounts read-only for one call: the configured protected paths
 * plus, for the git repositories in the workspace (the shallowest MAX_PINNED of them), its hooks, its config, the
 * hooks and config of its submodules, and a `core.hooksPath` inside the workspace. Each `.git`
 * folder is also made a mount point of its own, so a command cannot rename it away
 * (`mv .git .old && mkdir -p .git/hooks`) and plant hooks in a fresh one.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { readConfig } from './git-config.js';
import { findRepositories } from './git-repos.js';
import { isInside } from './host.js';

export interface ProtectedMounts {
  /** `.git` folders bound onto themselves (read-write): mount points cannot be renamed or removed. */
  pinned: string[];
  /** Paths bound read-only over themselves. */
  readOnly: string[];
}

/**
 * Repositories given mounts of their own, shallowest first. The rest (a workspace can hold
 * thousands, in node_modules) are still checked after every call by the git guard; the mounts are
 * the first wall, which also holds while a call runs.
 */
const MAX_PINNED = 200;

function isDir(p: string): boolean {
  return lstatSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** `core.hooksPath` from a repository's config, read by git's own parser (last one wins). */
function hooksPath(gitDir: string): string | undefined {
  const read = readConfig(join(gitDir, 'config'));
  if (!read.ok) return undefined;
  return read.entries.filter((e) => e.key.toLowerCase() === 'core.hookspath').at(-1)?.value;
}

/** Hooks and config of submodules (`.git/modules/<name>/…`, nested ones included). */
function moduleDirs(gitDir: string, depth = 0): string[] {
  const modules = join(gitDir, 'modules');
  if (depth > 4 || !isDir(modules)) return [];
  const out: string[] = [];
  for (const e of readdirSync(modules, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const m = join(modules, e.name);
    if (existsSync(join(m, 'config')) || isDir(join(m, 'hooks'))) out.push(m);
    out.push(...moduleDirs(m, depth + 1));
  }
  return out;
}

/** mkdir of one folder whose parent exists; a folder that cannot be made is simply not protected here. */
function mkdirOnce(p: string): void {
  try {
    mkdirSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** `dotGitDirs`: the `.git` folders the git guard found (found here when not given). */
export function protectedMounts(
  workspace: string,
  configured: readonly string[],
  dotGitDirs: readonly string[] = findRepositories(workspace).dotGitDirs,
): ProtectedMounts {
  const readOnly = new Set<string>();
  const pinned: string[] = [];
  /** Protect what the path really is: a link into the workspace protects its target; one out of it shows nothing. */
  const protect = (p: string) => {
    let target: string;
    try {
      target = realpathSync(p);
    } catch {
      return;
    }
    if (isInside(workspace, target) && target !== workspace) readOnly.add(target);
  };
  for (const rel of configured) {
    const p = resolve(workspace, rel);
    if (!isInside(workspace, p) || p === workspace) continue;
    // Herald's results folder is created by Herald, so the sandbox can never create it first (one
    // level, never recursively: the workspace itself exists, and a recursive mkdir on a path the
    // caller chose can loop forever where the filesystem lies, as /proc does).
    if (rel === '.herald-results' && !lstatSync(p, { throwIfNoEntry: false })) mkdirOnce(p);
    protect(p);
  }
  const depth = (p: string) => p.split(sep).length;
  const shallowFirst = [...dotGitDirs].sort((a, b) => depth(a) - depth(b) || a.localeCompare(b));
  for (const g of shallowFirst.slice(0, MAX_PINNED)) {
    pinned.push(g);
    // Hooks that do not exist yet must not be creatable either: an empty hooks folder is harmless.
    const hooks = join(g, 'hooks');
    if (!lstatSync(hooks, { throwIfNoEntry: false })) mkdirOnce(hooks);
    for (const dir of [g, ...moduleDirs(g)])
      for (const name of ['hooks', 'config', 'config.worktree']) protect(join(dir, name));
    const custom = hooksPath(g);
    if (custom && !custom.startsWith('~')) protect(resolve(dirname(g), custom));
  }
  return { pinned, readOnly: [...readOnly].sort() };
}
