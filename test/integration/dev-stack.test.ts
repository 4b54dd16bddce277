/**
 * `herald dev` owns its Herald home (the real CLI in child processes, embedded Temporal and
 * Postgres): a second start on the same home refuses and leaves the first stack untouched;
 * SIGTERM — directly, or to the shell npm/npx puts in between — stops the stack and its servers;
 * a crashed stack's lock and servers are taken over by the next start; a server that dies under
 * a running stack stops it loudly.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import { LOCK_FILE, parseLock } from '../../runtime/home-lock.js';
import { waitForExit } from '../../runtime/process-exit.js';
import { freePort } from '../../runtime/ports.js';
import { pidExists } from '../../runtime/process-identity.js';
import { postgresDataDir } from '../../workers/embedded-postgres.js';
import { FakeProvider } from '../support/fake-provider.js';
import type { HeraldProcess } from '../support/processes.js';
import { HERALD_BIN, runHerald, spawnHerald } from '../support/processes.js';

/** The stack's own ports, fresh each call. */
async function ports(): Promise<Record<string, string>> {
  return {
    HERALD_TEMPORAL_PORT: String(await freePort()),
    HERALD_UI_PORT: String(await freePort()),
    HERALD_PG_PORT: String(await freePort()),
  };
}

describe('herald dev owns its home', () => {
  let fake: FakeProvider;
  let home: string;
  let base: NodeJS.ProcessEnv;
  const pids = new Set<number>();
  const running: HeraldProcess[] = [];

  before(async () => {
    fake = await FakeProvider.start();
    home = mkdtempSync(join(tmpdir(), 'herald-devstack-'));
    base = { ...process.env, HERALD_HOME: home, HERALD_PROVIDER: 'custom', HERALD_MODEL: 'fake-model' };
    base.OPENAI_BASE_URL = fake.url;
    for (const k of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'HERALD_TASK_QUEUE', 'npm_command']) delete base[k];
  });
  after(async () => {
    for (const p of running) p.kill('SIGKILL');
    for (const pid of pids) if (pidExists(pid)) process.kill(pid, 'SIGKILL');
    await fake.stop();
  });

  /** The servers the running stack started, by their pid files. */
  function serverPids(): { temporal: number; postgres: number } {
    const record = JSON.parse(readFileSync(join(home, 'temporal', 'dev-server.pid'), 'utf8')) as {
      server: { pid: number };
    };
    const postmaster = readFileSync(join(postgresDataDir(home), 'postmaster.pid'), 'utf8');
    const found = { temporal: record.server.pid, postgres: Number(postmaster.split('\n')[0]) };
    pids.add(found.temporal).add(found.postgres);
    return found;
  }

  async function dev(env: NodeJS.ProcessEnv, args: string[] = []): Promise<HeraldProcess> {
    const p = spawnHerald(['dev', ...args], env);
    running.push(p);
    await p.waitFor('Herald is running', 180_000);
    return p;
  }

  async function assertGone(...list: number[]): Promise<void> {
    for (const pid of list) assert.ok(await waitForExit(pid, 20_000), `process ${pid} is still running`);
  }

  it('refuses a second start on the same home with new ports; the first stack keeps answering; SIGTERM stops it and its servers', async () => {
    const env = { ...base, ...(await ports()) };
    const first = await dev(env);
    assert.match(first.output(), /Provider: +custom · model fake-model · http:\/\/127\.0\.0\.1:\d+/);
    assert.match(first.output(), /Key: +OPENAI_API_KEY is not set/);
    assert.match(first.output(), /Config: +none/);
    const servers = serverPids();

    const second = await runHerald(['dev'], { ...base, ...(await ports()) });
    assert.equal(second.code, 1, second.stderr);
    assert.match(
      second.stderr,
      /already running \(pid \d+, ports temporal \d+, web UI \d+, postgres \d+, since [^)]+\): use it, or set HERALD_HOME/,
    );

    // The first stack is untouched: its servers live, a Temporal client connects, the CLI works.
    assert.ok(pidExists(servers.temporal) && pidExists(servers.postgres));
    const connection = await Connection.connect({ address: `127.0.0.1:${env.HERALD_TEMPORAL_PORT}` });
    await connection.workflowService.getSystemInfo({});
    await connection.close();
    const sessions = await runHerald(['sessions'], base);
    assert.equal(sessions.code, 0, sessions.stderr);

    first.kill('SIGTERM');
    assert.equal(await first.exited, 0, first.output());
    await assertGone(servers.temporal, servers.postgres);
    assert.equal(existsSync(join(home, LOCK_FILE)), false);
  });

  it('stops when SIGTERM goes to the shell npm/npx runs it under (the shell dies, herald notices)', async () => {
    const env = { ...base, ...(await ports()), npm_command: 'exec', NO_COLOR: '1' };
    // What `npx herald dev` runs: npm → sh -c → node. `; true` keeps sh from exec-ing node.
    const sh = spawn('sh', ['-c', `"${process.execPath}" "${HERALD_BIN}" dev --no-worker; true`], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    sh.stderr.on('data', (c: Buffer) => (out += c.toString()));
    for (let i = 0; !out.includes('Herald is running'); i++) {
      assert.ok(i < 1800 && sh.exitCode === null, `herald dev did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const owner = parseLock(readFileSync(join(home, LOCK_FILE), 'utf8'))!;
    pids.add(owner.pid);
    const servers = serverPids();
    sh.kill('SIGTERM');
    await assertGone(owner.pid, servers.temporal, servers.postgres);
    assert.equal(existsSync(join(home, LOCK_FILE)), false);
  });

  it('after a crash (SIGKILL) the next start takes over the stale lock and the leftover servers, on the same ports', async () => {
    const env = { ...base, ...(await ports()) };
    const crashed = await dev(env, ['--no-worker']);
    const leftovers = serverPids();
    crashed.kill('SIGKILL');
    await crashed.exited;
    assert.ok(existsSync(join(home, LOCK_FILE)), 'a killed stack leaves its lock');
    assert.ok(pidExists(leftovers.temporal) && pidExists(leftovers.postgres), 'and its servers');

    const next = await dev(env, ['--no-worker']);
    await assertGone(leftovers.temporal, leftovers.postgres);
    const servers = serverPids();

    // A server that dies under a running stack stops it, loudly, with exit code 1.
    process.kill(servers.temporal, 'SIGKILL');
    assert.equal(await next.exited, 1);
    assert.match(next.output(), /herald dev: the Temporal dev server \(pid \d+\) exited \(SIGKILL\)/);
    await assertGone(servers.postgres);
    assert.equal(existsSync(join(home, LOCK_FILE)), false);
  });

  it('with the stack down, a command names the address it tried and how to start the stack', async () => {
    const port = await freePort();
    const r = await runHerald(['state', 'nosuch'], { ...base, HERALD_TEMPORAL_PORT: String(port) });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`cannot reach Temporal at 127\\.0\\.0\\.1:${port} .*\`herald dev\``));
  });
});
