/**
 * MCP resources as two tools per server that has them: `mcp_<server>_list_resources` and
 * `mcp_<server>_read_resource`. Both only read.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpToolKind } from '../store/mcp-tools.js';
import { formatContentBlocks } from './result.js';

export const RESOURCE_TOOLS: Array<{
  kind: Exclude<McpToolKind, 'tool'>;
  description: (server: string) => string;
  schema: Record<string, unknown>;
}> = [
  {
    kind: 'list_resources',
    description: (s) => `List the resources (files, records, documents) MCP server "${s}" offers: URI, name, type.`,
    schema: {
      type: 'object',
      properties: { cursor: { type: 'string', description: 'The nextCursor of an earlier page' } },
    },
  },
  {
    kind: 'read_resource',
    description: (s) => `Read one resource of MCP server "${s}" by its URI (from list_resources).`,
    schema: {
      type: 'object',
      properties: { uri: { type: 'string', description: 'The resource URI' } },
      required: ['uri'],
    },
  },
];

export async function runResourceTool(
  client: Client,
  kind: Exclude<McpToolKind, 'tool'>,
  args: Record<string, unknown>,
  options: { signal: AbortSignal; timeout: number },
): Promise<{ content: string; isError: boolean }> {
  if (kind === 'list_resources') {
    const cursor = typeof args.cursor === 'string' ? args.cursor : undefined;
    const r = await client.listResources(cursor ? { cursor } : {}, options);
    const lines = r.resources.map(
      (x) => `${x.uri} — ${x.name}${x.mimeType ? ` (${x.mimeType})` : ''}${x.description ? `: ${x.description}` : ''}`,
    );
    if (r.nextCursor) lines.push(`[more: call again with cursor "${r.nextCursor}"]`);
    return { content: lines.join('\n') || '(no resources)', isError: false };
  }
  if (typeof args.uri !== 'string' || !args.uri)
    return { content: 'read_resource needs a "uri" (see list_resources).', isError: true };
  const r = await client.readResource({ uri: args.uri }, options);
  return {
    content: formatContentBlocks(r.contents.map((c) => ({ type: 'resource', resource: c }))),
    isError: false,
  };
}
