/** What activities need from the worker process: shared once, created at worker start. */
import type { Logger } from '../runtime/logger.js';
import type { HeraldConfig } from '../runtime/config.js';
import type { Db } from '../store/db.js';
import type { HookRunner } from './hooks.js';
import type { ToolRegistry } from './tools/registry.js';
import type { ToolSandbox } from '../sandbox/sandbox.js';
import type { HeraldMetrics } from './metrics.js';
import type { McpPool } from '../mcp/pool.js';
import type { RunningCalls } from './events/stop-notices.js';

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
  /** Where every process a tool starts runs (docs/tool-sandbox.md). */
  sandbox: ToolSandbox;
  /** Herald's Prometheus metrics (activities/metrics.ts); recorded always, served with a metrics port. */
  metrics: HeraldMetrics;
  /** This worker's MCP connections (absent: no MCP servers are offered). */
  mcp?: McpPool;
  /** The running model calls a stop notice can abort (activities/events/stop-notices.ts); none in bare tests. */
  stops?: RunningCalls;
}

/**
 * Beat every `intervalMs` until stopped; the SDK throttles what actually reaches the server.
 * No beat at the start: a call shorter than one interval sends none (each beat the server takes is
 * a persistence write), and the first comes well inside the shortest heartbeat timeout (3 s, model
 * calls: workflows/activities.ts).
 */
export function keepHeartbeating(heartbeat: () => void, intervalMs = 200): () => void {
  const timer = setInterval(heartbeat, intervalMs);
  return () => clearInterval(timer);
}
