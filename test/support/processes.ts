/** Herald processes for tests: the real `herald` CLI in a child process. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../runtime/paths.js';

export const HERALD_BIN = join(PROJECT_ROOT, 'bin', 'herald.js');

export interface HeraldProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when the output contains `text`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * The CLI colours its output when picocolors thinks the terminal can take it — and picocolors
 * says yes whenever `CI` is set, as it is on the CI machine. Tests read plain text, so they ask
 * for none (NO_COLOR wins over FORCE_COLOR and CI).
 */
function withoutColour(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, NO_COLOR: '1' };
}

export function spawnHerald(args: string[], env: NodeJS.ProcessEnv): HeraldProcess {
  const child = spawn(process.execPath, [HERALD_BIN, ...args], {
    env: withoutColour(env),
    cwd: PROJECT_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners: Array<() => void> = [];
  const onData = (c: Buffer) => {
    out += c.toString('utf8');
    for (const l of listeners) l();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    kill: (signal = 'SIGKILL') => child.kill(signal),
    waitFor(text, timeoutMs = 60_000) {
      const matches = () => (typeof text === 'string' ? out.includes(text) : text.test(out));
      return new Promise((resolve, reject) => {
        if (matches()) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${String(text)}; output:\n${out.slice(-2000)}`)),
          timeoutMs,
        );
        const check = () => {
          if (matches()) {
            clearTimeout(timer);
            resolve();
          }
        };
        listeners.push(check);
        void exited.then((code) => {
          if (!matches()) {
            clearTimeout(timer);
            reject(
              new Error(
                `herald ${args.join(' ')} exited (${code}) before printing ${String(text)}:\n${out.slice(-2000)}`,
              ),
            );
          }
        });
      });
    },
  };
}

/** Run `herald …` to completion. */
export async function runHerald(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [HERALD_BIN, ...args], {
    env: withoutColour(env),
    cwd: PROJECT_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  if (input !== undefined) child.stdin.end(input);
  else child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stdout, stderr };
}
