/**
 * Prompt economy for small context windows (docs/providers.md). The built-in tools' JSON Schemas cost ≈1,800
 * tokens per request, every request: on a 128K model that is nothing, on a local 8K–16K model it is a
 * tenth of the window or more, and small models read long descriptions worse, not better. When the
 * full schemas would take more than `compactShare` of the window, each tool is sent in compact form:
 * its description cut to the first sentence, argument descriptions cut short, validation-only keywords
 * (lengths, ranges, patterns) left out — the arguments are still validated against the full zod schema
 * in the tool activity, so nothing is lost but words. The choice depends only on the tool list, the
 * model and the window, so every request of a session sends the same bytes (prompt caches still hit).
 */
import type { ToolSchema } from '../../model-adapters/types.js';
import { contextWindowOf } from '../../common/context-window.js';
import { estimateTextTokens } from '../tokens.js';

export type SchemaMode = 'auto' | 'full' | 'compact';

/** Keywords that only constrain values: the activity validates them; the model does not need them. */
const VALIDATION_ONLY = new Set([
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'examples',
  'default',
  '$comment',
  'title',
]);

const TOOL_DESCRIPTION_MAX = 120;
const ARG_DESCRIPTION_MAX = 80;

/** Abbreviations whose full stop does not end a sentence. */
const ABBREVIATION = /(?:\be\.g|\bi\.e|\betc|\bvs)\.$/i;

/** The first sentence of a description, at most `max` characters. */
export function firstSentence(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  let sentence = flat;
  for (const m of flat.matchAll(/[.!?](?=\s|$)/g)) {
    const upTo = flat.slice(0, m.index + 1);
    if (ABBREVIATION.test(upTo)) continue;
    sentence = upTo;
    break;
  }
  return sentence.length <= max ? sentence : `${sentence.slice(0, max - 1).trimEnd()}…`;
}

function compactNode(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactNode);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (VALIDATION_ONLY.has(key)) continue;
    if (key === 'description' && typeof value === 'string') out[key] = firstSentence(value, ARG_DESCRIPTION_MAX);
    else if (key === 'properties' && value && typeof value === 'object')
      // Property names are data here, not keywords: keep every one, compact what each holds.
      out[key] = Object.fromEntries(Object.entries(value).map(([name, prop]) => [name, compactNode(prop)]));
    else out[key] = compactNode(value);
  }
  return out;
}

export function compactSchema(schema: ToolSchema): ToolSchema {
  return {
    name: schema.name,
    description: firstSentence(schema.description, TOOL_DESCRIPTION_MAX),
    parameters: compactNode(schema.parameters) as Record<string, unknown>,
  };
}

export interface SchemaEconomy {
  mode: SchemaMode;
  /** Largest share of the context window the full schemas may take before compact mode is used. */
  compactShare: number;
}

export function schemaTokens(schemas: readonly ToolSchema[], model: string): number {
  return schemas.length ? estimateTextTokens(JSON.stringify(schemas), model) : 0;
}

/** Whether this request's tools go compact: always, never, or when full ones exceed the share. */
export function useCompactSchemas(
  full: readonly ToolSchema[],
  model: string,
  window: number,
  economy: SchemaEconomy,
): boolean {
  if (economy.mode !== 'auto') return economy.mode === 'compact';
  return full.length > 0 && schemaTokens(full, model) > economy.compactShare * window;
}

/** The schemas to send: full, or compact when the economy says so. */
export function economicalSchemas(
  full: readonly ToolSchema[],
  model: string,
  window: number,
  economy: SchemaEconomy,
): ToolSchema[] {
  return useCompactSchemas(full, model, window, economy) ? full.map(compactSchema) : [...full];
}

/**
 * Requests' schema lists already worked out (generating the JSON Schemas and counting their tokens
 * cost ≈28 ms a model call, ≈30 ms more under load). A hit needs the same tool names, model, window
 * and economy, and the very same schema objects from the registry (it hands out one object per
 * tool definition), so a changed tool can never be served stale. Bounded: a worker sees few
 * distinct tool lists × models; the least recently used goes first.
 */
const REQUEST_SCHEMA_CACHE_MAX = 128;
const requestSchemaCache = new Map<string, { full: readonly ToolSchema[]; sent: readonly ToolSchema[] }>();

/** The tool schemas a request to this provider carries, in the session's schema mode. */
export function requestSchemas(
  registry: { schemas(names: readonly string[]): ToolSchema[] },
  names: readonly string[],
  provider: { model: string; contextLength?: number | undefined },
  economy: SchemaEconomy,
): ToolSchema[] {
  const full = registry.schemas(names);
  const window = contextWindowOf(provider.model, provider.contextLength);
  const key = JSON.stringify([names, provider.model, window, economy.mode, economy.compactShare]);
  const hit = requestSchemaCache.get(key);
  if (hit && hit.full.length === full.length && hit.full.every((s, i) => s === full[i])) {
    requestSchemaCache.delete(key);
    requestSchemaCache.set(key, hit);
    return [...hit.sent];
  }
  // Frozen: the cached objects go into every later request, so nothing may change them on the way.
  const sent = economicalSchemas(full, provider.model, window, economy).map(deepFreeze);
  requestSchemaCache.delete(key);
  requestSchemaCache.set(key, { full, sent });
  if (requestSchemaCache.size > REQUEST_SCHEMA_CACHE_MAX)
    requestSchemaCache.delete(requestSchemaCache.keys().next().value!);
  return [...sent];
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
