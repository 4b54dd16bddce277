/**
 * A real Herald stack for one integration test file: the shared Temporal dev server and Postgres
 * (started by scripts/run-tests.ts, or here when a file runs alone), a fresh database and task
 * queue, a fake provider, and an in-process worker.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { HeraldClient } from '../../client/client.js';
import type { StoredMessage } from '../../common/messages.js';
import type { Db } from '../../store/db.js';
import { createDb } from '../../store/db.js';
import type { StoredEvent } from '../../store/events.js';
import { readEvents } from '../../store/events.js';
import { loadTranscript } from '../../store/messages.js';
import { migrate } from '../../store/migrate.js';
import type { HeraldConfig } from '../../runtime/config.js';
import { loadConfig } from '../../runtime/config.js';
import { createLogger } from '../../runtime/logger.js';
import { clientDataConverter } from '../../runtime/data-converter.js';
import { freePort } from '../../runtime/ports.js';
import { ensureTemporalCli } from '../../runtime/temporal-cli.js';
import { startEmbeddedPostgres } from '../../workers/embedded-postgres.js';
import { startTemporalDevServer } from '../../workers/temporal-dev-server.js';
import type { RunningWorker } from '../../workers/worker.js';
import { startWorker } from '../../workers/worker.js';
import { FakeProvider } from './fake-provider.js';

export const FAKE_MODEL = 'fake-model';

interface SharedInfra {
  temporalAddress: string;
  adminDatabaseUrl: string;
}

let shared: Promise<SharedInfra> | undefined;
/** How to stop what infra() started itself (nothing when the test runner's servers are used). */
const ownStops: Array<() => Promise<void>> = [];
/** The same, synchronously, for a process that exits without calling stopSharedInfra(). */
const ownKills: Array<() => void> = [];
let exitHooked = false;

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const kill of ownKills.splice(0).reverse()) {
      try {
        kill();
      } catch {
        // best effort: the process is exiting
      }
    }
  });
}

/** The run's shared servers, or (running one file by hand, or `npm run bench`) servers started for this process. */
function infra(): Promise<SharedInfra> {
  shared ??= (async () => {
    let temporalAddress = process.env.HERALD_TEST_TEMPORAL_ADDRESS;
    if (!temporalAddress) {
      const server = await startTemporalDevServer({ cliPath: ensureTemporalCli(), port: await freePort() });
      hookExit();
      const kill = () => server.process.kill('SIGKILL');
      ownKills.push(kill);
      ownStops.push(async () => {
        ownKills.splice(ownKills.indexOf(kill), 1);
        await server.stop();
      });
      temporalAddress = server.address;
    }
    let adminDatabaseUrl = process.env.HERALD_TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL;
    if (!adminDatabaseUrl) {
      const dataDir = mkdtempSync(join(tmpdir(), 'herald-pg-'));
      hookExit();
      const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
      let pgServer: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
      try {
        pgServer = await startEmbeddedPostgres(dataDir, await freePort());
      } catch (err) {
        removeDir();
        throw err;
      }
      // At exit: an immediate shutdown (SIGQUIT to the postmaster), then the folder goes.
      const kill = () => {
        const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
        if (pid > 0) process.kill(pid, 'SIGQUIT');
        removeDir();
      };
      ownKills.push(kill);
      ownStops.push(async () => {
        ownKills.splice(ownKills.indexOf(kill), 1);
        await pgServer.stop();
        removeDir();
      });
      adminDatabaseUrl = pgServer.url;
    }
    return { temporalAddress, adminDatabaseUrl };
  })();
  return shared;
}

/** Stop the servers infra() started itself and remove their data (Postgres last started, first stopped). */
export async function stopSharedInfra(): Promise<void> {
  for (const stop of ownStops.splice(0).reverse()) await stop().catch(() => {});
  shared = undefined;
}

