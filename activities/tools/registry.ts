/**
 * The tool registry (docs/tools.md): each tool is a name, a toolset, a description, a zod schema for
 * its arguments (JSON Schema generated from it), a handler, an optional availability check and a
 * result size limit. Invalid arguments become a readable tool error for the model, never a crash.
 */
import type { ToolDisplay } from './tool-display.js';
import { z } from 'zod';
import type { ToolTraits } from '../../common/tool-batch.js';
import type { ToolSchema } from '../../model-adapters/types.js';
import type { NetworkPolicy } from '../../common/sandbox-policy.js';
import type { ToolSandbox } from '../../sandbox/sandbox.js';
import type { Db } from '../../store/db.js';
import type { UntrustedSource } from '../../shared/untrusted.js';

export interface ToolContext {
  /** The conversation's workspace (absolute, real path). */
  cwd: string;
  /** Aborted when the turn is stopped or the activity is cancelled. */
  signal: AbortSignal;
  /**
   * Tell Temporal the tool is alive (cheap; throttled by the SDK). `output` is what the tool just
   * produced: the heartbeat shows its tail (bounded and redacted).
   */
  heartbeat: (progress?: { output?: string }) => void;
  /** Every process a tool starts goes through the sandbox (docs/tool-sandbox.md). */
  sandbox: ToolSandbox;
  /** The conversation's network for tool processes (narrowed from the worker's). */
  network?: NetworkPolicy;
  /** Workspace paths no tool may write (`sandbox.protectedPaths`; git hooks and config at any depth always). */
  protectedPaths?: readonly string[];
  /** The store, for tools that are Herald's own data (memory, session_search). */
  db?: Db;
  conversationId?: string;
  sessionId?: string;
}

export interface ToolOutput {
  content: string;
  isError?: boolean;
  /** Shown to the human on the event side channel only (exit code, output tail, diff); bounded. */
  display?: ToolDisplay;
  /** A file this call wrote, as it is now: a short hash of its path and content (for the loop guard). */
  fileState?: string;
}

export interface ToolDefinition<A = unknown> {
  name: string;
  toolset: string;
  description: string;
  parameters: z.ZodType<A>;
  handler(args: A, ctx: ToolContext): Promise<ToolOutput>;
  /** Returns why the tool cannot be used here, or undefined when it can. */
  unavailableReason?(): string | undefined;
  maxResultChars?: number;
  traits: ToolTraits;
  /** Workspace paths the call touches (for batch planning). */
  paths?(args: A): string[];
  /** One-line description for the Web UI and events, e.g. `terminal: npm test`. */
  summarize?(args: A): string;
  /** The longest this call may legitimately run. */
  timeoutSeconds?(args: A): number;
  /** Handled by the workflow itself (clarify, todo, delegation), never by the tool activity. */
  agentLevel?: boolean;
  /**
   * Its results reach the model wrapped as data (shared/untrusted.ts): `workspace` for files and
   * command output, `external` for text from outside this conversation (other sessions, the web,
   * MCP servers).
   */
  untrusted?: UntrustedSource;
}

export const DEFAULT_TOOL_TIMEOUT_SECONDS = 120;
export const DEFAULT_MAX_RESULT_CHARS = 100_000;

export function defineTool<A>(def: ToolDefinition<A>): ToolDefinition<A> {
  return def;
}

export interface ToolStatus {
  name: string;
  toolset: string;
  description: string;
  enabled: boolean;
  /** Why the tool is not offered, when it is not. */
  reason: string | undefined;
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition<unknown>>();
  /** Composite toolsets: a name standing for other toolsets or tools (`dev` = file + terminal + …). */
  private readonly includes = new Map<string, string[]>();

  register<A>(tool: ToolDefinition<A>): this {
    if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    this.tools.set(tool.name, tool);
    return this;
  }

  get(name: string): ToolDefinition<unknown> | undefined {
    return this.tools.get(name);
  }

  all(): ToolDefinition<unknown>[] {
    return [...this.tools.values()];
  }

  /** Define a toolset that includes other toolsets or tools by name. */
  defineToolset(name: string, includes: readonly string[]): this {
    this.includes.set(name, [...includes]);
    return this;
  }

  /** Every toolset and tool name a conversation may list in `toolsets`. */
  knownToolsets(): string[] {
    return [...new Set([...this.includes.keys(), ...this.all().flatMap((t) => [t.toolset, t.name])])];
  }

  /** The toolset and tool names a selection stands for, composites expanded (cycles are harmless). */
  expand(selection: readonly string[]): Set<string> {
    const out = new Set<string>();
    const visit = (name: string) => {
      if (out.has(name)) return;
      out.add(name);
      for (const inner of this.includes.get(name) ?? []) visit(inner);
    };
    selection.forEach(visit);
    return out;
  }

  /** Names of the tools usable under the given toolsets (all toolsets when none are given). */
  enabled(toolsets?: readonly string[]): string[] {
    return this.status(toolsets)
      .filter((s) => s.enabled)
      .map((s) => s.name);
  }

  /** Every registered tool, whether the selection enables it, and why not when it does not. */
  status(toolsets?: readonly string[]): ToolStatus[] {
    const selected = toolsets ? this.expand(toolsets) : undefined;
    return this.all().map((t) => {
      const unavailable = t.unavailableReason?.();
      const chosen = !selected || selected.has(t.toolset) || selected.has(t.name);
      const reason = unavailable ?? (chosen ? undefined : `toolset "${t.toolset}" is not enabled`);
      return { name: t.name, toolset: t.toolset, description: t.description, enabled: reason === undefined, reason };
    });
  }

  /**
   * One schema object per tool definition, generated once (a definition does not change once
   * registered): requests reuse it, and schema-economy's cache knows a tool by it.
   */
  private readonly schemaOf = new WeakMap<ToolDefinition<unknown>, ToolSchema>();

  schemas(names: readonly string[]): ToolSchema[] {
    return names.flatMap((n) => {
      const t = this.tools.get(n);
      if (!t) return [];
      let schema = this.schemaOf.get(t);
      if (!schema) {
        schema = { name: t.name, description: t.description, parameters: jsonSchemaOf(t.parameters) };
        this.schemaOf.set(t, schema);
      }
      return [schema];
    });
  }
}

/** JSON Schema for a provider's tool definition, generated from the zod schema. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

export type ParsedArgs<A> = { ok: true; args: A } | { ok: false; error: string; invalidJson: boolean };

/** Parse and validate a call's JSON arguments; errors are written for the model to correct. */
export function parseToolArgs<A>(tool: ToolDefinition<A>, raw: string): ParsedArgs<A> {
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (err) {
    return {
      ok: false,
      invalidJson: true,
      error: `Invalid JSON arguments for ${tool.name}: ${(err as Error).message}. Send a JSON object matching the tool's schema (use {} for no arguments).`,
    };
  }
  const parsed = tool.parameters.safeParse(json);
  if (parsed.success) return { ok: true, args: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`)
    .join('; ');
  return { ok: false, invalidJson: false, error: `Invalid arguments for ${tool.name}: ${issues}` };
}
