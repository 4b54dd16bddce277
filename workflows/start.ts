/**
 * How a conversation run begins and hands over (docs/temporal-cli.md): the input read and bounded, the
 * state carried from the previous run parsed tolerantly (a deploy that adds a field must not fail
 * running conversations at their next continue-as-new; one that removes a field keeps it), a
 * fresh state, the session prepared by the worker, and the input of the next run.
 */
import { ActivityFailure, ApplicationFailure, log, workflowInfo } from '@temporalio/workflow';
import type { z } from 'zod';
import { DEFAULT_MAX_ITERATIONS } from '../common/budget.js';
import { DEFAULT_COMPRESSION } from '../common/context-window.js';
import { clampCooldownMs } from '../common/provider-cooldown.js';
import { DEFAULT_APPROVAL_POLICY } from '../common/approval-policy.js';
import type { ConversationInput } from '../common/contract.js';
import { conversationInputSchema, describeZodError, inputBoundsIssue, SESSION_ID_PATTERN } from '../common/contract.js';
import { DEFAULT_DELEGATION } from '../common/delegation.js';
import { DEFAULT_LOOP_GUARD, emptyLoopGuardStats } from '../common/loop-guard.js';
import { emptyUsage } from '../common/messages.js';
import type { ProviderRef } from '../common/providers.js';
import { store } from './activities.js';
import { adoptMcp } from './mcp.js';
import { MAX_CARRIED_BYTES, clampBytes } from './limits.js';
import { jsonBytes } from '../common/text.js';
import { isUndecodable } from './payload-converter.js';
import type { ConversationState } from './state.js';
import {
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  DEFAULT_CLARIFY_TIMEOUT_SECONDS,
  adoptLeftOut,
  carriedStateSchema,
} from './state.js';

function invalidInput(message: string, details: unknown[] = []): ApplicationFailure {
  return ApplicationFailure.create({ type: 'InvalidInput', message, nonRetryable: true, details });
}

/**
 * The workflow input, validated, sizes included: a model name that would overflow a search
 * attribute, a system message that would be carried through every continue-as-new, an idle
 * timeout of zero.
 */
export function parseInput(raw: unknown): ConversationInput {
  if (isUndecodable(raw))
    throw invalidInput(`invalid conversation input: it could not be decoded (${raw.encoding}: ${raw.reason})`);
  const parsed = conversationInputSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidInput(`invalid conversation input: ${describeZodError(parsed.error)}`, [
      {
        field: issue?.path.join('.') ?? '',
        issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), message: i.message })),
      },
    ]);
  }
  const input = parsed.data;
  if (input.carried === undefined) {
    const issue = inputBoundsIssue(input);
    if (issue) throw invalidInput(`invalid conversation input: ${issue.field}: ${issue.message}`, [issue]);
  }
  return input;
}

/** The session id a run stands for: the input's, or the workflow id's; it names every child and compressed session. */
export function conversationIdOf(input: ConversationInput, fromWorkflowId: string): string {
  const id = input.sessionId ?? fromWorkflowId;
  if (!SESSION_ID_PATTERN.test(id))
    throw invalidInput(
      `invalid conversation id ${JSON.stringify(id.slice(0, 140))}: use at most 128 letters, digits, ".", "_", ":" or "-" (set sessionId in the input, or use such a workflow id)`,
    );
  return id;
}

/**
 * State carried from the previous run. Only a continued run may carry state (a caller cannot
 * hand a conversation a forged one). Fields the schema does not know are kept; a field that fails
 * its schema but has a default gets the default (and a warning) instead of failing the run.
 */
