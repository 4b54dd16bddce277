/**
 * Which workspace paths the sandbox mounts read-only for one call: the configured protected paths
 * plus, for every git repository in the workspace (bounded search), its hooks, its config, the
 * hooks and config of its submodules, and a `core.hooksPath` inside the workspace. Each `.git`
 * folder is also made a mount point of its own, so a command cannot rename it away
 * (`mv .git .old && mkdir -p .git/hooks`) and plant hooks in a fresh one.
 */
import type { Dirent } from 'node:fs';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isInside } from './host.js';

export interface ProtectedMounts {
  /** `.git` folders bound onto themselves (read-write): mount points cannot be renamed or removed. */
  pinned: string[];
  /** Paths bound read-only over themselves. */
  readOnly: string[];
}

const SEARCH_DEPTH = 3;
const MAX_DIRS = 2000;
const SKIP = new Set(['node_modules', '.herald-results', 'vendor', 'target', 'dist', 'build', '.venv', 'venv']);

function isDir(p: string): boolean {
  return lstatSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** Real `.git` folders at most SEARCH_DEPTH levels down (a `.git` file, as in worktrees, points elsewhere). */
export function gitDirs(workspace: string): string[] {
  const found: string[] = [];
  let visited = 0;
  const queue: Array<[string, number]> = [[workspace, 0]];
  while (queue.length && visited < MAX_DIRS) {
    const [dir, depth] = queue.shift()!;
    visited++;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const p = join(dir, e.name);
      if (e.name === '.git') found.push(p);
      else if (depth < SEARCH_DEPTH && !SKIP.has(e.name) && !e.name.startsWith('.')) queue.push([p, depth + 1]);
    }
  }
  return found;
}

/** `core.hooksPath` from a repository's config, when it is set (read as git does, last one wins). */
function hooksPath(gitDir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(gitDir, 'config'), 'utf8');
  } catch {
    return undefined;
  }
  let section = '';
  let value: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]/.exec(line);
    if (header) section = header[1]!.toLowerCase();
    const kv = /^([A-Za-z0-9-]+)\s*=\s*(.*)$/.exec(line);
    if (kv && section === 'core' && kv[1]!.toLowerCase() === 'hookspath') value = kv[2]!.replace(/^"(.*)"$/, '$1');
  }
  return value;
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

export function protectedMounts(workspace: string, configured: readonly string[]): ProtectedMounts {
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
  for (const g of gitDirs(workspace)) {
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
