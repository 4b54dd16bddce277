/**
 * Delegation (docs/delegation.md): `delegate_task` runs child agents as child conversation workflows. This
 * module is the pure part — the settings, which tools a child gets, the brief it starts from, the
 * ids of its session, and the report the parent's model reads back. The workflow side is
 * workflows/delegation.ts.
 */
import type { TurnResult } from './contract.js';
import type { Usage } from './messages.js';
import { emptyUsage } from './messages.js';
import type { ApiMode, ProviderName } from './providers.js';

export const DELEGATION_MODES = ['wait', 'background'] as const;
export type DelegationMode = (typeof DELEGATION_MODES)[number];

export interface DelegationSettings {
  /**
   * `wait`: the tool call returns when every child has reported. `background`: it returns at once
   * and the reports come back later as a new message (a new turn). Child agents always wait.
   */
  mode: DelegationMode;
  /** Each child's iteration budget (a fresh one, not the parent's). */
  maxIterations: number;
  /** Tasks one `delegate_task` call may run; more are refused with a message to the model. */
  maxConcurrentChildren: number;
  /** How deep children may delegate in turn: 1 = only the top-level agent delegates. */
  maxDepth: number;
  /** Dangerous commands in a child: denied (false) or run without asking (true). No human is attached. */
  autoApprove: boolean;
  /**
   * Unless `autoApprove`: a child's dangerous command waits for a person instead of being denied; the
   * request shows in `herald children` and is answered from the parent (`herald approve <parent> …`).
   */
  askPerson: boolean;
  /** The longest report text a child hands back (the full text stays in its session). */
  maxSummaryChars: number;
  /** A child still running after this long is stopped and reported as `timeout`. */
  childTimeoutSeconds: number;
  /** The children's model, when not the parent's (the parent's fallback chain still applies). */
  model?: ChildModel | undefined;
}

export interface ChildModel {
  provider: ProviderName;
  model: string;
  baseUrl?: string | undefined;
  apiMode?: ApiMode | undefined;
  apiKeyEnv?: string | undefined;
}

export const DEFAULT_DELEGATION: DelegationSettings = {
  mode: 'wait',
  maxIterations: 50,
  maxConcurrentChildren: 3,
  maxDepth: 1,
  autoApprove: false,
  askPerson: false,
  maxSummaryChars: 24_000,
  childTimeoutSeconds: 1800,
};

export const DELEGATE_TOOL = 'delegate_task';

/** The first line of the message that brings background children's reports into the conversation. */
export const BACKGROUND_REPORTS_PREFIX =
  '[Background task results] The child agents you dispatched earlier have finished. Their reports:';

/** Tools a child never gets: it cannot ask the user, write long-term memory, or (at the depth limit) delegate. */
const CHILD_BLOCKED_TOOLS = new Set(['clarify', 'memory', DELEGATE_TOOL]);

/** One task of a `delegate_task` call, as the workflow receives it. */
export interface DelegateTask {
  goal: string;
  context?: string;
  /** Restrict the child further to these tools or toolsets' tools (intersected with what it may have). */
  tools?: string[];
}

/** Who a child is: carried in its workflow input. */
export interface SubagentInfo {
  parentSessionId: string;
  depth: number;
  autoApprove: boolean;
  /** A dangerous command waits for a person (answered from the parent) instead of being denied. */
  askPerson?: boolean | undefined;
}

/**
 * The tools a child at `depth` gets: the parent's tools minus the blocked ones, `delegate_task`
 * kept only while the child may still delegate, narrowed to `requested` when the task names some.
 */
export function childTools(
  parentTools: readonly string[],
  depth: number,
  maxDepth: number,
  requested?: readonly string[],
): string[] {
  return parentTools.filter((t) => {
    if (t === DELEGATE_TOOL) return depth < maxDepth;
    if (CHILD_BLOCKED_TOOLS.has(t)) return false;
    return !requested?.length || requested.includes(t);
  });
}

const BRIEF_HEAD = 'YOUR TASK:\n';

/** The child's first (and only) user message: its task, the parent's context, and what to report. */
export function subagentBrief(task: DelegateTask): string {
  const parts = [`${BRIEF_HEAD}${task.goal.trim()}`];
  if (task.context?.trim()) parts.push(`CONTEXT (from the agent that delegated this task):\n${task.context.trim()}`);
  parts.push(
    'Work on this task on your own: nobody can answer questions. When you are done, reply with a ' +
      'self-contained report: what you did, what you found, the files you created or changed, and ' +
      'any issues left open. Your reply is all the delegating agent will see.',
  );
  return parts.join('\n\n');
}

/** A session title for a first message: a brief's goal rather than its `YOUR TASK:` heading. */
export function titleText(firstMessage: string): string {
  return firstMessage.startsWith(BRIEF_HEAD) ? firstMessage.slice(BRIEF_HEAD.length) : firstMessage;
}

const SESSION_ID_MAX = 128;

/**
 * A child's session id: readable and traceable to its parent (`<parent>.d<turn>-<seq>-<index>`),
 * or `<fallback>` when the parent's id is too long to extend.
 */
export function childSessionId(
  parentId: string,
  turn: number,
  seq: number,
  index: number,
  fallback: () => string,
): string {
  const id = `${parentId}.d${turn}-${seq}-${index}`;
  return id.length <= SESSION_ID_MAX ? id : `sub-${fallback()}`;
}