export function parseCarried(raw: unknown): ConversationState {
  if (!workflowInfo().continuedFromExecutionRunId)
    throw invalidInput('invalid conversation input: carried: internal to continue-as-new, not accepted from callers');
  const schema = carriedStateSchema.passthrough();
  let value = raw;
  let parsed = schema.safeParse(value);
  for (let attempt = 0; !parsed.success && attempt < 10; attempt++) {
    const key = parsed.error.issues[0]?.path[0];
    const field =
      typeof key === 'string' ? carriedStateSchema.shape[key as keyof typeof carriedStateSchema.shape] : undefined;
    if (!field || !acceptsUndefined(field) || typeof value !== 'object' || value === null) break;
    log.warn('carried state: a field failed its schema and was reset to its default', {
      field: key,
      error: describeZodError(parsed.error, 'carried'),
    });
    const { [key as string]: _dropped, ...rest } = value as Record<string, unknown>;
    value = rest;
    parsed = schema.safeParse(value);
  }
  if (!parsed.success) throw invalidInput(`invalid carried state: ${describeZodError(parsed.error, 'carried')}`);
  const s = parsed.data;
  // Fields added after a run was started: fill them from what it already has.
  return { ...s, primary: s.primary ?? s.provider, auxiliary: s.auxiliary ?? s.provider };
}

function acceptsUndefined(field: z.ZodTypeAny): boolean {
  return field.safeParse(undefined).success;
}

export function initialState(conversationId: string, input: ConversationInput): ConversationState {
  const placeholder: ProviderRef = {
    provider: input.provider ?? 'custom',
    model: input.model ?? '',
    apiMode: input.apiMode ?? 'chat_completions',
    baseUrl: input.baseUrl ?? '',
    apiKeyEnv: input.apiKeyEnv ?? '',
  };
  return {
    conversationId,
    sessionId: conversationId,
    nextSeq: 0,
    turn: 0,
    provider: placeholder,
    primary: placeholder,
    fallbacks: [],
    auxiliary: placeholder,
    cwd: input.cwd ?? '',
    tools: [],
    searchAttributes: false,
    maxIterations: input.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    busyPolicy: input.busyPolicy ?? 'interrupt',
    sessionUsage: emptyUsage(),
    sessionApiCalls: 0,
    queue: [],
    pendingSteer: [],
    recentResults: [],
    lastResult: null,
    lastError: null,
    titleSet: false,
    credentialIndex: {},
    budget: {
      ...(input.budget?.maxCostUsd ? { maxCostUsd: input.budget.maxCostUsd } : {}),
      ...(input.budget?.maxTokens ? { maxTokens: input.budget.maxTokens } : {}),
    },
    compression: { ...DEFAULT_COMPRESSION },
    compressions: 0,
    ineffectiveCompressions: 0,
    lastPromptTokens: 0,
    approvalMode: input.approvals?.mode ?? 'manual',
    approvalTimeoutSeconds: input.approvals?.timeoutSeconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS,
    clarifyTimeoutSeconds: input.approvals?.clarifyTimeoutSeconds ?? DEFAULT_CLARIFY_TIMEOUT_SECONDS,
    sessionApprovedRules: [],
    sessionApprovedCommands: [],
    pendingApprovals: [],
    clarify: null,
    todos: [],
    ...(input.toolTaskQueue ? { toolTaskQueue: input.toolTaskQueue } : {}),
    delegation: { ...DEFAULT_DELEGATION },
    ...(input.subagent ? { subagent: input.subagent } : {}),
    promptLeftOut: [],
    heldReports: [],
    ignoredSignals: { count: 0, lastReason: null },
    loopGuard: { ...DEFAULT_LOOP_GUARD },
    loopGuardStats: emptyLoopGuardStats(),
  };
}

/**
 * Resolve provider, workspace and tools in the worker (which knows the environment), once per
 * session. Returns the first message as the worker redacted it (what the title may show).
 */
