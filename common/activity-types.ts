/**
 * Arguments and results of Herald's activities: the only data that crosses between workflow and
 * activities, and therefore what lands in Temporal history. Kept small on purpose: the transcript
 * lives in Postgres and activities load it themselves (DESIGN.md, "references in history").
 */
import type { SpendLimit, TurnAttempts } from './attempts.js';
import type { TurnResult } from './contract.js';
import type { Usage } from './messages.js';
import type { ProviderRef, ProviderRequest } from './providers.js';
import type { ToolCallRef } from './tool-batch.js';
import type { CompressionSettings } from './context-window.js';
import type { DelegationSettings } from './delegation.js';
import type { LoopGuardSettings } from './loop-guard.js';
import type { TodoItem } from './todos.js';
import type { NetworkPolicy, SandboxInput } from './sandbox-policy.js';
import type { McpSnapshot } from './mcp-state.js';
import type { LeftOut } from './left-out.js';

export interface PrepareConversationArgs {
  conversationId: string;
  sessionId: string;
  workflowId: string;
  provider: ProviderRequest;
  systemMessage?: string;
  cwd?: string;
  source?: string;
  toolsets?: string[];
  firstMessage?: string;
  history?: Array<{ role: 'user' | 'assistant'; content: string }>;
  /** The conversation's own fallback chain (else the worker's configured one). */
  fallbackProviders?: ProviderRequest[];
  /** The session that delegated this one (a child agent's session). */
  parentSessionId?: string;
  /** The conversation's own sandbox choice (narrows the worker's). */
  sandbox?: SandboxInput;
}

export interface PrepareConversationResult {
  provider: ProviderRef;
  /** The ordered fallback chain, resolved. */
  fallbacks: ProviderRef[];
  /** The auxiliary model for summaries and titles. */
  auxiliary: ProviderRef;
  cwd: string;
  /** Names of the tools this conversation may use. */
  tools: string[];
  /** Whether Herald's search attributes are registered on the namespace (upserting unknown ones fails the task). */
  searchAttributes: boolean;
  /** The search attribute names the worker found registered (absent from workers before HeraldTitle). */
  searchAttributeNames?: string[];
  /** Messages already in the session (resumed or seeded): the next sequence number to use. */
  nextSeq: number;
  maxIterations: number;
  busyPolicy: 'interrupt' | 'queue' | 'steer';
  /** The worker's session caps (the input's `budget` wins field by field). */
  budget: { maxCostUsd?: number; maxTokens?: number };
  compression: CompressionSettings;
  approvals: {
    mode: 'manual' | 'off' | 'smart';
    timeoutSeconds: number;
    clarifyTimeoutSeconds: number;
    /** Absent from results recorded before the approval trail: the defaults apply. */
    maxDenialsInARow?: number;
    separateApprover?: boolean;
  };
  /** Child agent settings (absent from results recorded before delegation existed). */
  delegation?: DelegationSettings;
  /** Tool-loop guardrails (absent from results recorded before they existed). */
  loopGuard?: LoopGuardSettings;
  /** How long a provider left for an overload, rate limit or billing error is skipped (ms). */
  cooldownMs?: number;
  /** The tool sandbox as this worker runs it (absent from results recorded before the sandbox existed). */
  sandbox?: ConversationSandbox;
  /** MCP tools and server statuses found at session start (absent: no MCP servers configured). */
  mcp?: McpSnapshot;
  /** What the new session's system prompt left out as prompt injection (untrusted-text/prompt-screen.ts; capped). */
  leftOut?: LeftOut[];
  /**
   * A resumed conversation that had compressed: the latest session of its lineage (where it goes
   * on, reopened) and how many compressions made it; `nextSeq` is that session's.
   */
  resume?: { sessionId: string; compressions: number };
  /**
   * A session that existed before this run (reopened): the totals and last turn it goes on from
   * (absent for new sessions and from results recorded before reopening kept them).
   */
  priorTotals?: { usage: Usage; apiCalls: number; turn: number };
  /**
   * The first message as the worker redacted it, cut to a preview: the title and memo the
   * conversation shows outside itself (absent without a first message, and from older results).
   */
  firstShown?: string;
}

