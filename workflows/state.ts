/**
 * The conversation's durable state: small (counters, names, queue), carried whole across
 * continue-as-new. The transcript itself is in Postgres.
 *
 * The schema is the one definition: the state's type is its output, so a field the workflow keeps
 * cannot be missing from what continue-as-new carries (a nested field the schema did not name
 * would be stripped by the next run's parse), and a fresh state has every field a carried one has.
 */
import { z } from 'zod';
import { boundedString } from '../common/bounded-string.js';
import type { ConversationStateView, ConversationStatus, PendingApproval, TurnResult } from '../common/contract.js';
import {
  APPROVAL_DECISIONS,
  APPROVAL_MODES,
  APPROVAL_SCOPES,
  BUSY_POLICIES,
  MAX_DENY_REASON_CHARS,
  MAX_IDENTITY_CHARS,
} from '../common/contract.js';
import { delegationSettingsSchema, loopGuardSchema } from '../common/carried-settings.js';
import type { Usage } from '../common/messages.js';
import { emptyUsage } from '../common/messages.js';
import { describeNetwork, networkPolicySchema } from '../common/sandbox-policy.js';
import { mcpSnapshotSchema } from '../common/mcp-state.js';
import type { LeftOut } from '../common/left-out.js';
import { MAX_LEFT_OUT, describeLeftOut, leftOutListSchema, leftOutSchema } from '../common/left-out.js';
import { MAX_TODOS, MAX_TODO_CHARS, TODO_STATUSES } from '../common/todos.js';
import { DEFAULT_COMPRESSION } from '../common/context-window.js';
import { MAX_COOLDOWNS, MAX_COOLDOWN_MS, MIN_COOLDOWN_MS, coolingView } from '../common/provider-cooldown.js';
import { API_MODES, PROVIDER_NAMES } from '../common/providers.js';
import { MAX_PENDING_STEER } from './limits.js';

export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 300;
export const DEFAULT_CLARIFY_TIMEOUT_SECONDS = 600;
export const RECENT_RESULTS_KEPT = 20;

const usageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_tokens: z.number(),
  cache_write_tokens: z.number(),
  reasoning_tokens: z.number(),
  total_tokens: z.number(),
  cost_usd: z.number(),
});

const providerRefSchema = z.object({
  provider: z.enum(PROVIDER_NAMES),
  model: z.string(),
  apiMode: z.enum(API_MODES),
  baseUrl: z.string(),
  apiKeyEnv: z.string(),
  // Exactly optional, as ProviderRef spells them: the state's models are handed on as ProviderRef.
  credentialPool: z.array(z.string()).exactOptional(),
  contextLength: z.number().exactOptional(),
  maxOutputTokens: z.number().exactOptional(),
  fromWorker: z.boolean().exactOptional(),
});

const queuedMessageSchema = z.object({
  id: z.string(),
  text: z.string(),
  /** Came from the `sendMessage` update: a handler is waiting for this turn's result. */
  awaited: z.boolean(),
  /**
   * Steer text no model call answered, turned into this message: each part as it was sent, so
   * a part already appended to a tool result (by a call then stopped) is moved, not copied.
   */
  steerParts: z.array(z.string()).max(64).optional(),
  /** Who sent it (the client's identity), when the client said. */
  by: boundedString(MAX_IDENTITY_CHARS).optional(),
});

const approvalRequestSchema = z.object({
  requestId: z.string(),
  tool: z.string(),
  command: z.string(),
  reason: z.string(),
  rules: z.array(z.string()),
  /** Workflow time (ms) of the request. */
  requestedAt: z.number(),
  timeoutSeconds: z.number(),
  decision: z.enum(APPROVAL_DECISIONS).optional(),
  scope: z.enum(APPROVAL_SCOPES).optional(),
  /** The person's reason, given with a deny: the model reads it in the tool's result. */
  denyReason: boundedString(MAX_DENY_REASON_CHARS).optional(),
  /** Who sent the message whose turn asked (as the client stated it). */
  requester: boundedString(MAX_IDENTITY_CHARS).optional(),
  /** Who answered, and where from (as the answering client stated it). */
  approver: boundedString(MAX_IDENTITY_CHARS).optional(),
  via: boundedString(40).optional(),
});

const clarifyRequestSchema = z.object({
  requestId: z.string(),
  question: z.string(),
  choices: z.array(z.string()),
  askedAt: z.number(),
  timeoutSeconds: z.number(),
  answer: z.string().optional(),
});

