/**
 * Whether a server of the conversation said its tool list changed since the conversation listed
 * it: the same connection (its id) with a newer list version. The model activity reports it; the
 * workflow discovers again before its next turn. A connection this worker does not hold, or a
 * restarted one, says nothing (restarts are not list changes).
 */
import type { McpSnapshot } from '../common/mcp-state.js';
import type { ActivityDeps } from '../activities/deps.js';

export async function mcpListChanged(deps: ActivityDeps, snapshot: McpSnapshot | undefined): Promise<boolean> {
  if (!snapshot || !deps.mcp || snapshot.stale) return false;
  for (const s of snapshot.servers) {
    const cfg = deps.config.file.mcp.servers[s.name];
    if (!cfg || s.status !== 'ready' || !s.epoch) continue;
    const now = await deps.mcp.epoch(s.name, cfg);
    if (!now || now === s.epoch) continue;
    if (now.split(':')[0] === s.epoch.split(':')[0]) return true;
  }
  return false;
}
