/**
 * The embedded Temporal dev server (`temporal server start-dev`): Web UI on, history persisted to
 * a file under the Herald home, Herald's search attributes registered.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_NAMES } from '../common/constants.js';
import { ensureDir } from '../runtime/paths.js';
import { waitForExit } from '../runtime/process-exit.js';
import type { ProcessIdentity } from '../runtime/process-identity.js';
import { isAlive, processCommandLine, processStartTime, selfIdentity } from '../runtime/process-identity.js';

export interface DevServerOptions {
  cliPath: string;
  port: number;
  /** Web UI port; undefined runs headless. */
  uiPort?: number | undefined;
  /** SQLite file for history; undefined keeps everything in memory. */
  dbFile?: string | undefined;
  namespace?: string;
  extraArgs?: string[];
  log?: (line: string) => void;
  /**
   * Run the server in its own process group (`herald dev`): a Ctrl-C in the terminal then reaches
   * Herald alone, which stops the worker first and the server after it; in the terminal's group
   * the server would die at once, under a worker still completing its tasks. Only for callers
   * that stop it on SIGINT/SIGTERM themselves — others would leave it running after a Ctrl-C.
   */
  ownProcessGroup?: boolean;
}

export interface DevServer {
  address: string;
  uiUrl: string | undefined;
  process: ChildProcess;
  /**
   * Resolves if the server exits on its own (not through stop()), with why: the stack watching it
   * must say so and stop, not keep a worker retrying against nothing.
   */
  died: Promise<string>;
  stop(): Promise<void>;
}

/** Raised when the server process died during start-up (as opposed to never answering). */
class StartupCrash extends Error {}

/**
 * Start the dev server. A crash during start-up gets one more try: one was seen once (exit code 2,
 * a Go panic, during a full test run on a loaded 2-core machine) and never again in reruns, so it
 * looks transient — a one-line warning and a second start serve a `herald dev` user better than a
 * failure. A crash that repeats (a bad history file, a taken port) still fails, with its reason.
 */
export async function startTemporalDevServer(o: DevServerOptions): Promise<DevServer> {
  try {
    return await startOnce(o);
  } catch (err) {
    if (!(err instanceof StartupCrash)) throw err;
    o.log?.(`${err.message}; trying once more`);
    await new Promise((r) => setTimeout(r, 1000));
    return await startOnce(o);
  }
}

/**
 * Dynamic config for throughput (docs/capacity.md; measured on the 2-core bench machine):
 * - `history.transferProcessorMaxPollRPS`: the transfer queue (which dispatches every workflow and
 *   activity task) polls at 20/s by default; back-to-back turns waited ≈25 ms a step on it.
 * - `system.enableActivityEagerExecution`: an activity scheduled by a workflow task completion comes
 *   back in the completion's reply to the same worker (the SDK asks for it by default) instead of
 *   through the matching service — one round trip less per model call and tool call.
 * - `system.forceSearchAttributesCacheRefreshOnRead`: the dev server sets it true, so every
 *   search-attribute upsert re-reads the attribute table; Herald's are registered at start.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, string>> = {
  'history.transferProcessorMaxPollRPS': '1000',
  'system.enableActivityEagerExecution': 'true',
  'system.forceSearchAttributesCacheRefreshOnRead': 'false',
};

/**
 * SQLite pragmas for a file-backed server (`herald dev`): the dev server's default rollback journal
 * with full sync fsyncs on every history write, which is what capped a single dev server at a few
 * turns a second. WAL with `synchronous=normal` stays crash-safe (a power cut can lose the last
 * transactions, never corrupt the file); an in-memory database has no journal to change.
 */
export const DEV_SERVER_SQLITE_PRAGMAS: readonly string[] = ['journal_mode=wal', 'synchronous=normal'];

/** The `temporal server start-dev` arguments for these options (pure: unit-tested). */
export function devServerArgs(o: Omit<DevServerOptions, 'cliPath' | 'log' | 'ownProcessGroup'>): string[] {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(o.port), '--log-level', 'warn'];
  args.push(...(o.uiPort ? ['--ui-port', String(o.uiPort)] : ['--headless']));
  if (o.dbFile) {
    args.push('--db-filename', o.dbFile);
    for (const pragma of DEV_SERVER_SQLITE_PRAGMAS) args.push('--sqlite-pragma', pragma);
  }
  if (o.namespace && o.namespace !== 'default') args.push('--namespace', o.namespace);
  for (const name of SEARCH_ATTRIBUTE_NAMES) args.push('--search-attribute', `${name}=Keyword`);
  for (const [key, value] of Object.entries(DEV_SERVER_DYNAMIC_CONFIG))
    args.push('--dynamic-config-value', `${key}=${value}`);
  // Last, so a caller's own values (tests' continue-as-new thresholds, a codec endpoint) win.
  args.push(...(o.extraArgs ?? []));
  return args;
}

