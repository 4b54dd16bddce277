/** What activities need from the worker process: shared once, created at worker start. */
import type { Logger } from '../runtime/logger.js';
import type { HeraldConfig } from '../runtime/config.js';
import type { Db } from './store/db.js';
import type { HookRunner } from './hooks.js';
import type { ToolRegistry } from './tools/registry.js';

export interface ActivityDeps {
  db: Db;
  config: HeraldConfig;
  log: Logger;
  tools: ToolRegistry;
  /** Plugin hooks from the config file (none by default). */
  hooks: HookRunner;
  /** Whether Herald's search attributes exist on the namespace (checked at worker start). */
  searchAttributes: boolean;
  env: NodeJS.ProcessEnv;
}

/** Beat every `intervalMs` until stopped; the SDK throttles what actually reaches the server. */
export function keepHeartbeating(heartbeat: () => void, intervalMs = 200): () => void {
  heartbeat();
  const timer = setInterval(heartbeat, intervalMs);
  return () => clearInterval(timer);
}

const SECRET_NAME = /(_API_KEY|_KEY|_TOKEN|_SECRET|_PASSWORD|_PASS)$/i;

/** The environment for tool processes: Herald's own secrets and connection strings removed. */
export function scrubbedEnv(env: NodeJS.ProcessEnv, extraSecrets: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (
      SECRET_NAME.test(k) ||
      k === 'DATABASE_URL' ||
      k.startsWith('HERALD_') ||
      k.startsWith('TEMPORAL_') ||
      extraSecrets.includes(k)
    )
      continue;
    out[k] = v;
  }
  return out;
}
