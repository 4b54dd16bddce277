/**
 * An MCP tool's input schema as the providers take it. MCP requires an object schema; the APIs
 * differ at the edges: Anthropic's `input_schema` and OpenAI's `parameters` must say
 * `type: object` (and OpenAI wants `properties` present), and no API needs `$schema`. Everything
 * else is passed through as the server wrote it. Schemas over the bound are refused.
 */
export const MAX_SCHEMA_BYTES = 64_000;
export const MAX_DESCRIPTION_CHARS = 4_000;

export function adaptInputSchema(raw: unknown): Record<string, unknown> | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { type: 'object', properties: {} };
  const { $schema: _s, ...rest } = raw as Record<string, unknown>;
  if (rest.type !== undefined && rest.type !== 'object') return undefined;
  const out: Record<string, unknown> = { ...rest, type: 'object' };
  if (!out.properties || typeof out.properties !== 'object') out.properties = {};
  return Buffer.byteLength(JSON.stringify(out)) <= MAX_SCHEMA_BYTES ? out : undefined;
}