export async function prepare(state: ConversationState, input: ConversationInput): Promise<string | undefined> {
  try {
    const r = await store.prepareConversation({
      conversationId: state.conversationId,
      sessionId: state.sessionId,
      workflowId: workflowInfo().workflowId,
      provider: {
        provider: input.provider,
        model: input.model,
        apiMode: input.apiMode,
        baseUrl: input.baseUrl,
        apiKeyEnv: input.apiKeyEnv,
        contextLength: input.contextLength,
      },
      ...(input.systemMessage !== undefined ? { systemMessage: input.systemMessage } : {}),
      ...(input.cwd !== undefined ? { cwd: input.cwd } : {}),
      ...(input.source !== undefined ? { source: input.source } : {}),
      ...(input.toolsets !== undefined ? { toolsets: input.toolsets } : {}),
      ...(input.message !== undefined ? { firstMessage: input.message } : {}),
      ...(input.history !== undefined ? { history: input.history } : {}),
      ...(input.fallbackProviders !== undefined ? { fallbackProviders: input.fallbackProviders } : {}),
      ...(input.subagent ? { parentSessionId: input.subagent.parentSessionId } : {}),
      ...(input.sandbox ? { sandbox: input.sandbox } : {}),
    });
    state.provider = r.provider;
    state.primary = r.provider;
    // Results recorded by older workers lack these fields (replay must still work).
    state.fallbacks = r.fallbacks ?? [];
    state.auxiliary = r.auxiliary ?? r.provider;
    state.cwd = r.cwd;
    state.tools = r.tools;
    state.searchAttributes = r.searchAttributes;
    if (r.searchAttributeNames) state.searchAttributeNames = r.searchAttributeNames;
    state.nextSeq = r.nextSeq;
    // A resumed conversation that had compressed goes on in its latest session, not its first.
    if (r.resume) {
      state.sessionId = r.resume.sessionId;
      state.compressions = r.resume.compressions;
    }
    // A reopened session goes on from its totals and turn number: they are written back as absolute
    // values, so starting from zero would shrink them, and turn ids would repeat.
    if (r.priorTotals) {
      state.sessionUsage = r.priorTotals.usage;
      state.sessionApiCalls = r.priorTotals.apiCalls;
      state.turn = r.priorTotals.turn;
    }
    state.maxIterations = input.maxIterations ?? r.maxIterations;
    state.busyPolicy = input.busyPolicy ?? r.busyPolicy;
    state.budget = { ...(r.budget ?? {}), ...state.budget };
    if (r.approvals) {
      state.approvalMode = input.approvals?.mode ?? r.approvals.mode;
      state.approvalTimeoutSeconds = input.approvals?.timeoutSeconds ?? r.approvals.timeoutSeconds;
      state.clarifyTimeoutSeconds = input.approvals?.clarifyTimeoutSeconds ?? r.approvals.clarifyTimeoutSeconds;
      // The worker's alone: a caller's input does not weaken who may approve or when denials end a turn.
      state.approvalPolicy = {
        maxDenialsInARow: r.approvals.maxDenialsInARow ?? DEFAULT_APPROVAL_POLICY.maxDenialsInARow,
        separateApprover: r.approvals.separateApprover ?? DEFAULT_APPROVAL_POLICY.separateApprover,
      };
    }
    if (r.compression) state.compression = r.compression;
    if (r.delegation) state.delegation = r.delegation;
    if (r.loopGuard) state.loopGuard = r.loopGuard;
    if (r.cooldownMs !== undefined) state.cooldownMs = clampCooldownMs(r.cooldownMs);
    if (r.sandbox) state.sandbox = r.sandbox;
    adoptMcp(state, r.mcp);
    adoptLeftOut(state, r.leftOut);
    return r.firstShown;
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && (cause.type === 'InvalidInput' || cause.type === 'ConfigError')) {
      throw ApplicationFailure.create({
        type: cause.type,
        message: cause.message,
        nonRetryable: true,
        details: cause.details ?? [],
      });
    }
    throw err;
  }
}

/**
 * The next run's input: the same settings, the carried state, no first message. Kept under
 * MAX_CARRIED_BYTES — by construction the queue and the rest already fit; if they do
 * not, queued texts are cut (with a note) rather than the run failing to continue.
 */
export function carryInput(input: ConversationInput, state: ConversationState): ConversationInput {
  const next: ConversationInput = { ...input, carried: state };
  delete next.message;
  delete next.messageId;
  delete next.history;
  const bytes = jsonBytes(next);
  if (bytes > MAX_CARRIED_BYTES) {
    log.error('carried state over its bound: queued messages are cut', { bytes });
    const share = Math.floor(MAX_CARRIED_BYTES / 2 / Math.max(1, state.queue.length));
    for (const m of state.queue) m.text = clampBytes(m.text, share, '\n[…cut: the conversation carried too much]');
    state.pendingSteer = [];
    state.recentResults = state.recentResults.slice(-5);
  }
  return next;
}
