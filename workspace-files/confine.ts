/**
 * Workspace confinement for file tools (docs/tools.md): a path resolves inside the conversation's
 * workspace or is refused. `..`, absolute paths elsewhere, and symlinks that lead out are all
 * caught by comparing real paths.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

export class WorkspaceEscapeError extends Error {
  constructor(path: string) {
    super(`path "${path}" is outside the workspace; file tools only work inside it`);
    this.name = 'WorkspaceEscapeError';
  }
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

const MAX_LINK_HOPS = 40;

/**
 * Real path of `p` when it exists; otherwise the real path of its nearest existing ancestor plus
 * the missing rest. A dangling symlink is followed to where a write would land.
 */
async function realpathAllowMissing(p: string, hops = 0): Promise<string> {
  try {
    return await realpath(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    if (hops > MAX_LINK_HOPS) throw Object.assign(new Error(`too many symbolic links at ${p}`), { code: 'ELOOP' });
    const link = await lstat(p).catch(() => undefined);
    if (link?.isSymbolicLink()) return await realpathAllowMissing(resolve(dirname(p), await readlink(p)), hops + 1);
    const parent = dirname(p);
    if (parent === p) return p;
    return resolve(await realpathAllowMissing(parent, hops), relative(parent, p));
  }
}

/** Resolve a tool's path argument to an absolute real path inside the workspace `root`. */
export async function resolveInWorkspace(root: string, path: string): Promise<string> {
  const realRoot = await realpath(root);
  const candidate = resolve(realRoot, path);
  if (!inside(realRoot, candidate)) throw new WorkspaceEscapeError(path);
  let real: string;
  try {
    real = await realpathAllowMissing(candidate);
  } catch (err) {
    // Name the path as the model wrote it, never the host's absolute path.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR')
      throw Object.assign(new Error(`path "${path}": a part of it is a file, not a directory`), { code });
    if (code === 'ELOOP') throw Object.assign(new Error(`path "${path}": too many symbolic links`), { code });
    throw err;
  }
  if (!inside(realRoot, real)) throw new WorkspaceEscapeError(path);
  return real;
}

/** A path relative to the workspace, for display and batch planning. */
export function workspaceRelative(root: string, abs: string): string {
  return relative(root, abs) || '.';
}
