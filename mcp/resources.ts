/**
 * MCP resources and prompts as tools: `mcp_<server>_list_resources` / `_read_resource` for a
 * server that has resources, `mcp_<server>_list_prompts` / `_get_prompt` for one with prompts
 * (the prompt's messages as text, for the model to use). All only read.
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

export const PROMPT_TOOLS: typeof RESOURCE_TOOLS = [
  {
    kind: 'list_prompts',
    description: (s) => `List the prompt templates MCP server "${s}" offers, with their arguments.`,
    schema: {
      type: 'object',
      properties: { cursor: { type: 'string', description: 'The nextCursor of an earlier page' } },
    },
  },
  {
    kind: 'get_prompt',
    description: (s) => `Get one prompt template of MCP server "${s}" (from list_prompts), filled with its arguments.`,
    schema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The prompt name' },
        arguments: { type: 'object', additionalProperties: { type: 'string' }, description: 'Its arguments' },
      },
      required: ['name'],
    },
  },
];

export async function runResourceTool(
  client: Client,
  kind: Exclude<McpToolKind, 'tool'>,
  args: Record<string, unknown>,
  options: { signal: AbortSignal; timeout: number },
): Promise<{ content: string; isError: boolean }> {
  if (kind === 'list_prompts') {
    const cursor = typeof args.cursor === 'string' ? args.cursor : undefined;
    const r = await client.listPrompts(cursor ? { cursor } : {}, options);
    const lines = r.prompts.map((p) => {
      const params = (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
      return `${p.name}(${params})${p.description ? `: ${p.description}` : ''}`;
    });
    if (r.nextCursor) lines.push(`[more: call again with cursor "${r.nextCursor}"]`);
    return { content: lines.join('\n') || '(no prompts)', isError: false };
  }
  if (kind === 'get_prompt') {
    if (typeof args.name !== 'string' || !args.name)
      return { content: 'get_prompt needs a "name" (see list_prompts).', isError: true };
    const given =
      args.arguments && typeof args.arguments === 'object' ? (args.arguments as Record<string, unknown>) : {};
    const r = await client.getPrompt(
      { name: args.name, arguments: Object.fromEntries(Object.entries(given).map(([k, v]) => [k, String(v)])) },
      options,
    );
    const parts = r.messages.map((m) => `[${m.role}]\n${formatContentBlocks([m.content as { type: string }])}`);
    return { content: [r.description ?? '', ...parts].filter(Boolean).join('\n\n'), isError: false };
  }
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
