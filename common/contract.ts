/**
 * The conversation workflow's public contract (docs/temporal-cli.md): its input, the payloads of its signals
 * and updates, the turn result and the state query (those two in conversation-view.ts, re-exported
 * here). zod is the single source of truth; these
 * schemas run in the workflow sandbox too (zod is deterministic), so validation happens where the
 * data enters.
 */
import { SIGNALLED_STOP_KINDS } from './stop-kind.js';
import { z } from 'zod';
import { API_MODES, PROVIDER_NAMES } from './providers.js';
import { sandboxInputSchema } from './sandbox-policy.js';
import { jsonBytes } from './text.js';
import { boundedString } from './bounded-string.js';

export const BUSY_POLICIES = ['interrupt', 'queue', 'steer'] as const;
export type BusyPolicy = (typeof BUSY_POLICIES)[number];

export const APPROVAL_MODES = ['manual', 'off', 'smart'] as const;

/**
 * The largest user message Herald accepts. Messages travel through Temporal history as signal and
 * update payloads (warning at 256 KB, hard limit 2 MB per payload): beyond this, put the text in
 * a file in the workspace and refer to it.
 */
export const MAX_MESSAGE_CHARS = 400_000;

/**
 * A message's size as a Temporal payload: its JSON in UTF-8, where an escaped NUL or a lone
 * surrogate costs 6 bytes and a CJK character 3. Past Temporal's 2 MB payload limit an update
 * cannot even be rejected (the worker's reply carries the request back and is refused itself),
 * so the client refuses such a message before sending it. The bound is the most the workflow's
 * queue holds (`MAX_QUEUED_BYTES`, also in encoded bytes): a larger message would be refused by
 * the workflow anyway, and a message travels in history more than once (the update, then the
 * step that records it), so half the payload limit leaves the margin.
 */
export const MAX_MESSAGE_PAYLOAD_BYTES = 1_000_000;
export function messagePayloadBytes(text: string): number {
  return jsonBytes(text);
}
/** Why a message cannot be sent (undefined: it can). */
export function messageSizeIssue(text: string): string | undefined {
  if (text.length > MAX_MESSAGE_CHARS)
    return `too large (over ${MAX_MESSAGE_CHARS} characters); put long text in a workspace file and refer to it`;
  return messagePayloadIssue(text);
}
/** Why a message is too large for a Temporal payload (undefined: it is not). */
export function messagePayloadIssue(text: string): string | undefined {
  const bytes = messagePayloadBytes(text);
  if (bytes > MAX_MESSAGE_PAYLOAD_BYTES)
    return `too large as a payload (${bytes} bytes encoded, at most ${MAX_MESSAGE_PAYLOAD_BYTES}); put long text in a workspace file and refer to it`;
  return undefined;
}
const MESSAGE_TOO_LARGE = `too large (over ${MAX_MESSAGE_CHARS} characters); put long text in a workspace file and refer to it`;

/** What a session id may be: it names workflows, child and compressed sessions, and search attributes. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
const sessionIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, 'use letters, digits, ".", "_", ":" or "-"');

/** A duration in the `ms` format Temporal accepts, e.g. "90s", "5 minutes", "30 days". */
export const durationSchema = z
  .string()
  .regex(
    /^\d+(\.\d+)?\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?)$/i,
    'a duration such as "90s", "5 minutes" or "30 days"',
  );

export const fallbackProviderSchema = z
  .object({
    provider: z.enum(PROVIDER_NAMES),
    model: z.string().min(1),
    baseUrl: z.string().url().optional(),
    apiMode: z.enum(API_MODES).optional(),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name')
      .optional(),
  })
  .strict();

export const APPROVAL_DECISIONS = ['once', 'session', 'always', 'deny'] as const;
/** The longest reason a person may give with a decision (it reaches the model and the history). */
export const MAX_DENY_REASON_CHARS = 500;
/** An identity (who sent a message, who answered an approval), as the client states it. */
export const MAX_IDENTITY_CHARS = 200;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** Signal or update `approve`: the user's decision on a pending dangerous command. */
export const APPROVAL_SCOPES = ['command', 'rule'] as const;
export type ApprovalScope = (typeof APPROVAL_SCOPES)[number];

