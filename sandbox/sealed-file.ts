/**
 * A file the worker builds once and holds open with no name on any filesystem: the seccomp program,
 * the network bridge's source, the sandbox's git identity. bubblewrap reads each one from a file
 * descriptor (`--seccomp FD`, `--ro-bind-data FD`), so no sandboxed process can reach a path where
 * it lives and swap its content for a later call. Each call opens its own descriptor through
 * `/proc/self/fd` (its own read offset, read-only), whatever the calls before it did.
 */
import { closeSync, constants, mkdtempSync, openSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Linux's O_TMPFILE (with O_DIRECTORY), which Node does not name: a file that never had a path. */
const O_TMPFILE = 0o20000000 | constants.O_DIRECTORY;

export class SealedFile {
  private constructor(private readonly fd: number) {}

  static create(data: string | Buffer): SealedFile {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let fd: number;
    try {
      fd = openSync(tmpdir(), O_TMPFILE | constants.O_RDWR, 0o400);
    } catch {
      // A filesystem without O_TMPFILE: a private folder, a name unlinked right after it is opened.
      const dir = mkdtempSync(join(tmpdir(), 'herald-sealed-'));
      const path = join(dir, 'f');
      fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o400);
      unlinkSync(path);
      rmdirSync(dir);
    }
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at, at);
      // Read-only from here on: the writable descriptor is closed.
      const ro = openSync(`/proc/self/fd/${fd}`, constants.O_RDONLY);
      return new SealedFile(ro);
    } finally {
      closeSync(fd);
    }
  }

  /** A fresh read-only descriptor at offset 0, for one call (the caller closes it). */
  open(): number {
    return openSync(`/proc/self/fd/${this.fd}`, constants.O_RDONLY);
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}
