/** Where a workspace's own files are looked for: from the workspace up to its git root. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The nearest folder at or above `cwd` that holds `.git`, if any. */
export function gitRoot(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The folders from `cwd` up to its git root, nearest first; the workspace alone outside a
 * repository, so a shared parent folder (/tmp, a home) never speaks for a project it does not
 * belong to.
 */
export function workspaceFolders(cwd: string): string[] {
  const root = gitRoot(cwd) ?? cwd;
  const out: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    out.push(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  return out;
}
