/**
 * What the conversation workflow answers (docs/temporal-cli.md): the turn result (also the
 * workflow's final result), the state query's view, the statuses, and what is pending on a
 * person. Types only, besides the status lists; contract.ts re-exports them with the inputs.
 */
import type { StopKind } from './stop-kind.js';
import type { Usage } from './messages.js';
import type { ApprovalMode, BusyPolicy } from './contract.js';

export interface PendingApproval {
  request_id: string;
  tool: string;
  command: string;
  reason: string;
  rules: string[];
  requested_at: string;
  timeout_seconds: number;
}

export interface PendingClarify {
  request_id: string;
  question: string;
  choices: string[];
  asked_at: string;
  timeout_seconds: number;
}

/** Turn exit reasons (`turn_exit_reason`). */
export type TurnExitReason =
  | 'text_response'
  | 'interrupted_by_user'
  | 'interrupted_during_api_call'
  | 'interrupted_during_tools'
  | 'budget_exhausted'
  | 'guardrail_halt'
  | 'session_budget_exceeded'
  | 'model_error'
  | 'invalid_tool_calls'
  | 'empty_response'
  | 'truncated'
  | 'content_filtered'
  | 'context_too_large'
  | 'internal_error'
  | 'conversation_ended'
  /** The person denied `approvals.maxDenialsInARow` commands in a row: the turn ends there. */
  | 'approvals_denied';

/** Usage of one turn and of the whole session so far. */
export interface TurnUsage {
  turn: Usage;
  session: Usage;
}

/** The result of one turn, and the shape of the workflow's final result (docs/temporal-cli.md). */
export interface TurnResult {
  final_response: string | null;
  last_reasoning: string | null;
  messages_count: number;
  api_calls: number;
  completed: boolean;
  interrupted: boolean;
  failed: boolean;
  partial: boolean;
  turn_exit_reason: TurnExitReason;
  model: string;
  provider: string;
  usage: TurnUsage;
  /** Session total, in US dollars, from the configured pricing (0 when unknown). */
  estimated_cost_usd: number;
  session_id: string;
  /** 1-based turn number within the conversation. */
  turn: number;
  /** Client id of the user message that started the turn. */
  message_id: string;
  error?: string;
  /** An interrupted or budget-ended turn: what stopped it (common/stop-kind.ts). */
  stop_kind?: StopKind;
}

export const CONVERSATION_STATUSES = [
  'idle',
  'thinking',
  'running_tools',
  'awaiting_approval',
  'awaiting_clarify',
  'compressing',
  'ended',
] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/**
 * The values of the HeraldStatus search attribute: every status of the `state` query, and
 * `failed` for a conversation idle after a turn that failed (it needs someone to look).
 */
export const HERALD_STATUSES = [...CONVERSATION_STATUSES, 'failed'] as const;
export type HeraldStatus = (typeof HERALD_STATUSES)[number];

export interface QueuedMessageView {
  id: string;
  preview: string;
}

/** What the `state` query returns (docs/temporal-cli.md). */
export interface ConversationStateView {
  status: ConversationStatus;
  session_id: string;
  conversation_id: string;
  turn: number;
  iteration: number;
  budget: { used: number; max: number };
  provider: string;
  model: string;
  api_mode: string;
  busy_policy: BusyPolicy;
  pending_approvals: PendingApproval[];
  /**
   * Approvals its running child agents wait for (`delegation.askPerson`), each with the child's
   * session id: answered with this conversation's `approve`, which passes the answer on.
   * Absent from workers that predate it.
   */
  child_approvals?: Array<PendingApproval & { child: string }>;
  clarify: PendingClarify | null;
  approval_mode: ApprovalMode;
  queued_messages: QueuedMessageView[];
  usage: Usage;
  last_error: string | null;
  last_result: TurnResult | null;
  current_tools: string[];
  /** Sessions of the child agents the running turn waits for (`delegate_task`). */
  child_sessions: string[];
  /** Sessions of child agents running in the background (`delegation.mode: background`). */
  background_sessions: string[];
  /** Set when this conversation is a child agent: the session that delegated its task. */
  parent_session_id: string | null;
  run_turns: number;
  /** Signals this conversation ignored (malformed, over a size bound, after the end), and the latest reason. */
  ignored_messages: { count: number; last_reason: string | null };
  /** Whether tools run in the OS sandbox, and with what network (absent for runs prepared before the sandbox). */
  sandbox: SandboxView | null;
  /** What the tool-loop guard did over the session: repeated calls nudged, refused, turns halted. */
  loop_guard: { nudges: number; refusals: number; halts: number };
  /** MCP servers (status, tool count, why one is unavailable) and the MCP tools offered; absent without MCP servers. */
  mcp?: {
    servers: Array<{
      name: string;
      status: 'ready' | 'failed' | 'disabled';
      tools: number;
      reason?: string | undefined;
      /** Tools of the server left out because their description looked like prompt injection. */
      leftOut?: Array<{ what: string; rule: string }> | undefined;
    }>;
    tools: string[];
  };
  /**
   * What was left out of the model's view as prompt injection, one line each ("AGENTS.md — it
   * looked like a prompt injection: …"): context files, memory entries, skills, MCP tools. Capped.
   */
  left_out: string[];
  /** What the latest turn with a checkpoint changed in the workspace (docs/checkpoints.md); absent before any. */
  last_changes?: { turn: number; files: number; added: number; removed: number } | null;
  /** Providers skipped for now after an overload, a rate limit or a billing error, and for how long. */
  cooling_down?: Array<{ provider: string; model: string; secondsLeft: number }>;
}

export interface SandboxView {
  active: boolean;
  network: string;
  /** Why tools run unsandboxed, when they do. */
  warning: string | null;
}