async function startOnce(o: DevServerOptions): Promise<DevServer> {
  const args = devServerArgs(o);
  const pidFile = o.dbFile ? devServerPidFile(o.dbFile) : undefined;
  if (o.dbFile) {
    ensureDir(dirname(o.dbFile));
    await stopLeftoverServer(pidFile!);
  }

  const child = spawn(o.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: o.ownProcessGroup === true });
  // Last resort when this process exits without stop() (an uncaught error): do not leave it behind.
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  child.once('exit', () => process.removeListener('exit', killOnExit));
  if (pidFile && child.pid) {
    const record: PidRecord = {
      server: { pid: child.pid, startTime: processStartTime(child.pid) },
      owner: selfIdentity(),
    };
    writeFileSync(pidFile, `${JSON.stringify(record)}\n`);
  }
  // The head holds a Go panic's reason, the tail a log line's: keep both.
  let head = '';
  let output = '';
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (head.length < 4000) head += text.slice(0, 4000 - head.length);
    output = (output + text).slice(-4000);
  };
  const why = () => crashReason(head, output);
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null | undefined;
  let stopping = false;
  let onDied: (why: string) => void = () => {};
  const died = new Promise<string>((resolve) => (onDied = resolve));
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = code;
      if (!stopping)
        onDied(
          `the Temporal dev server (pid ${child.pid}) exited (${signal ?? `code ${code}`}); its last output: ${why()}`,
        );
      resolve();
    }),
  );

  const address = `127.0.0.1:${o.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== undefined)
      throw new StartupCrash(`the Temporal dev server exited (code ${exited}) while starting: ${why()}`);
    if (await reachable(address)) break;
    if (Date.now() > deadline) {
      stopping = true;
      child.kill('SIGKILL');
      throw new Error(`the Temporal dev server did not answer on ${address} within 60 s: ${why()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  o.log?.(`Temporal dev server on ${address}${o.uiPort ? `, Web UI http://127.0.0.1:${o.uiPort}` : ''}`);

  return {
    address,
    uiUrl: o.uiPort ? `http://127.0.0.1:${o.uiPort}` : undefined,
    process: child,
    died,
    async stop() {
      stopping = true;
      if (exited !== undefined) {
        if (pidFile) rmSync(pidFile, { force: true });
        return;
      }
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exitPromise;
      clearTimeout(timer);
      if (pidFile) rmSync(pidFile, { force: true });
    },
  };
}

/**
 * The line that says why the server died, first: a Go panic or fatal error (its goroutine dump
 * follows and is noise), else the last log lines.
 */
export function crashReason(head: string, tail: string): string {
  const fatal = /^(panic|fatal error): .*$/m.exec(head) ?? /^(panic|fatal error): .*$/m.exec(tail);
  const lastLines = tail.trim().split('\n').slice(-3).join(' | ');
  return fatal ? `${fatal[0].slice(0, 600)} (…) ${lastLines.slice(-300)}` : lastLines.slice(-800) || '(no output)';
}

/** What `<temporal dir>/dev-server.pid` holds: the server, and the Herald process that owns it. */
interface PidRecord {
  server: ProcessIdentity;
  owner: ProcessIdentity;
}

/** The pid file's record; an older Herald wrote a bare pid (its owner unknown). */
export function parsePidRecord(text: string): { server: ProcessIdentity; owner?: ProcessIdentity } | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { server: { pid: Number(trimmed) } };
  try {
    const v = JSON.parse(trimmed) as Partial<PidRecord>;
    if (!v.server || !Number.isInteger(v.server.pid) || v.server.pid <= 0) return undefined;
    return v.owner && Number.isInteger(v.owner.pid) ? { server: v.server, owner: v.owner } : { server: v.server };
  } catch {
    return undefined;
  }
}

/**
 * A dev server left running by a Herald that was killed (SIGKILL) still holds the history file and
 * the ports: stop it, so this start can take over its data. It is a leftover only if the Herald
 * that started it is gone — a live owner's server is never touched (`herald dev` also holds the
 * home's lock, runtime/home-lock.ts, so a second stack on the same home does not get this far).
 */
export async function stopLeftoverDevServer(dbFile: string): Promise<void> {
  await stopLeftoverServer(devServerPidFile(dbFile));
}

function devServerPidFile(dbFile: string): string {
  return join(dirname(dbFile), 'dev-server.pid');
}

async function stopLeftoverServer(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const record = parsePidRecord(readFileSync(pidFile, 'utf8'));
  const { server, owner } = record ?? {};
  if (owner && owner.pid !== process.pid && isAlive(owner))
    throw new Error(
      `the Temporal dev server for ${dirname(pidFile)} (pid ${server?.pid}) belongs to a running Herald (pid ${owner.pid}): use it, or set HERALD_HOME`,
    );
  rmSync(pidFile, { force: true });
  if (!server || !isAlive(server)) return;
  // A bare pid (older pid file) may have been reused: only a dev server is stopped.
  if (!processCommandLine(server.pid)?.includes('start-dev')) return;
  process.kill(server.pid, 'SIGTERM');
  if (!(await waitForExit(server.pid, 10_000))) process.kill(server.pid, 'SIGKILL');
}

async function reachable(address: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1000 });
    await connection.workflowService.getSystemInfo({});
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => {});
  }
}
