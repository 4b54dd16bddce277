/**
 * Screening an MCP tool before the model sees it (untrusted-text/prompt-screen.ts, strict rules): its description, and every `description` and `title` in its input schema, since the
 * model reads parameter descriptions as much as the tool's own. A tool with a finding is left out
 * whole rather than offered with its text replaced: the server that wrote the text also runs the
 * tool, and a tool built around a poisoned description (a `sidenote` parameter meant for a key
 * file) is no safer for a clean description. A server the config marks `trust: trusted` is held
 * to the scanner only, not to the strict rules (an SSH server may well name
 * `~/.ssh/id_ed25519` in a parameter's description).
 */
import type { LeftOut } from '../common/left-out.js';
import { leftOut, safeName } from '../common/left-out.js';
import type { ScreenChannel } from '../untrusted-text/prompt-screen.js';
import { screenFinding } from '../untrusted-text/prompt-screen.js';

/** Schema texts looked at per tool, and how deep: a schema is at most 64 KB (schema.ts), this only bounds the walk. */
const MAX_SCHEMA_TEXTS = 1000;
const MAX_SCHEMA_DEPTH = 32;

export interface ListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema?: unknown;
}

/** Every `description` and `title` string in a JSON schema (any depth, bounded). */
export function schemaTexts(schema: unknown): string[] {
  const out: string[] = [];
  const walk = (node: unknown, depth: number) => {
    if (out.length >= MAX_SCHEMA_TEXTS || depth > MAX_SCHEMA_DEPTH || !node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
      return;
    }
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if ((key === 'description' || key === 'title') && typeof value === 'string') out.push(value);
      else walk(value, depth + 1);
    }
  };
  walk(schema, 0);
  return out;
}

/**
 * Characters of text discovery screens per server. The scanner runs on the worker's event loop
 * (about 3 ms per KB measured here, more per call for many short texts), and a server chooses how
 * much it sends: past this budget its remaining tools are not offered, and its status says so.
 */
export const MCP_SCREEN_BUDGET_CHARS = 256_000;

/** The texts of a tool the model reads: its description (or title) and its schema's, the latter as one text. */
export function mcpToolTexts(tool: ListedTool): string[] {
  // One scan for the schema's texts (a scan has a fixed cost; blank lines keep them apart as sentences).
  const schema = schemaTexts(tool.inputSchema).join('\n\n');
  return [tool.description, tool.title, schema].filter((t): t is string => Boolean(t));
}

/** Why the tool is left out (the matched rule), or undefined when it may be offered. */
export function mcpToolFinding(tool: ListedTool, trust: 'trusted' | 'untrusted' = 'untrusted'): string | undefined {
  const channel: ScreenChannel = trust === 'trusted' ? 'document' : 'strict';
  for (const text of mcpToolTexts(tool)) {
    const rule = screenFinding(text, channel);
    if (rule) return rule;
  }
  return undefined;
}

/** The note for a left-out tool: `MCP tool <server>/<tool>` with the tool's name made safe. */
export function mcpToolLeftOut(server: string, tool: string, rule: string): LeftOut {
  return leftOut(`MCP tool ${safeName(server)}/${safeName(tool)}`, rule);
}