/**
 * A turn's result as remembered: made by the workflow itself (capped by `compact`), so it is
 * typed, not validated again; the whole carried input is bounded by MAX_CARRIED_BYTES.
 */
const turnResultSchema = z.custom<TurnResult>();

/** Carried state is internal, but it arrives as workflow input: validate it like any input. */
export const carriedStateSchema = z.object({
  conversationId: z.string().min(1),
  sessionId: z.string().min(1),
  nextSeq: z.number().int().min(0),
  turn: z.number().int().min(0),
  /** The model of the current turn (the primary, or a fallback while one is active). */
  provider: providerRefSchema,
  /** The conversation's own model; every turn starts on it (absent: carried before it existed, parseCarried fills it). */
  primary: providerRefSchema.optional(),
  fallbacks: z.array(providerRefSchema).default([]),
  auxiliary: providerRefSchema.optional(),
  cwd: z.string(),
  tools: z.array(z.string()),
  searchAttributes: z.boolean(),
  maxIterations: z.number().int().min(1),
  busyPolicy: z.enum(BUSY_POLICIES),
  sessionUsage: usageSchema,
  sessionApiCalls: z.number().int().min(0),
  queue: z.array(queuedMessageSchema),
  pendingSteer: z.array(z.string()).max(MAX_PENDING_STEER),
  /** Results of recent turns by message id, so a repeated `sendMessage` id returns the first result. */
  recentResults: z.array(z.object({ id: z.string(), result: turnResultSchema })).max(RECENT_RESULTS_KEPT),
  lastResult: turnResultSchema.nullable(),
  lastError: z.string().nullable(),
  titleSet: z.boolean(),
  /** The conversation's title (HeraldTitle): its first message, shortened; absent until the first message. */
  title: boundedString(200).optional(),
  /**
   * The search attributes the preparing worker registered: names outside it are never upserted
   * (an unregistered name fails the workflow task). Absent: a session prepared before HeraldTitle
   * and HeraldPrimaryModel existed, which sets only the first four.
   */
  searchAttributeNames: z.array(boundedString(100)).max(20).optional(),
  // Added after the first release: runs carried by older code do not have them.
  /** Which key of each provider's credential pool is in use (by provider and base URL). */
  credentialIndex: z.record(z.string(), z.number().int().min(0)).default({}),
  /**
   * Providers left for an overload, a rate limit or a billing error, by endpoint: workflow time
   * until which each is skipped (common/provider-cooldown.ts; expired entries are dropped).
   */
  cooldowns: z
    .record(z.string().max(2200), z.number())
    .transform((c) => Object.fromEntries(Object.entries(c).slice(0, MAX_COOLDOWNS)))
    .optional(),
  /** How long such a provider is skipped (config `retry.cooldownSeconds`); absent: the default. */
  cooldownMs: z.number().int().min(MIN_COOLDOWN_MS).max(MAX_COOLDOWN_MS).optional(),
  /** Session-wide caps. */
  budget: z.object({ maxCostUsd: z.number().optional(), maxTokens: z.number().optional() }).default({}),
  compression: z
    .object({
      enabled: z.boolean(),
      threshold: z.number(),
      targetRatio: z.number(),
      protectFirst: z.number(),
      protectLast: z.number(),
      hygieneThreshold: z.number(),
    })
    .default(DEFAULT_COMPRESSION),
  /** Compressions so far (each one starts a new session in the lineage). */
  compressions: z.number().int().min(0).default(0),
  /** Compressions in a row that saved under 10% (automatic compression stops at 2). */
  ineffectiveCompressions: z.number().int().min(0).default(0),
  /** Prompt tokens the provider reported for the latest call (0 = unknown). */
  lastPromptTokens: z.number().min(0).default(0),
  approvalMode: z.enum(APPROVAL_MODES).default('manual'),
  approvalTimeoutSeconds: z.number().positive().default(DEFAULT_APPROVAL_TIMEOUT_SECONDS),
  clarifyTimeoutSeconds: z.number().positive().default(DEFAULT_CLARIFY_TIMEOUT_SECONDS),
  /** Rules the user approved "for the session" (scope `rule`). */
  sessionApprovedRules: z.array(boundedString(200)).max(500).default([]),
  /** Commands (their approval keys) the user approved "for the session". */
  sessionApprovedCommands: z.array(boundedString(100)).max(500).default([]),
  // Requests live only while a turn waits; none is pending at continue-as-new.
  pendingApprovals: z.array(approvalRequestSchema).max(100).default([]),
  /** The worker's approval policy (config `approvals`): no input, signal or tool call changes it. */
  approvalPolicy: z
    .object({ maxDenialsInARow: z.number().int().min(0).max(100), separateApprover: z.boolean() })
    .optional(),
  clarify: clarifyRequestSchema.nullable().default(null),
  /** The agent's task list (`todo` tool; common/todos.ts caps it). */
  todos: z
    .array(
      z.object({
        id: boundedString(64),
        content: boundedString(MAX_TODO_CHARS),
        status: z.enum(TODO_STATUSES),
      }),
    )
    .max(MAX_TODOS)
    .default([]),
  /** Task queue for tool activities (docs/tools.md); the conversation's own queue when unset. */
  toolTaskQueue: z.string().optional(),
  // The config file's schema: state carried before a field existed gets that field's default.
  /** Settings for the child agents this conversation may start (docs/delegation.md). */
  delegation: delegationSettingsSchema,
  /** Set when this conversation is itself a child agent. */
  subagent: z
    .object({
      parentSessionId: z.string(),
      depth: z.number().int().min(1),
      autoApprove: z.boolean(),
      askPerson: z.boolean().optional(),
    })
    .optional(),
  /** The tool sandbox as prepared (absent in runs prepared before the sandbox existed). */
  sandbox: z
    .object({ network: networkPolicySchema, active: z.boolean(), warning: boundedString(2000).exactOptional() })
    .optional(),
  /** MCP tools (names, schema hashes) and server statuses (workflows/mcp.ts); absent without MCP servers. */
  mcp: mcpSnapshotSchema.optional(),
  /** What the session's system prompt left out as prompt injection (untrusted-text/prompt-screen.ts; capped). */
  promptLeftOut: leftOutListSchema.default([]),
  /** Reports of background children the user stopped: they wait for the user's next message. */
  heldReports: z.array(queuedMessageSchema).max(64).default([]),
  /** Signals this conversation ignored (malformed, over a bound, too late), across runs. */
  ignoredSignals: z
    .object({ count: z.number().int().min(0), lastReason: boundedString(500).nullable() })
    .default({ count: 0, lastReason: null }),
  /** Tool-loop guardrail settings (state carried before they existed gets the defaults). */
  loopGuard: loopGuardSchema,
  /** What the loop guard did over the session (nudges, refusals, halted turns). */
  loopGuardStats: z
    .object({ nudges: z.number().int().min(0), refusals: z.number().int().min(0), halts: z.number().int().min(0) })
    .default({ nudges: 0, refusals: 0, halts: 0 }),
  /** What the latest turn with a checkpoint changed in the workspace (workflows/checkpoints.ts). */
  lastChanges: z
    .object({
      turn: z.number().int().min(0),
      files: z.number().int().min(0),
      added: z.number().int().min(0),
      removed: z.number().int().min(0),
    })
    .optional(),
});

