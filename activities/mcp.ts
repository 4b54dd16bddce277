/** The MCP discovery activity (on `reloadTools` and after a list-changed notification) and its use at session start. */
import type { DiscoverMcpArgs } from '../common/activity-types.js';
import type { McpSnapshot } from '../common/mcp-state.js';
import type { ActivityDeps } from './deps.js';
import type { Discovered } from '../mcp/discovery.js';
import { discover } from '../mcp/discovery.js';

/** Discovery for a conversation's toolsets; undefined when this worker has no MCP servers configured. */
export async function discoverFor(
  deps: ActivityDeps,
  toolsets: readonly string[] | undefined,
): Promise<Discovered | undefined> {
  if (!deps.mcp || Object.keys(deps.config.file.mcp.servers).length === 0) return undefined;
  return discover({
    db: deps.db,
    pool: deps.mcp,
    config: deps.config.file.mcp,
    toolsets,
    taken: deps.tools.all().map((t) => t.name),
  });
}

/** The toolset names MCP adds: `mcp`, `mcp:<server>` and the servers' own. */
export function mcpToolsetNames(deps: ActivityDeps): string[] {
  const servers = deps.config.file.mcp.servers;
  if (Object.keys(servers).length === 0) return [];
  return ['mcp', ...Object.entries(servers).flatMap(([name, cfg]) => [`mcp:${name}`, ...cfg.toolsets])];
}

export function mcpActivities(deps: ActivityDeps) {
  return {
    async discoverMcpTools(a: DiscoverMcpArgs): Promise<McpSnapshot> {
      const found = await discoverFor(deps, a.toolsets);
      return found?.snapshot ?? { tools: [], servers: [] };
    },
  };
}
