/**
 * MCP tools inside Herald's two tool activities. The model activity gets the conversation's MCP
 * tool refs (names and hashes from workflow state), reads the schemas by hash and describes each
 * call (summary `mcp <server>/<tool>: …`, traits from `readOnlyHint`, approval per config). The
 * tool activity turns the call's hash back into its server and tool and runs it on the pooled
 * connection: timeout, progress as heartbeats, cancellation through the AbortSignal (the SDK
 * sends MCP's `notifications/cancelled`).
 */
import { z } from 'zod';
import type { ToolCall } from '../common/messages.js';
import type { McpConfig, McpServerConfig } from '../shared/mcp-config.js';
import { needsApproval } from '../shared/mcp-config.js';
import type { McpToolRef } from '../common/mcp-state.js';
import { canonicalJson } from '../common/loop-guard.js';
import { oneLine } from '../common/text.js';
import type { InvalidCall, InvalidCallProblem, McpCall, ToolCallRef, ToolTraits } from '../common/tool-batch.js';
import { TRAITS } from '../common/tool-batch.js';
import type { Db } from '../store/db.js';
import type { McpToolRow } from '../store/mcp-tools.js';
import { loadMcpTools } from '../store/mcp-tools.js';
import type { ToolSchema } from '../model-adapters/types.js';
import type { ToolDefinition } from '../activities/tools/registry.js';
import { shortHash } from '../shared/short-hash.js';
import { commandAllowKey } from '../command-safety/approval-check.js';
import type { McpPool } from './pool.js';
import { runResourceTool } from './resources.js';
import { formatToolResult } from './result.js';

/** The conversation's MCP tools with their rows (refs whose row is missing are left out). */
export async function resolveMcpTools(db: Db, refs: readonly McpToolRef[]): Promise<Map<string, McpToolRow>> {
  if (refs.length === 0) return new Map();
  const rows = await loadMcpTools(
    db,
    refs.map((r) => r.hash),
  );
  const out = new Map<string, McpToolRow>();
  for (const r of refs) {
    const row = rows.get(r.hash);
    if (row) out.set(r.name, row);
  }
  return out;
}

export function mcpSchemas(tools: ReadonlyMap<string, McpToolRow>): ToolSchema[] {
  return [...tools].map(([name, row]) => ({ name, description: row.description, parameters: row.inputSchema }));
}

/** The workflow's record of one MCP call: no arguments, a label naming server and tool. */
export function describeMcpCall(
  call: ToolCall,
  row: McpToolRow,
  server: McpServerConfig | undefined,
  /** "always" approvals (rules and command keys) from the store. */
  allowlist: ReadonlySet<string> = new Set(),
): ToolCallRef {
  const name = call.function.name;
  const label = `mcp ${row.server}/${row.kind === 'tool' ? row.tool : row.kind}`;
  const traits: ToolTraits = row.readOnly ? TRAITS.reads : TRAITS.serial;
  const timeoutSeconds = server?.timeoutSeconds ?? 120;
  // Arguments the server could never accept go back to the model as a tool error, nothing sent.
  const invalid = (argsError: string, problem: InvalidCallProblem = 'invalid_arguments'): InvalidCall => ({
    kind: 'invalid',
    id: call.id,
    name,
    summary: `${label} (invalid arguments)`,
    timeoutSeconds: 30,
    traits,
    problem,
    argsError,
  });
  let args: unknown;
  try {
    args = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
  } catch (err) {
    return invalid(
      `Invalid JSON arguments for ${name}: ${(err as Error).message}. Send a JSON object matching the tool's schema (use {} for no arguments).`,
      'invalid_json',
    );
  }
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return invalid(`Invalid arguments for ${name}: send a JSON object.`);
  const shown = oneLine(JSON.stringify(args), 80);
  const ref: McpCall = {
    kind: 'mcp',
    id: call.id,
    name,
    summary: oneLine(`${label}${shown === '{}' ? '' : `: ${shown}`}`, 120),
    timeoutSeconds,
    traits,
    argsKey: shortHash(canonicalJson(args)),
    mcp: row.hash,
  };
  if (server && row.kind === 'tool' && needsApproval(server, row.tool)) {
    const key = shortHash(`${name}\u0000${canonicalJson(args)}`);
    const rule = `mcp:${row.server}:${row.tool}`;
    ref.approval = {
      level: allowlist.has(rule) || allowlist.has(commandAllowKey(key)) ? 'allowed' : 'dangerous',
      rules: [rule],
      groups: ['mcp'],
      description: `MCP tool ${row.tool} of server ${row.server} needs approval (mcp.servers.${row.server}.approval)`,
      command: oneLine(`${name} ${JSON.stringify(args)}`, 500),
      commandKey: key,
    };
  }
  return ref;
}

/** The tool activity's definition of an MCP call, built from its stored row and this worker's config. */
export function mcpToolDefinition(
  name: string,
  row: McpToolRow,
  config: McpConfig,
  pool: McpPool,
): ToolDefinition<Record<string, unknown>> {
  const server = config.servers[row.server];
  return {
    name,
    toolset: `mcp:${row.server}`,
    description: row.description,
    parameters: z.record(z.string(), z.unknown()),
    traits: row.readOnly ? TRAITS.reads : TRAITS.serial,
    ...(server?.trust === 'trusted' ? {} : { untrusted: 'external' as const }),
    unavailableReason: () =>
      !server ? `MCP server ${row.server} is not configured on this worker` : server.enabled ? undefined : 'disabled',
    async handler(args, ctx) {
      if (!server) return { content: `MCP server ${row.server} is not configured on this worker.`, isError: true };
      if (!server.enabled) return { content: `MCP server ${row.server} is disabled.`, isError: true };
      let conn;
      try {
        conn = await pool.get(row.server, server);
      } catch (err) {
        return { content: `MCP server ${row.server} is unavailable: ${(err as Error).message}`, isError: true };
      }
      const timeout = server.timeoutSeconds * 1000;
      if (row.kind !== 'tool') return runResourceTool(conn.client, row.kind, args, { signal: ctx.signal, timeout });
      const result = await conn.client.callTool({ name: row.tool, arguments: args }, undefined, {
        signal: ctx.signal,
        timeout,
        maxTotalTimeout: timeout,
        resetTimeoutOnProgress: true,
        // Asking for progress gives the server a token to report with; each report is a heartbeat.
        onprogress: (p) => ctx.heartbeat({ output: `progress ${p.progress}${p.total ? `/${p.total}` : ''}\n` }),
      });
      return formatToolResult(result);
    },
  };
}