/** The sandbox a conversation's tools run in: its network (narrowed) and whether the sandbox is active. */
export interface ConversationSandbox {
  network: NetworkPolicy;
  active: boolean;
  warning?: string;
}

export interface RecordUserMessageResult {
  /** Estimated prompt tokens of the next model call (system prompt, transcript, tool schemas). */
  contextTokens: number;
  /** The search attribute names this worker found registered, so sessions prepared by older workers learn them. */
  searchAttributeNames?: string[];
  /**
   * The message id already ran in this conversation (however long ago): its recorded result.
   * Nothing was written; the turn does not run again.
   */
  duplicate?: TurnResult;
  /**
   * The message as the worker redacted it, cut to a preview: what the conversation shows outside
   * itself (title, memo, current details). Absent from results recorded before it existed.
   */
  shown?: string;
}

export interface RecordUserMessageArgs {
  conversationId: string;
  sessionId: string;
  turnId: string;
  turn: number;
  seq: number;
  text: string;
  messageId: string;
  /** For the context estimate. */
  model?: string;
  tools?: string[];
  /** Steer parts this message carries: taken out of the tool result a stopped call had appended them to. */
  steerParts?: string[];
}

export interface CallModelArgs {
  conversationId: string;
  sessionId: string;
  turnId: string;
  /** Where the assistant message goes; the transcript before it is the model's input. */
  seq: number;
  /** 1-based model call number within the turn. */
  iteration: number;
  maxIterations: number;
  provider: ProviderRef;
  tools: string[];
  /** Request-only text appended to the last message (budget warnings, steer); never stored. */
  ephemeralNote?: string;
  /** `/steer` text to append (inside the out-of-band marker) to the last tool result before this call. */
  steer?: string;
  /** Which key of the provider's credential pool to use (rotated by the workflow). */
  credentialIndex?: number;
  /** A fallback provider is left in the chain (the activity then gives up sooner on some reasons). */
  fallbackAvailable?: boolean;
  /** Send no provider reasoning back (after a thinking-signature rejection). */
  stripReasoning?: boolean;
  /** Output cap for this call (raised after truncation). */
  maxOutputTokens?: number;
  /** Ask for a final answer: no tools offered. */
  toolChoiceNone?: boolean;
  /** The conversation's MCP tools (names, schema hashes) and servers (for list-changed checks). */
  mcp?: McpSnapshot;
  /**
   * What is left of the session caps (common/attempts.ts): a retry of this call is not made once
   * its earlier attempts spent it (absent: no caps, or a turn that counts successful calls only).
   */
  spendLimit?: SpendLimit;
}

export interface CallModelResult {
  finishReason: string;
  toolCalls: ToolCallRef[];
  /** Full text when the reply ends the turn (no tool calls); a short preview otherwise. */
  text: string;
  textTruncated: boolean;
  reasoning: string | null;
  /** The reply opened `<REASONING_SCRATCHPAD>` and never closed it. */
  scratchpadUnterminated: boolean;
  usage: Usage;
  model: string;
  durationMs: number;
  /** A server of the conversation said its tool list changed: discover again before the next turn. */
  mcpChanged?: boolean;
  /**
   * The turn's ledger totals, this call's attempts and every earlier one's included (common/attempts.ts);
   * absent from results of older workers and when the ledger could not be written or read.
   */
  turnAttempts?: TurnAttempts;
  /** This call's ledger row could not be written: it is counted alone, and no later report holds it. */
  unledgered?: boolean;
}

export interface DiscoverMcpArgs {
  conversationId: string;
  sessionId: string;
  toolsets?: string[];
}

