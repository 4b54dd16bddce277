/**
 * The small descriptor of a tool call the model activity returns, one kind per handler in the turn
 * (workflows/tool-calls.ts), and tool batch planning (docs/tools.md): several tool calls from one
 * assistant message run concurrently only when that is safe; everything else runs in call order.
 * Pure: the workflow calls it with the descriptors the model activity returned.
 */
import type { DelegateTask } from './delegation.js';
import type { TodoItem } from './todos.js';

/** What every call descriptor carries, whatever its kind (no arguments: those stay in Postgres). */
interface CallBase {
  id: string;
  name: string;
  /** One-line description of the call for the Web UI and events, e.g. `terminal: npm test`. */
  summary: string;
  /** The longest the call may legitimately run (seconds), for the activity's timeout. */
  timeoutSeconds: number;
  /** Concurrency traits from the tool registry; absent for a tool name that does not exist. */
  traits?: ToolTraits;
  /** Workspace paths the call touches (file tools only). */
  paths?: string[];
}

/** A call whose arguments fit its tool: what the loop guard compares it by. */
interface ValidCall extends CallBase {
  traits: ToolTraits;
  /** A short hash of the name's canonical arguments, for the loop guard. */
  argsKey: string;
}

/** Why a call cannot run: the model recalls (invalid JSON) or reads the error as the tool's result. */
export type InvalidCallProblem = 'unknown_tool' | 'invalid_json' | 'invalid_arguments' | 'too_large' | 'too_many_calls';

/** A call of the conversation's own tools: the workflow answers it itself. */
export interface TodoCall extends ValidCall {
  kind: 'todo';
  todo: { todos?: TodoItem[]; merge: boolean };
}
export interface DelegateCall extends ValidCall {
  kind: 'delegate';
  delegate: { tasks: DelegateTask[] };
}
export interface ClarifyCall extends ValidCall {
  kind: 'clarify';
  clarify: { question: string; choices: string[] };
}

/** A call its tool activity runs: a built-in tool, or an MCP tool by the hash of its stored schema row. */
export interface ActivityCall extends ValidCall {
  kind: 'activity';
  /** A command that must be checked before it runs (docs/command-safety.md). */
  approval?: CommandCheck;
}
export interface McpCall extends ValidCall {
  kind: 'mcp';
  /** The hash of the tool's stored schema row (server and tool), for the tool activity. */
  mcp: string;
  /** The server's configuration asks for approval of this tool. */
  approval?: CommandCheck;
}

/** A call that cannot run (unknown tool, bad arguments): its tool activity records why. */
export interface InvalidCall extends CallBase {
  kind: 'invalid';
  argsError: string;
  problem: InvalidCallProblem;
}

/**
 * What the workflow knows about one requested tool call, by kind (workflows/tool-calls.ts: one
 * handler per kind): the workflow answers `todo`, `clarify` and `delegate` itself; `activity` and
 * `mcp` calls run their tool activity; `invalid` ones go to the activity too, which records why
 * they cannot run.
 */
export type ToolCallRef = TodoCall | DelegateCall | ClarifyCall | ActivityCall | McpCall | InvalidCall;
export type ToolCallKind = ToolCallRef['kind'];
export type CallOfKind<K extends ToolCallKind> = Extract<ToolCallRef, { kind: K }>;

/** The command check a call carries, if its kind can carry one. */
export function approvalOf(call: ToolCallRef): CommandCheck | undefined {
  return call.kind === 'activity' || call.kind === 'mcp' ? call.approval : undefined;
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

/** The trait sets tools declare, by what they do. */
export const TRAITS = {
  /** Reads the workspace paths in its arguments. */
  readsPaths: { readOnly: true, pathScoped: true, serial: false },
  /** Changes only the workspace paths in its arguments. */
  editsPaths: { readOnly: false, pathScoped: true, serial: false },
  /** Reads something other than workspace paths (skills, past sessions, an MCP tool marked read-only). */
  reads: { readOnly: true, pathScoped: false, serial: false },
  /** May change anything: runs alone and in order. */
  serial: { readOnly: false, pathScoped: false, serial: true },
} as const satisfies Record<string, ToolTraits>;

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
    if (!traits || traits.serial || SERIAL_TOOLS.has(call.name) || call.kind === 'invalid')
      return { mode: 'sequential' };
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
