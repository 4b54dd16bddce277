/**
 * One bounded walk of a workspace around each sandboxed call: how much disk it holds (for the
 * workspace cap), and, when tools run as the sandbox user, the ownership that lets them work there.
 *
 * - Measure: allocated blocks of every inode once (hard links once, sparse files as allocated).
 * - Adopt (before a call, root worker): every entry becomes the sandbox user's, so tools can edit,
 *   `chmod +x` and delete what the worker or the user put there; the workspace folder itself and
 *   each repository's `.git` folder keep their owner (the user's own git on the host checks those
 *   two for ownership) and are shared with the sandbox group instead (group-writable, setgid).
 *   Protected and hidden paths are left as they are.
 * - Strip (after a call): a setuid or setgid bit on a regular file is removed (the seccomp filter
 *   refuses setting one; this is the second wall), and so is write access for every host user
 *   ("others") on files and folders, through which another local user could plant what the worker
 *   or the workspace's owner later trusts.
 *
 * Nothing is changed through a path: each entry is opened without following a final symlink and
 * without blocking, its real path (`/proc/self/fd/N`) must still be inside the workspace, and the
 * change is made on the descriptor — so another call swapping a folder for a symlink mid-walk moves
 * nothing outside. Symlinks, sockets and device nodes are never opened or changed. Bounded by an
 * entry count and a deadline; other filesystems mounted inside the workspace are not entered.
 */
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { lstat, open, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isInside } from './host.js';

export interface WalkOptions {
  /** Make entries the sandbox user's (see the module comment). */
  adopt?: { uid: number; gid: number };
  /** Remove setuid/setgid bits from regular files. */
  strip?: boolean;
  /** Paths never changed or entered (the Herald home, protected paths). */
  skip?: readonly string[];
  maxEntries?: number;
  deadlineMs?: number;
}

export interface WalkResult {
  /** Bytes allocated (a lower bound when the walk was cut short). */
  bytes: number;
  entries: number;
  /** False when the entry budget or the deadline cut the walk short. */
  complete: boolean;
  adopted: number;
  stripped: number;
}

export const WALK_MAX_ENTRIES = 200_000;
export const WALK_DEADLINE_MS = 15_000;
const BATCH = 64;
const OTHERS_WRITE = 0o002;
const SHARED_DIR_BITS = 0o2070;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

export async function walkWorkspace(root: string, o: WalkOptions = {}): Promise<WalkResult> {
  const maxEntries = o.maxEntries ?? WALK_MAX_ENTRIES;
  const deadline = Date.now() + (o.deadlineMs ?? WALK_DEADLINE_MS);
  const skip = o.skip ?? [];
  const result: WalkResult = { bytes: 0, entries: 0, complete: true, adopted: 0, stripped: 0 };
  const seen = new Set<string>();
  const rootStat = await lstat(root);
  if (!rootStat.isDirectory()) return result;
  const device = rootStat.dev;

  const count = (st: Stats) => {
    if (st.nlink > 1) {
      const key = `${st.dev}:${st.ino}`;
      if (seen.has(key)) return;
      seen.add(key);
    }
    result.bytes += st.blocks * 512;
  };

  /** Change one entry through a descriptor checked to be the same inode, inside the workspace. */
  const onDescriptor = async (path: string, st: Stats, change: (fh: FileHandle) => Promise<void>) => {
    let fh;
    try {
      fh = await open(path, OPEN_FLAGS | (st.isDirectory() ? constants.O_DIRECTORY : 0));
    } catch {
      return false;
    }
    try {
      const now = await fh.stat();
      if (now.ino !== st.ino || now.dev !== st.dev) return false;
      const where = await readlink(`/proc/self/fd/${fh.fd}`);
      if (!isInside(root, where)) return false;
      await change(fh);
      return true;
    } catch {
      return false;
    } finally {
      await fh.close().catch(() => {});
    }
  };

  const shared = (st: Stats) => st.gid === o.adopt!.gid && (st.mode & SHARED_DIR_BITS) === SHARED_DIR_BITS;

  const visit = async (path: string, st: Stats, isRepo: boolean) => {
    count(st);
    const kind = st.isFile() || st.isDirectory() || st.isFIFO();
    if (!kind) return; // symlinks, sockets, devices: never opened, never changed
    if (o.adopt) {
      const a = o.adopt;
      const keepOwner = path === root || isRepo;
      if (keepOwner ? !shared(st) : st.uid !== a.uid || st.gid !== a.gid) {
        const done = await onDescriptor(path, st, async (fh) => {
          if (keepOwner) {
            await fh.chown(st.uid, a.gid);
            await fh.chmod((st.mode & 0o7777) | SHARED_DIR_BITS);
          } else await fh.chown(a.uid, a.gid);
        });
        if (done) result.adopted++;
      }
    }
    if (o.strip && !st.isFIFO()) {
      const keep = st.isFile() ? 0o777 & ~OTHERS_WRITE : 0o7777 & ~OTHERS_WRITE;
      if ((st.mode & 0o7777 & ~keep) !== 0) {
        const done = await onDescriptor(path, st, (fh) => fh.chmod(st.mode & keep));
        if (done) result.stripped++;
      }
    }
  };

  await visit(root, rootStat, false);
  const queue: string[] = [root];
  while (queue.length) {
    const dir = queue.shift()!;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (let i = 0; i < names.length; i += BATCH) {
      if (result.entries >= maxEntries || Date.now() > deadline) {
        result.complete = false;
        return result;
      }
      const batch = names.slice(i, i + BATCH).map((n) => join(dir, n));
      result.entries += batch.length;
      await Promise.all(
        batch.map(async (path) => {
          if (skip.some((s) => isInside(s, path))) return;
          const st = await lstat(path).catch(() => undefined);
          if (!st) return;
          const isRepo = st.isDirectory() && path.endsWith('/.git');
          await visit(path, st, isRepo);
          if (st.isDirectory() && st.dev === device) queue.push(path);
        }),
      );
    }
  }
  return result;
}
