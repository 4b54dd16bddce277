/**
 * MCP tools in the workflow (docs/mcp.md). The tool list lives in state (`state.mcp`: exposed names,
 * schema hashes, server statuses — bounded), so a replay never depends on a live server. It is
 * found by `prepareConversation`, again by the `reloadTools` update (the REPL's `/reload-mcp`),
 * and before a turn when a model call reported that a server's list changed.
 */
import { ApplicationFailure, isCancellation, log, proxyActivities, setHandler } from '@temporalio/workflow';
import { ActivityCancellationType } from '@temporalio/workflow';
import type { HeraldActivities } from '../activities/index.js';
import type { McpSnapshot } from '../common/mcp-state.js';
import { mcpSnapshotSchema } from '../common/mcp-state.js';
import { MOVING_RUNS } from '../common/contract.js';
import type { ReloadToolsResult } from './definitions.js';
import { reloadToolsUpdate } from './definitions.js';
import type { Run } from './run.js';
import type { ConversationState } from './state.js';

/** Connecting and listing: up to the servers' connect timeouts; tried twice. */
const discovery = proxyActivities<HeraldActivities>({
  summary: 'discover MCP tools',
  startToCloseTimeout: '2 minutes',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1 second', maximumAttempts: 2, nonRetryableErrorTypes: ['InvalidInput'] },
});

/** The snapshot from `prepareConversation`, kept (and bounded). */
export function adoptMcp(state: ConversationState, found: McpSnapshot | undefined): void {
  if (!found) return;
  const parsed = mcpSnapshotSchema.safeParse(found);
  if (parsed.success) state.mcp = parsed.data;
  else log.warn('MCP discovery result out of bounds: no MCP tools', { issue: parsed.error.issues[0]?.message });
}

/** Discover again; on failure the previous list stays (a broken server must not break the conversation). */
export async function rediscover(state: ConversationState): Promise<McpSnapshot | undefined> {
  try {
    const found = await discovery.discoverMcpTools({
      conversationId: state.conversationId,
      sessionId: state.sessionId,
      ...(state.mcp?.toolsets ? { toolsets: state.mcp.toolsets } : {}),
    });
    const parsed = mcpSnapshotSchema.safeParse(found);
    if (parsed.success) state.mcp = parsed.data;
    return state.mcp;
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('MCP discovery failed; the tool list stays as it was', { error: String(err) });
    if (state.mcp) state.mcp.stale = false;
    return undefined;
  }
}

/** Before a turn: a server said its list changed since the last discovery. */
export async function refreshIfStale(state: ConversationState): Promise<void> {
  if (state.mcp?.stale) await rediscover(state);
}

export function registerReloadTools(run: Run): void {
  const { state } = run;
  setHandler(
    reloadToolsUpdate,
    async (): Promise<ReloadToolsResult> => {
      run.checkDue();
      const found = await rediscover(state);
      if (!found)
        throw ApplicationFailure.create({
          type: 'McpDiscoveryFailed',
          message: 'reloadTools: MCP discovery failed; the tool list is unchanged',
          nonRetryable: true,
        });
      run.refreshDetails();
      return { servers: found.servers, tools: found.tools.map((t) => t.name) };
    },
    {
      validator: () => {
        if (run.ended) throw new Error('the conversation has ended');
        if (run.draining()) throw new Error(MOVING_RUNS);
        if (!state.primary.model) throw new Error('the conversation is not prepared yet; try again in a moment');
        if (!state.mcp) throw new Error('this conversation has no MCP servers (none configured on its worker)');
      },
    },
  );
}