async function createDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `herald_test_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}

export interface TestStackOptions {
  /** Start an in-process worker (default true). */
  worker?: boolean;
  /** Extra environment for the worker's config. */
  env?: Record<string, string>;
  /** A config file (YAML) for the worker, written to the stack's Herald home. */
  configYaml?: string | ((fake: FakeProvider) => string);
  /** Use this Temporal server instead of the run's shared one (a test that needs its own flags). */
  temporalAddress?: string;
  /** More workspace roots besides `workspaces` (folders the test made elsewhere). */
  workspaceRoots?: string[];
}

export interface TestStack {
  fake: FakeProvider;
  config: HeraldConfig;
  temporal: Client;
  herald: HeraldClient;
  db: Db;
  worker: RunningWorker | undefined;
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  /** The worker's Herald home (config, SOUL.md, history): never a workspace. */
  home: string;
  /** The stack's workspace root, outside the Herald home: a test's workspaces go in here. */
  workspaces: string;
  /** Environment for a worker in a child process, equivalent to this stack's config. */
  workerEnv(): NodeJS.ProcessEnv;
  /** Another in-process worker on the stack's task queue, optionally with more environment (a build id). */
  startWorker(env?: Record<string, string>): Promise<RunningWorker>;
  transcript(sessionId: string): Promise<StoredMessage[]>;
  events(sessionId: string): Promise<StoredEvent[]>;
  close(): Promise<void>;
}

export async function createTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const servers = await infra();
  const { adminDatabaseUrl } = servers;
  const temporalAddress = options.temporalAddress ?? servers.temporalAddress;
  const database = await createDatabase(adminDatabaseUrl);
  const fake = await FakeProvider.start();
  const taskQueue = `herald-test-${randomBytes(4).toString('hex')}`;
  const home = mkdtempSync(join(tmpdir(), 'herald-home-'));
  // Workspaces lie outside the Herald home (a workspace may never be in it), in a root the worker is told of.
  const workspaces = mkdtempSync(join(tmpdir(), 'herald-workspaces-'));
  const roots = [workspaces, ...(options.workspaceRoots ?? []), options.env?.HERALD_WORKSPACE].filter(
    (r): r is string => !!r,
  );
  if (options.configYaml) {
    writeFileSync(
      join(home, 'config.yaml'),
      typeof options.configYaml === 'string' ? options.configYaml : options.configYaml(fake),
    );
  }
  const envVars: Record<string, string> = {
    TEMPORAL_ADDRESS: temporalAddress,
    DATABASE_URL: database.url,
    HERALD_TASK_QUEUE: taskQueue,
    HERALD_HOME: home,
    HERALD_PROVIDER: 'custom',
    HERALD_MODEL: FAKE_MODEL,
    OPENAI_BASE_URL: fake.url,
    // Declared endpoints: workflow input may only pick these (docs/endpoints.md).
    ANTHROPIC_BASE_URL: fake.anthropicUrl,
    HERALD_LOG_LEVEL: process.env.HERALD_LOG_LEVEL ?? 'warn',
    // A closing test stack does not wait the production grace for calls the test left hanging.
    HERALD_SHUTDOWN_GRACE_SECONDS: '5',
    // Tools run in the real sandbox (CI installs bubblewrap); HERALD_TEST_SANDBOX=off runs them without.
    HERALD_SANDBOX: process.env.HERALD_TEST_SANDBOX ?? 'required',
    HERALD_WORKSPACE_ROOTS: roots.join(delimiter),
    ...(options.env ?? {}),
  };
  const config = loadConfig({ PATH: process.env.PATH ?? '', ...envVars });
  const db = createDb(database.url, 4);
  await migrate(db);
  // Both clients carry the stack's codec keys (HERALD_CODEC_KEY in `env`), like every Herald client.
  const temporal = new Client({
    connection: await Connection.connect({ address: temporalAddress }),
    dataConverter: clientDataConverter(config.codec),
  });
  const herald = await HeraldClient.connect({
    address: temporalAddress,
    namespace: 'default',
    taskQueue,
    databaseUrl: database.url,
    uiUrl: undefined,
    codec: config.codec,
  });
  const workers: RunningWorker[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    const own = Object.keys(extra).length ? loadConfig({ PATH: process.env.PATH ?? '', ...envVars, ...extra }) : config;
    const w = await startWorker({
      config: own,
      log: createLogger(own.logLevel),
      env: { ...process.env, ...envVars, ...extra },
    });
    workers.push(w);
    return w;
  };
  let worker: RunningWorker | undefined;
  try {
    worker = options.worker === false ? undefined : await start();
  } catch (err) {
    // Leave nothing behind that would keep the test process alive.
    await herald.close().catch(() => {});
    await temporal.connection.close().catch(() => {});
    await db.end().catch(() => {});
    await fake.stop().catch(() => {});
    await database.drop().catch(() => {});
    throw err;
  }

  return {
    fake,
    config,
    temporal,
    herald,
    db,
    worker,
    databaseUrl: database.url,
    temporalAddress,
    taskQueue,
    home,
    workspaces,
    workerEnv: () => ({ ...process.env, ...envVars }),
    startWorker: start,
    transcript: (sessionId) => loadTranscript(db, sessionId),
    events: (sessionId) => readEvents(db, sessionId, 0, 10_000),
    async close() {
      for (const w of workers) await w.shutdown().catch(() => {});
      await herald.close().catch(() => {});
      await temporal.connection.close().catch(() => {});
      await db.end().catch(() => {});
      await fake.stop().catch(() => {});
      await database.drop().catch(() => {});
    },
  };
}

/** Poll `fn` until it returns a truthy value. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