/** Every string bound here is in UTF-16 units (common/bounded-string.ts), like every other bound in Herald. */
const messageText = boundedString(MAX_MESSAGE_CHARS, MESSAGE_TOO_LARGE).min(1);
/** Workflow input: one JSON object, every field optional (docs/temporal-cli.md). */
export const conversationInputSchema = z
  .object({
    sessionId: sessionIdSchema.optional(),
    message: messageText.optional(),
    /** Client message id of `message`, so a retried start cannot run it twice. */
    messageId: boundedString(200).min(1).optional(),
    provider: z.enum(PROVIDER_NAMES).optional(),
    model: z.string().min(1).optional(),
    apiMode: z.enum(API_MODES).optional(),
    baseUrl: z.string().url().optional(),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name')
      .optional(),
    systemMessage: z.string().optional(),
    /** Earlier messages that seed a new session's transcript (ignored when the session exists). */
    history: z
      .array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() }).strict())
      .max(10_000)
      .optional(),
    maxIterations: z.number().int().min(1).max(10_000).optional(),
    /** Session-wide caps: `{ maxCostUsd?, maxTokens? }` (checked before every model call). */
    budget: z
      .object({ maxCostUsd: z.number().positive().optional(), maxTokens: z.number().int().positive().optional() })
      .strict()
      .optional(),
    toolsets: z.array(z.string().min(1)).optional(),
    fallbackProviders: z.array(fallbackProviderSchema).optional(),
    contextLength: z.number().int().min(1024).optional(),
    busyPolicy: z.enum(BUSY_POLICIES).optional(),
    approvals: z
      .object({
        mode: z.enum(APPROVAL_MODES).optional(),
        timeoutSeconds: z.number().int().positive().optional(),
        /** How long a `clarify` question waits for an answer. */
        clarifyTimeoutSeconds: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
    cwd: z.string().min(1).optional(),
    /** The tool sandbox for this conversation: `{ network }` may only narrow the worker's (docs/tool-sandbox.md). */
    sandbox: sandboxInputSchema.optional(),
    /** Run tool activities on this task queue (a worker on the host that holds the workspace). */
    toolTaskQueue: boundedString(200).min(1).optional(),
    /** Where the session was started from, e.g. `cli`, `api` (shown in `herald sessions`). */
    source: boundedString(40).min(1).optional(),
    /** Idle time before the conversation completes on its own, e.g. "30 days" or milliseconds. */
    idleTimeout: z.union([durationSchema, z.number().int().positive()]).optional(),
    /** Continue-as-new after this many turns in one run even if Temporal has not suggested it. */
    continueAsNewAfterTurns: z.number().int().min(1).optional(),
    /**
     * Set by a parent conversation that delegated a task (docs/delegation.md): the child runs its one
     * turn and ends; nobody is there to approve or answer, so approvals resolve on their own.
     */
    subagent: z
      .object({
        parentSessionId: sessionIdSchema,
        depth: z.number().int().min(1).max(10),
        autoApprove: z.boolean().default(false),
        /** A dangerous command waits for a person, answered from the parent (docs/delegation.md). */
        askPerson: z.boolean().optional(),
      })
      .strict()
      .optional(),
    /** Internal: state carried across continue-as-new. Not for callers. */
    carried: z.unknown().optional(),
  })
  .strict();

/** Signal `userMessage`: a string, or `{ text, id? }`. */
export const userMessageSchema = z.union([
  messageText,
  z.object({ text: messageText, id: boundedString(200).min(1).optional() }).strict(),
]);

/**
 * Signal or update `approve`: the user's decision on a pending dangerous command. `session` and
 * `always` cover that command (as parsed: spacing and quoting aside); `scope: "rule"` widens them to
 * every command of the same rules. `reason` (a deny's): the person's words, passed to the model
 * in the tool's result so it knows what to do instead.
 */
export const approveSchema = z
  .object({
    requestId: boundedString(300).min(1),
    decision: z.enum(APPROVAL_DECISIONS),
    scope: z.enum(APPROVAL_SCOPES).optional(),
    reason: boundedString(MAX_DENY_REASON_CHARS).min(1).optional(),
    /** Who answers (the client's identity, or `--as`): kept in the approvals audit. */
    by: boundedString(MAX_IDENTITY_CHARS).min(1).optional(),
    /** Where from (`cli`, `chat`, `web`, `api`, …). */
    via: boundedString(40).min(1).optional(),
  })
  .strict();

/** Update `compress`: manual compression, optionally focused on a topic. */
export const compressSchema = z.union([
  z.undefined(),
  z.null(),
  z.object({ focus: boundedString(500).min(1).optional() }).strict(),
]);
export type ConversationInput = z.infer<typeof conversationInputSchema>;

