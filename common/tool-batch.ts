/**
 * Tool batch planning (docs/tools.md): several tool calls from one assistant message run
 * concurrently only when that is safe; everything else runs in call order.
 * Pure: the workflow calls it with the small call descriptors the model activity returned.
 */
import type { DelegateTask } from './delegation.js';
import type { TodoItem } from './todos.js';

/** What the workflow knows about one requested tool call (no arguments: those stay in Postgres). */
export interface ToolCallRef {
  id: string;
  name: string;
  /** One-line description of the call for the Web UI and events, e.g. `terminal: npm test`. */
  summary: string;
  /** Workspace paths the call touches (file tools only). */
  paths?: string[];
  /** Why the call cannot run (unknown tool, invalid arguments): the tool result says so. */
  argsError?: string;
  /** The name matches no enabled tool. */
  unknownTool?: boolean;
  /** The arguments are not valid JSON (as opposed to valid JSON that fails the schema). */
  invalidJson?: boolean;
  /** A shell command that must be checked before it runs (docs/command-safety.md). */
  approval?: CommandCheck;
  /** A `clarify` call: the workflow asks the user itself. */
  clarify?: { question: string; choices: string[] };
  /** A `delegate_task` call: the workflow runs child agents. */
  delegate?: { tasks: DelegateTask[] };
  /** A `todo` call: the workflow applies it to its task list. */
  todo?: { todos?: TodoItem[]; merge: boolean };
  /** Concurrency traits from the tool registry; absent for a tool name that does not exist. */
  traits?: ToolTraits;
  /** A short hash of the name's canonical arguments, for the loop guard (absent before it existed). */
  argsKey?: string;
  /** The longest the call may legitimately run (seconds), for the activity's timeout. */
  timeoutSeconds: number;
  /** An MCP tool: the hash of its stored schema row (server and tool), for the tool activity. */
  mcp?: string;
}

/**
 * A call as the turn handles it (workflows/tool-calls.ts: one handler per kind): the workflow answers
 * `todo`, `clarify` and `delegate` itself; `activity` calls run their tool activity; `invalid` ones
 * (bad arguments, unknown tool) go to the activity too, which records why they cannot run.
 */
export type ToolCall =
  | { kind: 'invalid'; ref: ToolCallRef; argsError: string }
  | { kind: 'todo'; ref: ToolCallRef; todo: NonNullable<ToolCallRef['todo']> }
  | { kind: 'delegate'; ref: ToolCallRef; delegate: NonNullable<ToolCallRef['delegate']> }
  | { kind: 'clarify'; ref: ToolCallRef; clarify: NonNullable<ToolCallRef['clarify']> }
  | { kind: 'activity'; ref: ToolCallRef };
export type ToolCallKind = ToolCall['kind'];

/** The kind of a call descriptor (arguments that failed make it `invalid`, whatever the tool). */
export function toolCallOf(ref: ToolCallRef): ToolCall {
  if (ref.argsError) return { kind: 'invalid', ref, argsError: ref.argsError };
  if (ref.todo) return { kind: 'todo', ref, todo: ref.todo };
  if (ref.delegate) return { kind: 'delegate', ref, delegate: ref.delegate };
  if (ref.clarify) return { kind: 'clarify', ref, clarify: ref.clarify };
  return { kind: 'activity', ref };
}

/** What the dangerous-command check found (computed in the activity, acted on by the workflow). */
export interface CommandCheck {
  /** `hardline` never runs; `dangerous` needs approval; `allowed` matched an "always" approval (of this command or its rules). */
  level: 'hardline' | 'dangerous' | 'allowed';
  rules: string[];
  description: string;
  /** The command for display: control characters made visible, capped (the whole command is in Postgres). */
  command: string;
  /** Groups of the findings (destroy_files, exfiltrate, …); absent in histories recorded before them. */
  groups?: string[];
  /** Length of the whole command. */
  commandChars?: number;
  /** What a "session" or "always" approval of this command is remembered by. */
  commandKey?: string;
  /** Each finding: its rule, group, reason and the exact words (bounded). */
  findings?: Array<{ level: 'dangerous' | 'hardline'; rule: string; group: string; reason: string; words: string }>;
  /** Every finding is a workspace change a checkpoint can undo, and the config lets such run unasked (common/checkpoints.ts). */
  undoable?: boolean;
}

/** How a tool behaves with respect to concurrency. */
export interface ToolTraits {
  /** Never changes anything: safe next to any other read-only call. */
  readOnly: boolean;
  /** Touches only the paths in its arguments (file tools). */
  pathScoped: boolean;
  /** Must run alone and in order (interactive, shell, delegation, agent state). */
  serial: boolean;
}

export const SERIAL_TOOLS = new Set(['clarify', 'terminal', 'delegate_task', 'memory', 'todo']);

export type BatchPlan = { mode: 'parallel' | 'sequential' };

/**
 * Concurrent only when every call is known, none is serial, and each is read-only or a
 * path-scoped file tool whose paths overlap no other call's paths.
 */
export function planToolBatch(calls: readonly ToolCallRef[]): BatchPlan {
  if (calls.length < 2) return { mode: 'sequential' };
  const writtenPaths: string[] = [];
  const readPaths: string[] = [];
  for (const call of calls) {
    // Paths are compared as written: an absolute path or one climbing with `..` might name the
    // same file as another spelling, so such batches run in order.
    if (call.paths?.some((p) => p.startsWith('/') || p.split(/[\\/]/).includes('..'))) return { mode: 'sequential' };
    const traits = call.traits;
    if (!traits || traits.serial || SERIAL_TOOLS.has(call.name) || call.argsError) return { mode: 'sequential' };
    if (traits.readOnly) {
      readPaths.push(...(call.paths ?? []));
      continue;
    }
    if (!traits.pathScoped || !call.paths?.length) return { mode: 'sequential' };
    for (const p of call.paths) {
      if ([...writtenPaths, ...readPaths].some((q) => pathsOverlap(p, q))) return { mode: 'sequential' };
      writtenPaths.push(p);
    }
  }
  for (const r of readPaths) if (writtenPaths.some((w) => pathsOverlap(r, w))) return { mode: 'sequential' };
  return { mode: 'parallel' };
}

/** Two workspace paths overlap when one is the other or contains it. */
export function pathsOverlap(a: string, b: string): boolean {
  const na = normalise(a);
  const nb = normalise(b);
  return na === nb || na.startsWith(`${nb}/`) || nb.startsWith(`${na}/`) || na === '' || nb === '';
}

function normalise(p: string): string {
  const parts: string[] = [];
  for (const seg of p.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}