type CarriedState = z.output<typeof carriedStateSchema>;

/** The state a run keeps: the carried schema's output, with the models parseCarried fills from `provider` always set. */
export type ConversationState = Omit<CarriedState, 'primary' | 'auxiliary'> & {
  primary: NonNullable<CarriedState['primary']>;
  auxiliary: NonNullable<CarriedState['auxiliary']>;
};
export type QueuedMessage = z.output<typeof queuedMessageSchema>;
export type ApprovalRequest = z.output<typeof approvalRequestSchema>;
export type ClarifyRequest = z.output<typeof clarifyRequestSchema>;

/**
 * Results kept for repeated message ids travel with continue-as-new: their text is capped so the
 * carried state stays far below Temporal's 2 MB payload limit (the full reply is in the transcript).
 */
export const REMEMBERED_TEXT_CHARS = 8_000;

function compact(result: TurnResult): TurnResult {
  const text = result.final_response;
  if (text === null || text.length <= REMEMBERED_TEXT_CHARS) return result;
  return {
    ...result,
    final_response: `${text.slice(0, REMEMBERED_TEXT_CHARS)}\n[…truncated: the full reply is in the transcript]`,
  };
}

export function rememberResult(state: ConversationState, id: string, result: TurnResult): void {
  state.recentResults = [...state.recentResults.filter((r) => r.id !== id), { id, result: compact(result) }].slice(
    -RECENT_RESULTS_KEPT,
  );
  state.lastResult = compact(result);
}

export function findResult(state: ConversationState, id: string): TurnResult | undefined {
  return state.recentResults.find((r) => r.id === id)?.result;
}