/**
 * `interrupted`: the parent's stop reached it; `stopped`: someone stopped this one child while the
 * parent waited (`herald children --stop`), and its summary is what it had so far, marked as such.
 */
export type ChildStatus = 'completed' | 'failed' | 'interrupted' | 'stopped' | 'timeout' | 'error';

/**
 * How the summary of a stopped child begins: what follows is what it had so far, and the model
 * must not take it for a finished report. `alone`: stopped by itself, not with its parent.
 */
export function stoppedMark(kind: string | undefined, ending: ChildEnding, started: boolean): string {
  const who =
    ending === 'timed_out'
      ? 'when its time ran out'
      : ending === 'stopped'
        ? 'with the delegating agent'
        : kind === undefined || kind === 'user'
          ? 'by a person'
          : `(${kind.replace(/_/g, ' ')})`;
  return started ? `[stopped ${who} before it finished] ` : `[stopped ${who} before it started its task]`;
}

/** A child stopped by itself, not by its parent: its parent did not end the wait, yet the child was interrupted. */
function stoppedAlone(result: TurnResult | null, ending: ChildEnding, failedToRun: boolean): boolean {
  if (ending !== undefined || failedToRun) return false;
  return result === null || result.interrupted;
}

/** What the parent's model reads about one child. */
export interface ChildReport {
  task_index: number;
  session_id: string;
  status: ChildStatus;
  summary: string;
  exit_reason: string;
  api_calls: number;
  duration_seconds: number;
  model: string;
  tokens: { input: number; output: number; total: number };
  cost_usd: number;
  error?: string;
}

/** How the parent ended a child's wait, when it did. */
export type ChildEnding = 'stopped' | 'timed_out' | undefined;

/**
 * The report for a child that returned `result` — or, when `result` is null, ended without running
 * its task (stopped first) or failed with `error` (could not start, or never ended after a stop).
 */
export function childReport(
  index: number,
  sessionId: string,
  result: TurnResult | null,
  durationMs: number,
  ending: ChildEnding,
  maxSummaryChars: number,
  error?: string,
): ChildReport {
  const usage = childUsage(result);
  const failedToRun = result === null && error !== undefined;
  const alone = stoppedAlone(result, ending, failedToRun);
  const status = alone ? 'stopped' : statusOf(result, ending, failedToRun);
  const text = result?.final_response ?? '';
  const cut =
    text.length > maxSummaryChars
      ? `${text.slice(0, maxSummaryChars)}\n[… ${text.length - maxSummaryChars} more characters: the full report is in session ${sessionId}]`
      : text;
  // An interrupted child's reply is its partial progress (workflows/turn.ts): marked as such.
  const marked = alone || result?.interrupted === true;
  const summary = marked ? `${stoppedMark(result?.stop_kind, ending, result !== null)}${cut}`.trimEnd() : cut;
  const why = result?.error ?? error;
  return {
    task_index: index,
    session_id: sessionId,
    status,
    summary,
    exit_reason:
      result?.turn_exit_reason ??
      (failedToRun ? 'internal_error' : ending === 'stopped' || alone ? 'interrupted_by_user' : 'conversation_ended'),
    api_calls: result?.api_calls ?? 0,
    duration_seconds: Math.round(durationMs / 100) / 10,
    model: result?.model ?? '',
    tokens: { input: usage.input_tokens, output: usage.output_tokens, total: usage.total_tokens },
    cost_usd: usage.cost_usd,
    ...(why ? { error: why } : {}),
  };
}

function statusOf(result: TurnResult | null, ending: ChildEnding, failedToRun: boolean): ChildStatus {
  if (failedToRun) return 'error';
  if (ending === 'timed_out') return 'timeout';
  if (result === null) return ending === 'stopped' ? 'interrupted' : 'error';
  if (result.completed) return 'completed';
  return result.interrupted ? 'interrupted' : 'failed';
}

/** The tool result of a `delegate_task` call: one line of overview, then the reports as JSON. */
export function delegationResult(reports: readonly ChildReport[]): string {
  const counts = new Map<ChildStatus, number>();
  for (const r of reports) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const overview = [...counts].map(([status, n]) => `${n} ${status}`).join(', ');
  return `${reports.length} delegated task(s): ${overview}.\n${JSON.stringify({ results: reports }, null, 2)}`;
}

/** The reports in a `delegate_task` result (or background message) written by `delegationResult`. */
export function parseDelegationResult(text: string): ChildReport[] {
  const json = text.slice(text.indexOf('{'));
  return (JSON.parse(json) as { results: ChildReport[] }).results;
}

/** Tool calls a stopped child's partial report names at most (its newest ones). */
export const MAX_PARTIAL_TOOLS = 10;
const MAX_PARTIAL_TOOL_CHARS = 200;

/**
 * What a child stopped mid-task hands back instead of a final reply: the text it last wrote
 * alongside tool calls, and the calls it made since the task began (newest last).
 */
export function partialProgress(lastText: string | undefined, toolsRun: readonly string[]): string {
  const parts: string[] = [];
  if (lastText?.trim()) parts.push(lastText.trim());
  if (toolsRun.length)
    parts.push(`Tool calls so far: ${toolsRun.map((t) => t.slice(0, MAX_PARTIAL_TOOL_CHARS)).join('; ')}`);
  return parts.join('\n\n') || '(nothing to report yet)';
}

/** The usage a child adds to its parent's ledger. */
export function childUsage(result: TurnResult | null): Usage {
  return result?.usage.session ?? emptyUsage();
}
