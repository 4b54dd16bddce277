/**
 * The built CLI's start-up, as a user meets it (goals: `herald --help` and `herald sessions`
 * ≤ 0.8 s, the chat prompt ≤ 1.5 s once the stack is up): wall time from spawning `bin/herald.js`
 * to its exit, or to the chat's prompt (`› `) on its output. The build is made first
 * (`npm run build`), so bin/herald.js runs dist/; the figures include Node's own start-up and,
 * for `sessions` and `chat`, the connections to Postgres and Temporal.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../runtime/paths.js';

const HERALD_BIN = join(PROJECT_ROOT, 'bin', 'herald.js');

export interface StartupFigures {
  help: number[];
  sessions: number[];
  chatPrompt: number[];
}

/** `npm run build`; throws with tsc's output when it fails. */
export function buildCli(): void {
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}${r.stderr}`);
}

/** Milliseconds until the process exits (status 0) or its output contains `until`, then it is stopped. */
function timeRun(args: string[], env: NodeJS.ProcessEnv, cwd: string, until?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [HERALD_BIN, ...args], { env: { ...env, NO_COLOR: '1' }, cwd });
    let out = '';
    let took: number | undefined;
    const onData = (c: Buffer) => {
      out += c.toString('utf8');
      if (until && took === undefined && out.includes(until)) {
        took = performance.now() - t0;
        child.stdin.end(); // the chat leaves at the end of its input
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => {
      if (until ? took === undefined : code !== 0)
        return reject(new Error(`herald ${args.join(' ')} exited with ${code}:\n${out.slice(-1000)}`));
      resolve(took ?? performance.now() - t0);
    });
  });
}

/** `runs` timings of each, after one unmeasured run (the file system's cache, the server's first query). */
export async function measureStartup(env: NodeJS.ProcessEnv, cwd: string, runs: number): Promise<StartupFigures> {
  const series = async (args: string[], until?: string) => {
    await timeRun(args, env, cwd, until);
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) samples.push(await timeRun(args, env, cwd, until));
    return samples;
  };
  return {
    help: await series(['--help']),
    sessions: await series(['sessions']),
    chatPrompt: await series(['chat', '--cwd', cwd], '› '),
  };
}