/**
 * Sizes the schema above does not check (so that runs started before these bounds still replay):
 * checked when a run starts, so that nothing the input carries through every continue-as-new, or
 * into a search attribute, can outgrow what Temporal accepts.
 */
export const INPUT_BOUNDS = {
  model: 200,
  baseUrl: 2_048,
  systemMessage: 32_000,
  cwd: 4_096,
  toolsets: 64,
  toolsetName: 64,
  fallbackProviders: 8,
  /** All of `history` together (characters); it seeds the session once and is not carried. */
  historyChars: 1_000_000,
  continueAsNewAfterTurns: 10_000,
  idleTimeoutMinMs: 1_000,
  idleTimeoutMaxMs: 366 * 86_400_000,
} as const;

const DURATION_UNITS: Array<[RegExp, number]> = [
  [/^(ms|milliseconds?)$/i, 1],
  [/^(s|secs?|seconds?)$/i, 1000],
  [/^(m|mins?|minutes?)$/i, 60_000],
  [/^(h|hrs?|hours?)$/i, 3_600_000],
  [/^(d|days?)$/i, 86_400_000],
  [/^(w|weeks?)$/i, 604_800_000],
];

/** Milliseconds of a duration in the format `durationSchema` accepts (or a number of ms). */
export function durationMs(d: string | number): number {
  if (typeof d === 'number') return d;
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(d.trim());
  if (!m) return Number.NaN;
  const unit = DURATION_UNITS.find(([re]) => re.test(m[2]!));
  return unit ? Number(m[1]) * unit[1] : Number.NaN;
}

/** The first size problem of an input, if any. */
export function inputBoundsIssue(input: ConversationInput): { field: string; message: string } | undefined {
  const B = INPUT_BOUNDS;
  const long = (field: string, v: string | undefined, max: number) =>
    v !== undefined && v.length > max
      ? { field, message: `too long (${v.length} characters; at most ${max})` }
      : undefined;
  const idle = input.idleTimeout === undefined ? undefined : durationMs(input.idleTimeout);
  return (
    long('model', input.model, B.model) ??
    long('baseUrl', input.baseUrl, B.baseUrl) ??
    long('systemMessage', input.systemMessage, B.systemMessage) ??
    long('cwd', input.cwd, B.cwd) ??
    (input.toolsets && input.toolsets.length > B.toolsets
      ? { field: 'toolsets', message: `at most ${B.toolsets} toolsets` }
      : undefined) ??
    input.toolsets?.map((t, i) => long(`toolsets.${i}`, t, B.toolsetName)).find(Boolean) ??
    (input.fallbackProviders && input.fallbackProviders.length > B.fallbackProviders
      ? { field: 'fallbackProviders', message: `at most ${B.fallbackProviders} fallback providers` }
      : undefined) ??
    input.fallbackProviders
      ?.map(
        (f, i) =>
          long(`fallbackProviders.${i}.model`, f.model, B.model) ??
          long(`fallbackProviders.${i}.baseUrl`, f.baseUrl, B.baseUrl),
      )
      .find(Boolean) ??
    (input.history && input.history.reduce((n, m) => n + m.content.length, 0) > B.historyChars
      ? { field: 'history', message: `more than ${B.historyChars} characters in all; seed the session with less` }
      : undefined) ??
    (input.continueAsNewAfterTurns !== undefined && input.continueAsNewAfterTurns > B.continueAsNewAfterTurns
      ? { field: 'continueAsNewAfterTurns', message: `at most ${B.continueAsNewAfterTurns}` }
      : undefined) ??
    (idle !== undefined && !(idle >= B.idleTimeoutMinMs && idle <= B.idleTimeoutMaxMs)
      ? { field: 'idleTimeout', message: 'between 1 second and 366 days' }
      : undefined)
  );
}

/**
 * What a `sendMessage` update is refused with while the conversation hands over to a new run
 * (continue-as-new): nothing was accepted; send the same message (same id) again in a moment and
 * the next run takes it. HeraldClient does so by itself.
 */
export const MOVING_RUNS = 'the conversation is moving to a new run (continue-as-new); send the message again';