export interface LiveTurnView {
  iteration: number;
  status: ConversationStatus;
  currentTools: string[];
  children: string[];
}

/** What a request waiting for a person says, whoever made it (this conversation or one of its children). */
export type ApprovalAsked = Pick<
  ApprovalRequest,
  'requestId' | 'tool' | 'command' | 'reason' | 'rules' | 'requestedAt' | 'timeoutSeconds'
>;

/** A request waiting for a person as the state query shows it (a child's request too). */
export function pendingApprovalView(a: ApprovalAsked): PendingApproval {
  return {
    request_id: a.requestId,
    tool: a.tool,
    command: a.command,
    reason: a.reason,
    rules: a.rules,
    requested_at: new Date(a.requestedAt).toISOString(),
    timeout_seconds: a.timeoutSeconds,
  };
}

export function stateView(
  s: ConversationState,
  live: LiveTurnView | undefined,
  runTurns: number,
  ended: boolean,
  backgroundSessions: string[] = [],
  ignored: { count: number; lastReason: string | null } = { count: 0, lastReason: null },
  childApprovals: ConversationStateView['child_approvals'] = [],
): ConversationStateView {
  return {
    status: ended ? 'ended' : (live?.status ?? 'idle'),
    session_id: s.sessionId,
    conversation_id: s.conversationId,
    turn: s.turn,
    iteration: live?.iteration ?? 0,
    budget: { used: live?.iteration ?? 0, max: s.maxIterations },
    provider: s.provider.provider,
    model: s.provider.model,
    api_mode: s.provider.apiMode,
    busy_policy: s.busyPolicy,
    pending_approvals: s.pendingApprovals.filter((a) => !a.decision).map(pendingApprovalView),
    child_approvals: childApprovals,
    clarify:
      s.clarify && s.clarify.answer === undefined
        ? {
            request_id: s.clarify.requestId,
            question: s.clarify.question,
            choices: s.clarify.choices,
            asked_at: new Date(s.clarify.askedAt).toISOString(),
            timeout_seconds: s.clarify.timeoutSeconds,
          }
        : null,
    approval_mode: s.approvalMode,
    queued_messages: s.queue.map((m) => ({ id: m.id, preview: preview(m.text, 80) })),
    usage: s.sessionUsage,
    last_error: s.lastError,
    last_result: s.lastResult,
    current_tools: live?.currentTools ?? [],
    child_sessions: live?.children ?? [],
    background_sessions: backgroundSessions,
    parent_session_id: s.subagent?.parentSessionId ?? null,
    run_turns: runTurns,
    loop_guard: s.loopGuardStats,
    ignored_messages: { count: ignored.count, last_reason: ignored.lastReason },
    sandbox: s.sandbox
      ? { active: s.sandbox.active, network: describeNetwork(s.sandbox.network), warning: s.sandbox.warning ?? null }
      : null,
    ...(s.mcp
      ? { mcp: { servers: s.mcp.servers.map(({ epoch: _e, ...v }) => v), tools: s.mcp.tools.map((t) => t.name) } }
      : {}),
    left_out: leftOutLines(s),
    ...(s.lastChanges ? { last_changes: s.lastChanges } : {}),
    ...(coolingView(s.cooldowns, Date.now()).length ? { cooling_down: coolingView(s.cooldowns, Date.now()) } : {}),
  };
}

/**
 * The notes an activity reported, kept if they are in bounds; out-of-bounds entries (an activity
 * of another version) are dropped one by one rather than failing the run.
 */
export function adoptLeftOut(state: ConversationState, found: readonly unknown[] | undefined): void {
  if (!found) return;
  state.promptLeftOut = found
    .map((n) => leftOutSchema.safeParse(n))
    .flatMap((p) => (p.success ? [p.data] : []))
    .slice(0, MAX_LEFT_OUT);
}

/** Everything left out as prompt injection, one line each: the system prompt's, then each MCP server's tools. */
export function leftOutLines(s: ConversationState, max = 2 * MAX_LEFT_OUT): string[] {
  const mcp = (s.mcp?.servers ?? []).flatMap((v) => v.leftOut ?? []);
  const all = [...s.promptLeftOut, ...mcp];
  const lines = all.slice(0, max).map((n: LeftOut) => describeLeftOut(n));
  if (all.length > max) lines.push(`… and ${all.length - max} more`);
  return lines;
}

export function preview(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function freshUsage(): Usage {
  return emptyUsage();
}
