/**
 * One `herald dev` per Herald home. The running stack holds `<home>/dev.lock`, a small JSON file
 * naming its process (pid + start time, see process-identity.ts), its ports and when it started.
 * A second start on the same home finds a live owner and refuses; a lock whose owner is gone (a
 * crash, SIGKILL) is stale and the next start takes it over — together with whatever servers the
 * dead owner left behind, which are leftovers only then.
 *
 * Why a file and not flock(2): Node has no flock without a native addon. The file is created
 * atomically (written under a private name, then hard-linked into place, so no reader ever sees
 * it half-written) and liveness is a pid + process-start-time check, which a reused pid cannot
 * pass. Breaking a stale lock renames it aside first and checks that what was moved is the stale
 * lock that was judged, so two starts racing over one stale lock cannot both win.
 * Limit: owners in another pid namespace (a container sharing the home) look dead.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessIdentity } from './process-identity.js';
import { isAlive, selfIdentity } from './process-identity.js';

export interface StackPorts {
  temporal?: number | undefined;
  ui?: number | undefined;
  postgres?: number | undefined;
}

export interface LockOwner extends ProcessIdentity {
  ports: StackPorts;
  startedAt: string;
}

export const LOCK_FILE = 'dev.lock';

/** A second `herald dev` on a home that has a live one. */
export class HomeLockedError extends Error {
  constructor(
    readonly home: string,
    readonly owner: LockOwner,
  ) {
    super(alreadyRunningMessage(home, owner));
    this.name = 'HomeLockedError';
  }
}

export function describePorts(ports: StackPorts): string {
  const parts: string[] = [];
  if (ports.temporal) parts.push(`temporal ${ports.temporal}`);
  if (ports.ui) parts.push(`web UI ${ports.ui}`);
  if (ports.postgres) parts.push(`postgres ${ports.postgres}`);
  return parts.join(', ') || 'none of its own';
}

export function alreadyRunningMessage(home: string, owner: LockOwner): string {
  return (
    `herald dev for ${home} is already running (pid ${owner.pid}, ports ${describePorts(owner.ports)}, ` +
    `since ${owner.startedAt}): use it, or set HERALD_HOME to start another stack`
  );
}

/** A lock file's owner, or undefined when the text is not one (garbage counts as stale). */
export function parseLock(text: string): LockOwner | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockOwner>;
    if (!Number.isInteger(v.pid) || (v.pid as number) <= 0) return undefined;
    return {
      pid: v.pid as number,
      startTime: typeof v.startTime === 'string' ? v.startTime : undefined,
      ports: v.ports && typeof v.ports === 'object' ? v.ports : {},
      startedAt: typeof v.startedAt === 'string' ? v.startedAt : 'an unknown time',
    };
  } catch {
    return undefined;
  }
}

export interface HomeLock {
  path: string;
  owner: LockOwner;
  /** Remove the lock if it is still ours (idempotent). */
  release(): void;
}

type Read = { kind: 'missing' } | { kind: 'present'; text: string; owner: LockOwner | undefined };

function readLock(path: string): Read {
  try {
    const text = readFileSync(path, 'utf8');
    return { kind: 'present', text, owner: parseLock(text) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw err;
  }
}

/** Create `path` holding `text` only if it does not exist; false if it does. */
function createExclusive(path: string, text: string): boolean {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, text, { mode: 0o644 });
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
    // A file system without hard links: an exclusive create (a reader may briefly see it empty).
    try {
      const fd = openSync(path, 'wx');
      try {
        writeFileSync(fd, text);
      } finally {
        closeSync(fd);
      }
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Move a stale lock out of the way, unless someone replaced it since it was read. */
function breakStale(path: string, staleText: string): void {
  const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else broke it
    throw err;
  }
  const moved = readFileSync(aside, 'utf8');
  if (moved !== staleText) {
    // A racing start took the lock between our read and our rename: put its lock back.
    try {
      linkSync(aside, path);
    } catch {
      // Another lock is in place already; the loop re-reads it.
    }
  }
  unlinkSync(aside);
}

export interface AcquireOptions {
  ports: StackPorts;
  /** Liveness check (tests). */
  alive?: (owner: LockOwner) => boolean;
  now?: () => Date;
}

/** Take the home's lock, or throw HomeLockedError naming the live owner. */
export function acquireHomeLock(home: string, o: AcquireOptions): HomeLock {
  const path = join(home, LOCK_FILE);
  const alive = o.alive ?? isAlive;
  const owner: LockOwner = { ...selfIdentity(), ports: o.ports, startedAt: (o.now?.() ?? new Date()).toISOString() };
  const text = `${JSON.stringify(owner)}\n`;
  for (let attempt = 0; attempt < 10; attempt++) {
    if (createExclusive(path, text)) {
      let held = true;
      const release = () => {
        if (!held) return;
        held = false;
        const now = readLock(path);
        if (now.kind === 'present' && now.text === text) rmSync(path, { force: true });
      };
      return { path, owner, release };
    }
    const current = readLock(path);
    if (current.kind === 'missing') continue; // released meanwhile
    if (current.owner && alive(current.owner)) throw new HomeLockedError(home, current.owner);
    breakStale(path, current.text);
  }
  throw new Error(`could not take ${path}: other starts keep replacing it`);
}

/** The live owner of the home's lock, if any (for messages and other commands). */
export function homeLockOwner(home: string, alive: (owner: LockOwner) => boolean = isAlive): LockOwner | undefined {
  const current = readLock(join(home, LOCK_FILE));
  return current.kind === 'present' && current.owner && alive(current.owner) ? current.owner : undefined;
}
