/** MCP tool schemas by hash (migration 010): written by discovery, read by the model and tool activities. */
import type { Db } from './db.js';

export type McpToolKind = 'tool' | 'list_resources' | 'read_resource' | 'list_prompts' | 'get_prompt';

export interface McpToolRow {
  hash: string;
  server: string;
  /** The tool's name on its server (for resource tools, the operation). */
  tool: string;
  kind: McpToolKind;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
}

/** Rows never change (a changed schema is a new hash), so they are cached for the worker's life. */
const cache = new Map<string, McpToolRow>();
const CACHE_LIMIT = 5_000;

function remember(row: McpToolRow): void {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(row.hash, row);
}

export async function saveMcpTools(db: Db, rows: readonly McpToolRow[]): Promise<void> {
  const fresh = rows.filter((r) => !cache.has(r.hash));
  if (fresh.length === 0) return;
  await db.query(
    `INSERT INTO mcp_tool_schemas (hash, server, tool, kind, description, input_schema, read_only)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::boolean[])
     ON CONFLICT (hash) DO NOTHING`,
    [
      fresh.map((r) => r.hash),
      fresh.map((r) => r.server),
      fresh.map((r) => r.tool),
      fresh.map((r) => r.kind),
      fresh.map((r) => r.description),
      fresh.map((r) => JSON.stringify(r.inputSchema)),
      fresh.map((r) => r.readOnly),
    ],
  );
  fresh.forEach(remember);
}

export async function loadMcpTools(db: Db, hashes: readonly string[]): Promise<Map<string, McpToolRow>> {
  const out = new Map<string, McpToolRow>();
  const missing = hashes.filter((h) => {
    const hit = cache.get(h);
    if (hit) out.set(h, hit);
    return !hit;
  });
  if (missing.length) {
    const r = await db.query<{
      hash: string;
      server: string;
      tool: string;
      kind: McpToolKind;
      description: string;
      input_schema: Record<string, unknown>;
      read_only: boolean;
    }>('SELECT * FROM mcp_tool_schemas WHERE hash = ANY($1::text[])', [missing]);
    for (const x of r.rows) {
      const row: McpToolRow = {
        hash: x.hash,
        server: x.server,
        tool: x.tool,
        kind: x.kind,
        description: x.description,
        inputSchema: x.input_schema,
        readOnly: x.read_only,
      };
      remember(row);
      out.set(row.hash, row);
    }
  }
  return out;
}
