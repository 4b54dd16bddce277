/**
 * One `herald dev` per Herald home (runtime/home-lock.ts): a live owner makes a second start
 * refuse with a message naming it; a dead owner's lock (a crash, SIGKILL, a reused pid) is stale
 * and taken over; release removes only our own lock.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  HomeLockedError,
  LOCK_FILE,
  acquireHomeLock,
  alreadyRunningMessage,
  homeLockOwner,
  parseLock,
} from '../../runtime/home-lock.js';
import { isAlive, processStartTime, selfIdentity, startTimeFromStat } from '../../runtime/process-identity.js';

describe('home lock', () => {
  let root: string;
  let n = 0;
  const home = () => mkdtempSync(join(root, `h${n++}-`));
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'herald-lock-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('refuses a second start while the owner lives, naming its pid and ports', () => {
    const h = home();
    const first = acquireHomeLock(h, { ports: { temporal: 7233, ui: 8233, postgres: 54329 } });
    assert.throws(
      () => acquireHomeLock(h, { ports: { temporal: 7300 } }),
      (err: unknown) =>
        err instanceof HomeLockedError &&
        err.owner.pid === process.pid &&
        /already running \(pid \d+, ports temporal 7233, web UI 8233, postgres 54329, since .*\): use it, or set HERALD_HOME/.test(
          err.message,
        ),
    );
    assert.equal(homeLockOwner(h)?.pid, process.pid);
    first.release();
    assert.equal(existsSync(join(h, LOCK_FILE)), false);
    assert.equal(homeLockOwner(h), undefined);
    acquireHomeLock(h, { ports: {} }).release();
  });

  it('takes over a lock whose owner is dead, and one with garbage in it', () => {
    const h = home();
    writeFileSync(
      join(h, LOCK_FILE),
      JSON.stringify({ pid: 999_999_999, startTime: '1', ports: { temporal: 1 }, startedAt: 'x' }),
    );
    const lock = acquireHomeLock(h, { ports: { temporal: 2 } });
    assert.equal(parseLock(readFileSync(join(h, LOCK_FILE), 'utf8'))?.ports.temporal, 2);
    lock.release();

    writeFileSync(join(h, LOCK_FILE), 'not json');
    acquireHomeLock(h, { ports: {} }).release();
  });

  it('takes over a lock whose pid now belongs to another process (pid reuse: the start time differs)', () => {
    const h = home();
    const me = selfIdentity();
    writeFileSync(join(h, LOCK_FILE), JSON.stringify({ pid: me.pid, startTime: 'an-earlier-boot', ports: {} }));
    if (me.startTime !== undefined) acquireHomeLock(h, { ports: {} }).release();
    else assert.throws(() => acquireHomeLock(h, { ports: {} }), HomeLockedError); // no /proc: pid alone
  });

  it('release leaves a lock that is no longer ours alone', () => {
    const h = home();
    const lock = acquireHomeLock(h, { ports: {} });
    const other = JSON.stringify({ pid: 1, ports: {}, startedAt: 'later' });
    writeFileSync(join(h, LOCK_FILE), other);
    lock.release();
    assert.equal(readFileSync(join(h, LOCK_FILE), 'utf8'), other);
  });

  it('uses the liveness check it is given', () => {
    const h = home();
    writeFileSync(join(h, LOCK_FILE), JSON.stringify({ pid: 4242, ports: { ui: 1 }, startedAt: 't' }));
    assert.throws(() => acquireHomeLock(h, { ports: {}, alive: () => true }), HomeLockedError);
    acquireHomeLock(h, { ports: {}, alive: () => false }).release();
  });

  it('formats the refusal', () => {
    assert.equal(
      alreadyRunningMessage('/h', { pid: 7, ports: { postgres: 5 }, startedAt: 'T' }),
      'herald dev for /h is already running (pid 7, ports postgres 5, since T): use it, or set HERALD_HOME to start another stack',
    );
    assert.match(alreadyRunningMessage('/h', { pid: 7, ports: {}, startedAt: 'T' }), /ports none of its own/);
  });
});

describe('process identity', () => {
  it('reads the start time after a command name with spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3)).join(' ');
    assert.equal(startTimeFromStat(`123 (a (b) c) ${fields}`), '22');
  });

  it('a live process matches its own start time; a different start time or a dead pid does not', () => {
    const me = selfIdentity();
    assert.equal(isAlive(me), true);
    assert.equal(isAlive({ pid: 999_999_999 }), false);
    if (processStartTime(process.pid) !== undefined) assert.equal(isAlive({ pid: me.pid, startTime: 'other' }), false);
    const probe = { exists: () => true, startTime: () => undefined };
    assert.equal(isAlive({ pid: 5, startTime: 'x' }, probe), true, 'no /proc: trust the pid');
  });
});
