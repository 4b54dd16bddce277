/**
 * Opening workspace files so that neither a race nor a special file can turn a file tool against
 * the worker (docs/tools.md, docs/tool-sandbox.md). The path is first resolved inside the workspace
 * (`resolveInWorkspace`); then the file is opened without following a symlink at its last
 * component and without blocking (a FIFO would otherwise hold one of Node's four file-pool threads
 * forever, and five of them stall every conversation on the worker), only a regular file is
 * accepted, and on Linux the opened descriptor's real path (`/proc/self/fd/N`) must still be inside
 * the workspace — so a directory swapped for a symlink between the check and the open is caught.
 */
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open, readlink, realpath, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { isInside } from '../sandbox/host.js';
import { WorkspaceEscapeError } from './confine.js';

export class NotRegularFileError extends Error {
  constructor(path: string) {
    super(`${path} is not a regular file (a FIFO, socket or device); file tools only read and write regular files`);
    this.name = 'NotRegularFileError';
  }
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/** The opened file is where the workspace is (Linux: by its descriptor; elsewhere by its path). */
async function assertInside(fh: FileHandle, root: string, abs: string, shown: string): Promise<void> {
  let where: string;
  try {
    where = await readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    where = await realpath(abs);
  }
  if (!isInside(await realpath(root), where)) throw new WorkspaceEscapeError(shown);
}

function explain(err: unknown, shown: string): never {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP')
    throw Object.assign(new Error(`${shown} changed into a symbolic link while being opened; try again`), { code });
  throw err;
}

/** Open a workspace file for reading (see the module comment). `abs` comes from `resolveInWorkspace`. */
export async function openForReading(root: string, abs: string, shown: string): Promise<FileHandle> {
  let fh: FileHandle;
  try {
    fh = await open(abs, READ_FLAGS);
  } catch (err) {
    explain(err, shown);
  }
  try {
    if (!(await fh.stat()).isFile()) throw new NotRegularFileError(shown);
    await assertInside(fh, root, abs, shown);
    return fh;
  } catch (err) {
    await fh.close().catch(() => {});
    throw err;
  }
}

/** The whole content of a regular workspace file. */
export async function readWorkspaceFile(root: string, abs: string, shown: string): Promise<Buffer> {
  const fh = await openForReading(root, abs, shown);
  try {
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/**
 * Write `data` to `target` atomically: a temporary file in the same directory (same filesystem, so
 * the rename is atomic), created exclusively and checked to be inside the workspace, is written,
 * given `mode` (the replaced file's permission bits — never setuid, setgid or sticky: the worker
 * must not hand a privileged bit on to content it wrote) and renamed over the target once its
 * directory is checked again. On any failure the temporary file is removed and the target is untouched.
 */
export async function writeFileAtomic(root: string, target: string, data: string, mode?: number): Promise<void> {
  const dir = dirname(target);
  // Keep the name under NAME_MAX even for long file names.
  const tmp = join(dir, `.${basename(target).slice(0, 100)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NOCTTY,
    0o644,
  );
  try {
    try {
      await assertInside(fh, root, tmp, target);
      await fh.writeFile(data, 'utf8');
      if (mode !== undefined) await fh.chmod(mode & 0o777);
    } finally {
      await fh.close();
    }
    if ((await realpath(dir)) !== dir) throw new WorkspaceEscapeError(target);
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
}
