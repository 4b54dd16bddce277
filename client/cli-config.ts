/**
 * Which `herald` commands a broken config file stops. The file configures workers (providers,
 * tools, approvals, …); client commands (`start`, `send`, `state`, `sessions`, `memory`, …) only
 * need the environment (where Temporal and Postgres are), so for them a broken file is a warning
 * and they go on: a typo in config.yaml must not keep anyone from listing or steering sessions.
 */
import pc from 'picocolors';
import type { HeraldConfig } from '../runtime/config.js';
import { loadConfig } from '../runtime/config.js';

/** Commands that run on the config file itself: a broken file is their error. */
export const NEEDS_CONFIG_FILE: ReadonlySet<string> = new Set(['dev', 'worker', 'tools', 'doctor', 'codec-server']);

let strict = true;
let warned = false;

/** Called before a command's action runs (commander `preAction`), with the command's name. */
export function configFor(command: string): void {
  strict = NEEDS_CONFIG_FILE.has(command);
}

/** The configuration for the running command; a broken file is thrown, or warned about once. */
export function cliConfig(env: NodeJS.ProcessEnv = process.env): HeraldConfig {
  const config = loadConfig(env, { fileErrors: strict ? 'throw' : 'keep' });
  if (config.fileError && !warned) {
    warned = true;
    process.stderr.write(
      `${pc.yellow('herald: warning:')} ${config.fileError.message}\n` +
        pc.dim(
          '(this command does not need the config file and goes on; `herald dev` and `herald worker` refuse it)\n',
        ),
    );
  }
  return config;
}
