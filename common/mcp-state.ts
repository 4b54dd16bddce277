/**
 * What a conversation knows about its MCP tools (docs/mcp.md), kept in workflow state so a replay
 * never asks a live server: the tools' exposed names and schema hashes (the schemas themselves
 * are in Postgres, keyed by hash) and each server's status. Bounded by construction. Pure.
 */
import { z } from 'zod';
import { boundedString } from './bounded-string.js';
import { leftOutListSchema } from './left-out.js';

export const MAX_MCP_TOOLS = 128;
export const MAX_MCP_SERVERS = 32;
export const MAX_MCP_REASON_CHARS = 300;
/** Provider tool-name rule shared by OpenAI, Anthropic and Gemini-compatible APIs. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export const mcpToolRefSchema = z.object({
  /** The name the model sees, `mcp_<server>_<tool>` made to fit TOOL_NAME_PATTERN. */
  name: z.string().regex(TOOL_NAME_PATTERN),
  /** 16 hex digits: the stored schema row (server, tool, description, input schema, traits). */
  hash: z.string().regex(/^[0-9a-f]{16}$/),
});
export type McpToolRef = z.infer<typeof mcpToolRefSchema>;

export const mcpServerStatusSchema = z.object({
  name: boundedString(32),
  status: z.enum(['ready', 'failed', 'disabled']),
  tools: z.number().int().min(0),
  reason: boundedString(MAX_MCP_REASON_CHARS).optional(),
  /** Which connection listed the tools, and which version of its list (a list-changed notification moves it). */
  epoch: boundedString(64).optional(),
  /** Tools left out because a description looked like prompt injection (mcp/screen.ts; capped). */
  leftOut: leftOutListSchema.optional(),
});
export type McpServerStatus = z.infer<typeof mcpServerStatusSchema>;

export const mcpSnapshotSchema = z.object({
  tools: z.array(mcpToolRefSchema).max(MAX_MCP_TOOLS),
  servers: z.array(mcpServerStatusSchema).max(MAX_MCP_SERVERS),
  /** The conversation's toolset selection, for rediscovery (absent: every server). */
  toolsets: z.array(z.string()).max(64).optional(),
  /** A server said its tool list changed: discover again before the next turn. */
  stale: z.boolean().optional(),
});
export type McpSnapshot = z.infer<typeof mcpSnapshotSchema>;

/** The toolset names that select a server's tools: `mcp`, `mcp:<server>`, the server's own, and `all`. */
export function mcpServerSelected(
  selection: readonly string[] | undefined,
  server: string,
  extraToolsets: readonly string[] = [],
): boolean {
  if (!selection) return true;
  return selection.some((t) => t === 'all' || t === 'mcp' || t === `mcp:${server}` || extraToolsets.includes(t));
}

/** One line per server for the `state` view and the REPL. */
export function describeMcpServers(servers: readonly McpServerStatus[]): string[] {
  return servers.map((s) => {
    const left = s.leftOut?.length ? `, ${s.leftOut.length} left out as prompt injection` : '';
    return s.status === 'ready'
      ? `${s.name}: ready, ${s.tools} tool(s)${left}`
      : `${s.name}: ${s.status}${s.reason ? ` (${s.reason})` : ''}`;
  });
}
