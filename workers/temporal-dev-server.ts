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
}

export interface DevServer {
  address: string;
  uiUrl: string | undefined;
  process: ChildProcess;
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

async function startOnce(o: DevServerOptions): Promise<DevServer> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(o.port), '--log-level', 'warn'];
  args.push(...(o.uiPort ? ['--ui-port', String(o.uiPort)] : ['--headless']));
  const pidFile = o.dbFile ? join(dirname(o.dbFile), 'dev-server.pid') : undefined;
  if (o.dbFile) {
    ensureDir(dirname(o.dbFile));
    args.push('--db-filename', o.dbFile);
    await stopLeftoverServer(pidFile!);
  }
  if (o.namespace && o.namespace !== 'default') args.push('--namespace', o.namespace);
  for (const name of SEARCH_ATTRIBUTE_NAMES) args.push('--search-attribute', `${name}=Keyword`);
  args.push(...(o.extraArgs ?? []));

  const child = spawn(o.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (pidFile && child.pid) writeFileSync(pidFile, String(child.pid));
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
  const exitPromise = new Promise<void>((resolve) => child.once('exit', (code) => ((exited = code), resolve())));

  const address = `127.0.0.1:${o.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== undefined)
      throw new StartupCrash(`the Temporal dev server exited (code ${exited}) while starting: ${why()}`);
    if (await reachable(address)) break;
    if (Date.now() > deadline) {
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
    async stop() {
      if (exited !== undefined) return;
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

/**
 * A dev server left running by a Herald that was killed (SIGKILL) still holds the history file and
 * the ports: stop it, so this start can take over its data.
 */
async function stopLeftoverServer(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 0) return;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return; // gone (or not Linux: then leave it alone)
  }
  if (!cmdline.includes('start-dev')) return;
  process.kill(pid, 'SIGTERM');
  if (!(await waitForExit(pid, 10_000))) process.kill(pid, 'SIGKILL');
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