export interface RunToolArgs {
  conversationId: string;
  sessionId: string;
  turnId: string;
  /** Seq of the assistant message holding the call's arguments. */
  assistantSeq: number;
  /** Seq where the tool result goes. */
  resultSeq: number;
  call: ToolCallRef;
  cwd: string;
  /** This call's share of the 200,000-character budget for all results of one assistant turn. */
  inlineLimit?: number;
  /** The conversation's network for tool processes, when it narrowed the worker's (docs/tool-sandbox.md). */
  network?: NetworkPolicy;
}

export interface RunToolResult {
  /** Size of the stored result, for the post-tool context estimate. */
  chars?: number;
  isError: boolean;
  preview: string;
  durationMs: number;
  /** The tool had started before (a worker died mid-run) and ran again. */
  reExecuted: boolean;
  /** A short hash of the result, for the loop guard (absent in results recorded before it). */
  resultKey?: string;
  /** A file the call wrote, as it is now (path and content, hashed): the guard sees edits going in circles. */
  fileState?: string;
}

export interface SyntheticMessage {
  seq: number;
  role: 'user' | 'assistant' | 'tool';
  content: string;
  toolCallId?: string;
  toolName?: string;
  /**
   * Replace whatever is at `seq` (a leftover of a discarded call). Without it an existing row
   * wins: a synthetic "cancelled" result never hides a real one that landed first.
   */
  overwrite?: boolean;
}

export interface RecordMessagesArgs {
  sessionId: string;
  turnId: string;
  messages: SyntheticMessage[];
}

export interface FinishTurnArgs {
  conversationId: string;
  sessionId: string;
  turnId: string;
  result: TurnResult;
  /** Session totals are written as absolute values, so a retried write is harmless. */
  sessionApiCalls: number;
  /**
   * What the turn counted of its ledger (common/attempts.ts): attempts the ledger holds beyond it
   * are added to the result before it is stored (absent: turns that count successful calls only).
   */
  counted?: TurnAttempts;
}

export interface FinishTurnResult {
  /** Attempts only the ledger knew of, added to the stored result; the workflow adds the same. */
  lateAttempts?: TurnAttempts;
}

export interface EndConversationArgs {
  conversationId: string;
  sessionId: string;
  reason: string;
}

export interface ResolveModelArgs {
  conversationId: string;
  sessionId: string;
  turnId: string;
  request: ProviderRequest;
  /** The model being replaced, for the event. */
  previous: string;
}

/** A `setModel` request resolved by the worker, or why it cannot be used. */
export type ResolveModelResult = { ok: true; provider: ProviderRef } | { ok: false; error: string };