/** Update `sendMessage`: `{ text, id? }`; the id makes it idempotent. */
export const sendMessageSchema = z
  .object({
    text: messageText,
    id: boundedString(200).min(1).optional(),
    /** Who sends it (the client's identity): an approval this turn asks for names its requester. */
    by: boundedString(MAX_IDENTITY_CHARS).min(1).optional(),
  })
  .strict();
export type SendMessageInput = z.infer<typeof sendMessageSchema>;

/** Signal `stop`: an optional reason. */
export const stopSchema = z.union([
  z.undefined(),
  z.null(),
  z.string(),
  z
    .object({
      reason: z.string().optional(),
      /** What the stop is: a person's (`user`, the default), a client going away, a deadline. */
      kind: z.enum(SIGNALLED_STOP_KINDS).optional(),
    })
    .strict(),
]);

/** Signal `end`: an optional reason. */
export const endSchema = z.union([
  z.undefined(),
  z.null(),
  z.string(),
  z.object({ reason: z.string().optional() }).strict(),
]);

export type ApproveInput = z.infer<typeof approveSchema>;

/** Update `answerClarify`: the user's answer to the pending `clarify` question. */
export const answerClarifySchema = z
  .object({ answer: boundedString(20_000).min(1), requestId: z.string().min(1).optional() })
  .strict();
export type AnswerClarifyInput = z.infer<typeof answerClarifySchema>;

/**
 * Update `setModel`: the conversation's own (primary) model, switched in place — the same
 * session and transcript. Without `provider`, the current provider (and its endpoint) is kept.
 * It applies at once when no turn runs, else from the next turn (the running one finishes on its
 * model). The worker must know the provider and hold its key, or the update is rejected.
 */
export const setModelSchema = z
  .object({
    model: boundedString(INPUT_BOUNDS.model).min(1),
    provider: z.enum(PROVIDER_NAMES).optional(),
    apiMode: z.enum(API_MODES).optional(),
  })
  .strict();
export type SetModelInput = z.infer<typeof setModelSchema>;

export interface SetModelResult {
  provider: string;
  model: string;
  api_mode: string;
  /** `now`: no turn was running; `next_turn`: the running turn finishes on the previous model. */
  applies: 'now' | 'next_turn';
  previous: { provider: string; model: string };
}

/**
 * Update `rewind` (docs/checkpoints.md): put the workspace (`files`) and/or the transcript
 * (`conversation`) back to before turn `toTurn`. `force` discards changes made outside Herald
 * since its latest snapshot (they are saved in the checkpoint store first).
 */
export const rewindSchema = z
  .object({
    toTurn: z.number().int().min(1),
    files: z.boolean().default(true),
    conversation: z.boolean().default(false),
    force: z.boolean().optional(),
  })
  .strict();
export type RewindInput = z.infer<typeof rewindSchema>;

/** Update `forkWorkspace`: a copy of the workspace as turn `atTurn` left it, in a new folder `cwd`. */
export const forkWorkspaceSchema = z
  .object({ atTurn: z.number().int().min(1), cwd: z.string().min(1).max(4096) })
  .strict();
export type ForkWorkspaceInput = z.infer<typeof forkWorkspaceSchema>;

export interface ForkWorkspaceResult {
  cwd: string;
  files: number;
}

export interface RewindResult {
  to_turn: number;
  /** The workspace's change (files, lines added and removed); null when files were not rewound. */
  files: { files: number; added: number; removed: number; saved_as?: string; note?: string } | null;
  /** The transcript's new session (the old one keeps the discarded turns); null when it was not rewound. */
  conversation: { previous_session_id: string; session_id: string; discarded_messages: number } | null;
  /** Why nothing (or only the files) went back. */
  refused?: string;
  /** Changes made outside Herald that a forced rewind would discard. */
  would_lose?: string[];
}

export type {
  ConversationStateView,
  ConversationStatus,
  HeraldStatus,
  PendingApproval,
  PendingClarify,
  QueuedMessageView,
  SandboxView,
  TurnExitReason,
  TurnResult,
  TurnUsage,
} from './conversation-view.js';
export { CONVERSATION_STATUSES, HERALD_STATUSES } from './conversation-view.js';

/** Describe the first problem of a failed zod parse as `field: message`. */
export function describeZodError(error: z.ZodError, root = 'input'): string {
  const issue = error.issues[0];
  if (!issue) return `${root}: invalid`;
  const path = issue.path.length ? issue.path.map(String).join('.') : root;
  const unknownKeys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
  return `${path}: ${issue.message}${unknownKeys}`;
}