export interface StatusEventArgs {
  conversationId: string;
  turnId: string;
  /** What happened: fallback, credential_rotated, compression, budget, … */
  kind: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface RefreshCredentialsArgs {
  provider: ProviderRef;
  credentialIndex: number;
}

export type CompressionReason = 'preflight' | 'hygiene' | 'post_tool' | 'overflow' | 'manual';

/**
 * What an auxiliary activity (a compression, a `smart` approval) reports of its model requests'
 * ledger rows, on its result or its failure's (cancellation's) details; absent fields: it made
 * none, or the ledger could not be read (results of older workers have neither). The workflow
 * counts them (workflows/attempts.ts `countAuxiliary`).
 */
export interface AuxiliaryReport {
  /** The turn's ledger totals once these requests are in (common/attempts.ts): what a turn counts. */
  turnAttempts?: TurnAttempts;
  /** This activity's own requests, every Temporal attempt of it: what a call between turns (`/compress`) counts. */
  auxAttempts?: TurnAttempts;
}

export interface CompressContextArgs {
  conversationId: string;
  turnId: string;
  sessionId: string;
  /** The transcript to compress is everything before this sequence number. */
  beforeSeq: number;
  /** The id of the session the compressed transcript goes to (lineage: its parent is `sessionId`). */
  newSessionId: string;
  /** Compressions before this one (the first child session is titled "<title> #2"). */
  compressionNumber: number;
  reason: CompressionReason;
  provider: ProviderRef;
  auxiliary: ProviderRef;
  tools: string[];
  focus?: string;
  /** Keep the first messages verbatim (first compression of the conversation only). */
  firstCompression: boolean;
  /** The agent's task list: its open items are re-injected after the summary. */
  todos?: TodoItem[];
  /** What is left of the session caps: no summary request is made past them (a mechanical summary instead). */
  spendLimit?: SpendLimit;
}

export interface CompressContextResult extends AuxiliaryReport {
  /** False when there was nothing worth compressing (the session is unchanged). */
  compressed: boolean;
  sessionId: string;
  nextSeq: number;
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  /** The summariser failed and a mechanical summary was used. */
  fallbackSummary: boolean;
  /** What the new session's system prompt left out as prompt injection (untrusted-text/prompt-screen.ts). */
  leftOut?: LeftOut[];
}

export interface ApprovalRequestArgs {
  /** Seq of the assistant message holding the call: the whole command is read from there. */
  assistantSeq?: number;
  conversationId: string;
  sessionId: string;
  turnId: string;
  requestId: string;
  toolCallId: string;
  tool: string;
  command: string;
  rules: string[];
  reason: string;
  timeoutSeconds: number;
}

/** A child agent's approval request, published into its parent's event stream (workflows/child-approvals.ts). */
export interface ChildApprovalEventArgs {
  /** The parent's. */
  conversationId: string;
  turnId: string;
  childSessionId: string;
  requestId: string;
  /** The command as the parent kept it (bounded); the child's stored request has it whole. */
  command: string;
  tool: string;
  reason: string;
  rules: string[];
  timeoutSeconds: number;
}

export interface ApprovalResolutionArgs {
  conversationId: string;
  turnId: string;
  requestId: string;
  /** once | session | always | deny | timeout | cancelled | smart */
  decision: string;
  decidedBy: string;
  rules: string[];
  /** Who answered (the identity the client stated), where from, and a deny's reason. */
  approver?: string;
  via?: string;
  denyReason?: string;
  /** Who sent the message whose turn asked. */
  requester?: string;
  /** What "session"/"always" covers: this command (default) or its rules. */
  scope?: 'command' | 'rule';
  commandKey?: string;
}

export interface ClarifyRequestArgs {
  conversationId: string;
  turnId: string;
  requestId: string;
  question: string;
  choices: string[];
  timeoutSeconds: number;
}

export interface AssessCommandArgs {
  auxiliary: ProviderRef;
  command: string;
  description: string;
  /** Where the request's ledger row goes (absent from older workflows' calls: no row). */
  conversationId?: string;
  sessionId?: string;
  turnId?: string;
  /** The assistant message holding the call. */
  seq?: number;
  /** What is left of the session caps: a retry past them is not made (the human is asked). */
  spendLimit?: SpendLimit;
}

/** A `smart` assessment's verdict, with the report of its requests. */
export type AssessCommandResult = { verdict: 'approve' | 'escalate' } & AuxiliaryReport;

export interface ToolResultArgs {
  conversationId: string;
  sessionId: string;
  turnId: string;
  seq: number;
  toolCallId: string;
  toolName: string;
  content: string;
  isError: boolean;
  /** How long the workflow spent on the call (a delegation's children, a wait for the user). */
  durationMs?: number;
  /** The tool did not run, and why: the result is the workflow's own answer. */
  notRun?: NotRunReason;
  /** The call's one-line summary (tool and main argument), shown for a call that did not run. */
  summary?: string;
}

/**
 * Why a call was answered without running: `duplicate` (the same read earlier in the reply),
 * `repeat` (a read answered from its unchanged earlier result), `refused` (by the loop guard),
 * `blocked` (a command that is never allowed), `denied` (no approval).
 */
export type NotRunReason = 'duplicate' | 'repeat' | 'refused' | 'blocked' | 'denied';
export const NOT_RUN_REASONS: readonly NotRunReason[] = ['duplicate', 'repeat', 'refused', 'blocked', 'denied'];
