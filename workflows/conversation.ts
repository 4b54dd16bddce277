/**
 * The conversation workflow (SPEC §2): one per session, alive between turns. It owns the order of
 * the transcript and the turn queue; turns never run concurrently. Messages arrive as signals and
 * updates, `/stop` cancels only the running turn, and the workflow continues-as-new between turns
 * when its history grows, carrying its small state.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { defineSearchAttributeKey } from '@temporalio/common';
import { DEFAULT_MAX_ITERATIONS } from '../common/budget.js';
import { DEFAULT_COMPRESSION } from '../common/context-window.js';
import { BACKGROUND_REPORTS_PREFIX, DEFAULT_DELEGATION } from '../common/delegation.js';
import { compressNow } from './context.js';
import type { CompressResult } from './definitions.js';
import { SEARCH_ATTRIBUTES, sessionIdFromWorkflowId } from '../common/constants.js';
import type { ConversationInput, TurnResult } from '../common/contract.js';
import {
  answerClarifySchema,
  approveSchema,
  compressSchema,
  conversationInputSchema,
  describeZodError,
  endSchema,
  sendMessageSchema,
  stopSchema,
  userMessageSchema,
} from '../common/contract.js';
import { emptyUsage } from '../common/messages.js';
import type { ProviderRef } from '../common/providers.js';
import { store } from './activities.js';
import {
  answerClarifyUpdate,
  approveSignal,
  approveUpdate,
  compressUpdate,
  endSignal,
  sendMessageUpdate,
  stateQuery,
  steerSignal,
  stopSignal,
  userMessageSignal,
} from './definitions.js';
import type { ConversationState, QueuedMessage } from './state.js';
import {
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  DEFAULT_CLARIFY_TIMEOUT_SECONDS,
  carriedStateSchema,
  findResult,
  preview,
  rememberResult,
  stateView,
} from './state.js';
import { TurnProgress, runTurn } from './turn.js';
import type { ChildBatch } from './delegation.js';
import { collectReports, stopChildren, waitForBatch } from './delegation.js';

const DEFAULT_IDLE_TIMEOUT = '30 days';
const DEFAULT_CAN_AFTER_TURNS = 200;

const SA = {
  sessionId: defineSearchAttributeKey(SEARCH_ATTRIBUTES.sessionId, 'KEYWORD'),
  model: defineSearchAttributeKey(SEARCH_ATTRIBUTES.model, 'KEYWORD'),
  provider: defineSearchAttributeKey(SEARCH_ATTRIBUTES.provider, 'KEYWORD'),
  status: defineSearchAttributeKey(SEARCH_ATTRIBUTES.status, 'KEYWORD'),
};

export async function conversation(rawInput?: unknown): Promise<TurnResult | null> {
  const input = parseInput(rawInput);
  const conversationId = input.sessionId ?? sessionIdFromWorkflowId(workflowInfo().workflowId);
  const carried = input.carried === undefined ? undefined : parseCarried(input.carried);
  const state: ConversationState = carried ?? initialState(conversationId, input);
  const canAfterTurns = input.continueAsNewAfterTurns ?? DEFAULT_CAN_AFTER_TURNS;

  let current: TurnProgress | undefined;
  let compressing = false;
  /** Full results for callers waiting in `sendMessage`, handed over once (not carried). */
  const delivered = new Map<string, TurnResult>();
  let ended = false;
  let endReason = 'ended';
  let runTurns = 0;
  let childResult: TurnResult | null = null;

  const refreshDetails = () => setCurrentDetails(describe(state, current, ended, backgroundSessions()));

  /** Background delegations still running (`delegation.mode: background`); none may be running at continue-as-new. */
  const background: ChildBatch[] = [];
  const backgroundSessions = () => background.flatMap((b) => b.children.map((c) => c.sessionId));
  /** Reports of background children the user stopped: they wait for the user's next message. */
  const heldReports: QueuedMessage[] = [];

  const enqueue = (msg: QueuedMessage) => {
    state.queue.push(...heldReports.splice(0));
    state.queue.push(msg);
    if (current && state.busyPolicy === 'interrupt') current.requestStop();
    refreshDetails();
  };

  /** Wait for a background batch, then queue its reports as the next message (a new turn). */
  const watchBackground = async (batch: ChildBatch) => {
    try {
      await waitForBatch(state, batch);
      const { content } = await collectReports(state, batch);
      const msg: QueuedMessage = {
        id: `${state.conversationId}:delegation:${batch.id}`,
        text: `${BACKGROUND_REPORTS_PREFIX}\n${content}`,
        awaited: false,
      };
      if (batch.ending === 'stopped') heldReports.push(msg);
      else state.queue.push(msg);
    } catch (err) {
      log.error('background delegation failed', { error: err instanceof Error ? err.message : String(err) });
    } finally {
      const at = background.indexOf(batch);
      if (at >= 0) background.splice(at, 1);
      refreshDetails();
    }
  };
  const stopBackground = () => {
    for (const batch of background) {
      if (batch.ending) continue;
      batch.ending = 'stopped';
      void stopChildren(batch);
    }
  };

  setHandler(userMessageSignal, (payload: unknown) => {
    const parsed = userMessageSchema.safeParse(payload);
    if (!parsed.success) {
      log.warn('ignored malformed userMessage signal', { error: describeZodError(parsed.error, 'userMessage') });
      return;
    }
    if (ended) {
      log.warn('ignored userMessage: the conversation has ended');
      return;
    }
    const text = typeof parsed.data === 'string' ? parsed.data : parsed.data.text;
    const id = typeof parsed.data === 'string' ? uuid4() : (parsed.data.id ?? uuid4());
    if (isKnownMessage(state, current, id)) return;
    if (current && state.busyPolicy === 'steer') {
      state.pendingSteer.push(text);
      return;
    }
    enqueue({ id, text, awaited: false });
  });

  setHandler(steerSignal, (payload: unknown) => {
    const parsed = userMessageSchema.safeParse(payload);
    if (!parsed.success || ended) {
      log.warn('ignored steer signal', { reason: ended ? 'ended' : describeZodError(parsed.error!, 'steer') });
      return;
    }
    const text = typeof parsed.data === 'string' ? parsed.data : parsed.data.text;
    if (current) state.pendingSteer.push(text);
    else enqueue({ id: uuid4(), text, awaited: false });
  });

  setHandler(stopSignal, (payload?: unknown) => {
    if (!stopSchema.safeParse(payload).success) log.warn('stop signal payload ignored (expected a reason string)');
    stopBackground();
    if (current) current.requestStop();
    else if (state.subagent && !ended) {
      // A child agent stopped before its task began: it ends without running it.
      ended = true;
      endReason = 'stopped by the delegating agent';
      refreshDetails();
    } else log.info('stop signal while idle: nothing to interrupt');
  });

  setHandler(endSignal, (payload?: unknown) => {
    const parsed = endSchema.safeParse(payload);
    const reason =
      parsed.success && parsed.data ? (typeof parsed.data === 'string' ? parsed.data : parsed.data.reason) : undefined;
    ended = true;
    endReason = reason ?? 'ended by user';
    refreshDetails();
  });

  setHandler(
    sendMessageUpdate,
    async (msg) => {
      const id = msg.id ?? uuid4();
      const earlier = findResult(state, id);
      if (earlier) return earlier;
      const queued = state.queue.find((m) => m.id === id);
      if (queued) queued.awaited = true;
      else if (!isKnownMessage(state, current, id)) enqueue({ id, text: msg.text, awaited: true });
      await condition(() => delivered.has(id) || findResult(state, id) !== undefined);
      const full = delivered.get(id);
      delivered.delete(id);
      return full ?? findResult(state, id)!;
    },
    {
      validator: (msg) => {
        const parsed = sendMessageSchema.safeParse(msg);
        if (!parsed.success) throw new Error(`invalid sendMessage: ${describeZodError(parsed.error, 'sendMessage')}`);
        if (ended) throw new Error('the conversation has ended; start a new session');
      },
    },
  );

  const findApproval = (id: string) => state.pendingApprovals.find((a) => a.requestId === id && !a.decision);
  setHandler(approveSignal, (payload: unknown) => {
    const parsed = approveSchema.safeParse(payload);
    if (!parsed.success) {
      log.warn('ignored malformed approve signal', { error: describeZodError(parsed.error, 'approve') });
      return;
    }
    const req = findApproval(parsed.data.requestId);
    if (!req) log.warn('approve signal for no pending request', { requestId: parsed.data.requestId });
    else {
      req.decision = parsed.data.decision;
      if (parsed.data.scope) req.scope = parsed.data.scope;
    }
  });
  setHandler(
    approveUpdate,
    (input) => {
      const req = findApproval(input.requestId)!;
      req.decision = input.decision;
      if (input.scope) req.scope = input.scope;
      return { requestId: input.requestId, decision: input.decision, scope: input.scope ?? 'command' };
    },
    {
      validator: (input) => {
        const parsed = approveSchema.safeParse(input);
        if (!parsed.success) throw new Error(`invalid approve: ${describeZodError(parsed.error, 'approve')}`);
        if (!findApproval(parsed.data.requestId)) {
          const pending = state.pendingApprovals.filter((a) => !a.decision).map((a) => a.requestId);
          throw new Error(
            `no pending approval ${parsed.data.requestId}${pending.length ? ` (pending: ${pending.join(', ')})` : ''}`,
          );
        }
      },
    },
  );
  setHandler(
    answerClarifyUpdate,
    (input) => {
      const req = state.clarify!;
      req.answer = input.answer;
      return { requestId: req.requestId };
    },
    {
      validator: (input) => {
        const parsed = answerClarifySchema.safeParse(input);
        if (!parsed.success)
          throw new Error(`invalid answerClarify: ${describeZodError(parsed.error, 'answerClarify')}`);
        const req = state.clarify;
        if (!req || req.answer !== undefined) throw new Error('no clarify question is waiting for an answer');
        if (parsed.data.requestId && parsed.data.requestId !== req.requestId)
          throw new Error(`the pending question is ${req.requestId}, not ${parsed.data.requestId}`);
      },
    },
  );

  // Manual compression (`/compress [focus]`) runs between turns, never inside one.
  const compressions: Array<{ id: string; focus: string | undefined }> = [];
  const compressResults = new Map<string, CompressResult>();
  let manualCount = 0;
  const runManualCompression = async (req: { id: string; focus: string | undefined }) => {
    manualCount += 1;
    compressing = true;
    refreshDetails();
    try {
      const c = await compressNow(
        state,
        `${state.conversationId}:compress:${state.turn}.${manualCount}`,
        'manual',
        req.focus,
      );
      compressResults.set(req.id, {
        compressed: c.compressed,
        session_id: state.sessionId,
        tokens_before: c.tokensBefore,
        tokens_after: c.tokensAfter,
        message: c.compressed
          ? `compressed ${c.tokensBefore} → ${c.tokensAfter} tokens; the conversation continues in session ${state.sessionId}`
          : 'nothing to compress yet',
      });
    } catch (err) {
      compressResults.set(req.id, {
        compressed: false,
        session_id: state.sessionId,
        tokens_before: 0,
        tokens_after: 0,
        message: `compression failed: ${err instanceof Error ? err.message : String(err)}`,
      });
    } finally {
      compressing = false;
      refreshDetails();
    }
  };
  setHandler(
    compressUpdate,
    async (input) => {
      const id = uuid4();
      const parsed = compressSchema.safeParse(input);
      compressions.push({ id, focus: parsed.success ? (parsed.data?.focus ?? undefined) : undefined });
      await condition(() => compressResults.has(id));
      const r = compressResults.get(id)!;
      compressResults.delete(id);
      return r;
    },
    {
      validator: (input) => {
        const parsed = compressSchema.safeParse(input);
        if (!parsed.success) throw new Error(`invalid compress: ${describeZodError(parsed.error, 'compress')}`);
        if (ended) throw new Error('the conversation has ended');
      },
    },
  );

  setHandler(stateQuery, () =>
    stateView(
      state,
      current
        ? {
            iteration: current.iteration,
            status: current.status,
            currentTools: current.currentTools,
            children: current.children,
          }
        : compressing
          ? { iteration: 0, status: 'compressing', currentTools: [], children: [] }
          : undefined,
      runTurns,
      ended,
      backgroundSessions(),
    ),
  );

  if (!carried) await prepare(state, input);
  if (state.searchAttributes) upsertAttributes(state, 'idle');
  if (input.message && !carried)
    enqueue({ id: input.messageId ?? `${conversationId}:first`, text: input.message, awaited: false });
  refreshDetails();

  const idleTimeout = input.idleTimeout ?? DEFAULT_IDLE_TIMEOUT;
  // Children are tied to this run (they would be terminated with it): no continue-as-new while any runs.
  const canDue = () => (workflowInfo().continueAsNewSuggested || runTurns >= canAfterTurns) && background.length === 0;

  for (;;) {
    const woke = await condition(
      () => state.queue.length > 0 || compressions.length > 0 || ended || canDue(),
      idleTimeout,
    );
    if (!woke) {
      endReason = 'idle timeout';
      break;
    }
    if (ended) break;
    const manual = compressions.shift();
    if (manual) {
      await runManualCompression(manual);
      continue;
    }
    if (state.queue.length === 0 || (canDue() && state.queue.every((m) => !m.awaited))) {
      // Continue-as-new only once no update is in flight: updates cannot follow a run.
      await condition(
        () => allHandlersFinished() || ended || state.queue.some((m) => m.awaited) || compressions.length > 0,
      );
      if (ended || compressions.length > 0) continue;
      if (allHandlersFinished() && !state.queue.some((m) => m.awaited)) {
        await continueAsNew<typeof conversation>(carryInput(input, state));
      }
      if (state.queue.length === 0) continue;
    }
    const msg = state.queue.shift()!;
    if (!state.titleSet) {
      upsertMemo({ title: preview(msg.text, 120) });
      state.titleSet = true;
    }
    state.turn += 1;
    current = new TurnProgress(`${state.conversationId}:${state.turn}`, state.turn, msg.id);
    if (state.searchAttributes) upsertAttributes(state, 'running');
    const host = {
      state,
      onProgress: () => refreshDetails(),
      adoptBackground: (batch: ChildBatch) => {
        background.push(batch);
        // Outside the turn's scope: stopping or ending the turn that dispatched them must not end the watch.
        void CancellationScope.nonCancellable(() => watchBackground(batch));
      },
      takeSteer: () => {
        const text = state.pendingSteer.join('\n');
        state.pendingSteer = [];
        return text || undefined;
      },
    };
    refreshDetails();
    const result = await runTurn(host, msg, current);
    current = undefined;
    runTurns += 1;
    rememberResult(state, msg.id, result);
    // The waiting caller gets the full result; the remembered copy is compacted.
    if (msg.awaited) delivered.set(msg.id, result);
    if (state.pendingSteer.length) {
      // Steer that found no model call becomes the next user message (SPEC §6.3).
      state.queue.unshift({ id: `${msg.id}:steer`, text: state.pendingSteer.join('\n'), awaited: false });
      state.pendingSteer = [];
    }
    if (state.searchAttributes) upsertAttributes(state, 'idle');
    if (state.subagent) {
      // A child agent runs its one task; its result (in full) goes back to the parent.
      childResult = result;
      ended = true;
      endReason = 'delegated task finished';
    }
    refreshDetails();
  }

  // Background children are stopped, not abandoned: each ends its turn and keeps its transcript.
  stopBackground();
  await condition(() => background.length === 0);
  // Messages that never ran still get an answer: the conversation is over.
  for (const msg of state.queue.splice(0)) rememberResult(state, msg.id, endedResult(state, msg.id));
  await condition(allHandlersFinished);
  await store.endConversation({ conversationId: state.conversationId, sessionId: state.sessionId, reason: endReason });
  ended = true;
  if (state.searchAttributes) upsertAttributes(state, 'ended');
  refreshDetails();
  return state.subagent ? childResult : state.lastResult;
}

function parseInput(raw: unknown): ConversationInput {
  const parsed = conversationInputSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw ApplicationFailure.create({
      type: 'InvalidInput',
      message: `invalid conversation input: ${describeZodError(parsed.error)}`,
      nonRetryable: true,
      details: [
        {
          field: issue?.path.join('.') ?? '',
          issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), message: i.message })),
        },
      ],
    });
  }
  return parsed.data;
}

function parseCarried(raw: unknown): ConversationState {
  const parsed = carriedStateSchema.safeParse(raw);
  if (!parsed.success) {
    throw ApplicationFailure.create({
      type: 'InvalidInput',
      message: `invalid carried state: ${describeZodError(parsed.error, 'carried')}`,
      nonRetryable: true,
    });
  }
  const s = parsed.data;
  // Fields added after a run was started: fill them from what it already has.
  return { ...s, primary: s.primary ?? s.provider, auxiliary: s.auxiliary ?? s.provider } as ConversationState;
}

function initialState(conversationId: string, input: ConversationInput): ConversationState {
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
    primaryCooldownUntil: 0,
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
    pendingApprovals: [],
    clarify: null,
    todos: [],
    ...(input.toolTaskQueue ? { toolTaskQueue: input.toolTaskQueue } : {}),
    delegation: { ...DEFAULT_DELEGATION },
    ...(input.subagent ? { subagent: input.subagent } : {}),
  };
}

/** Resolve provider, workspace and tools in the worker (which knows the environment), once per session. */
async function prepare(state: ConversationState, input: ConversationInput): Promise<void> {
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
    state.nextSeq = r.nextSeq;
    state.maxIterations = input.maxIterations ?? r.maxIterations;
    state.busyPolicy = input.busyPolicy ?? r.busyPolicy;
    state.budget = { ...(r.budget ?? {}), ...state.budget };
    if (r.approvals) {
      state.approvalMode = input.approvals?.mode ?? r.approvals.mode;
      state.approvalTimeoutSeconds = input.approvals?.timeoutSeconds ?? r.approvals.timeoutSeconds;
      state.clarifyTimeoutSeconds = input.approvals?.clarifyTimeoutSeconds ?? r.approvals.clarifyTimeoutSeconds;
    }
    if (r.compression) state.compression = r.compression;
    if (r.delegation) state.delegation = r.delegation;
    if (r.sandbox) state.sandbox = r.sandbox;
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

function carryInput(input: ConversationInput, state: ConversationState): ConversationInput {
  const next: ConversationInput = { ...input, carried: state };
  delete next.message;
  delete next.messageId;
  delete next.history;
  return next;
}

function isKnownMessage(state: ConversationState, current: TurnProgress | undefined, id: string): boolean {
  return (
    state.queue.some((m) => m.id === id) ||
    findResult(state, id) !== undefined ||
    (current !== undefined && current.messageId === id)
  );
}

function upsertAttributes(state: ConversationState, status: string): void {
  upsertSearchAttributes([
    { key: SA.sessionId, value: state.conversationId },
    { key: SA.model, value: state.provider.model },
    { key: SA.provider, value: state.provider.provider },
    { key: SA.status, value: status },
  ]);
}

function endedResult(state: ConversationState, messageId: string): TurnResult {
  return {
    final_response: null,
    last_reasoning: null,
    messages_count: state.nextSeq,
    api_calls: 0,
    completed: false,
    interrupted: false,
    failed: true,
    partial: false,
    turn_exit_reason: 'conversation_ended',
    model: state.provider.model,
    provider: state.provider.provider,
    usage: { turn: emptyUsage(), session: state.sessionUsage },
    estimated_cost_usd: state.sessionUsage.cost_usd,
    session_id: state.sessionId,
    turn: state.turn,
    message_id: messageId,
    error: 'the conversation ended before this message ran',
  };
}

/** Markdown shown as the workflow's current details in the Web UI. */
function describe(
  state: ConversationState,
  current: TurnProgress | undefined,
  ended: boolean,
  backgroundSessions: string[],
): string {
  const status = ended ? 'ended' : (current?.status ?? 'idle');
  const lines = [
    `**Status:** ${status} · **Session:** \`${state.sessionId}\` · **Turn:** ${state.turn}`,
    `**Model:** ${state.provider.model || '(resolving)'} via ${state.provider.provider}`,
  ];
  if (current) lines.push(`**Iteration:** ${current.iteration} of ${state.maxIterations}`);
  if (current?.currentTools.length) lines.push(`**Running:** ${current.currentTools.join(', ')}`);
  if (current?.children.length)
    lines.push(`**Child agents:** ${current.children.map((id) => `\`session-${id}\``).join(', ')}`);
  if (backgroundSessions.length)
    lines.push(`**Child agents in the background:** ${backgroundSessions.map((id) => `\`session-${id}\``).join(', ')}`);
  if (state.subagent) lines.push(`**Delegated by:** \`session-${state.subagent.parentSessionId}\``);
  if (state.sandbox && !state.sandbox.active)
    lines.push(
      `**⚠ No sandbox:** tool commands run with the worker's own access (${state.sandbox.warning ?? 'unavailable'})`,
    );
  for (const a of state.pendingApprovals.filter((x) => !x.decision)) {
    lines.push(
      `**Approval needed** (\`${a.requestId}\`, ${a.reason}): \`${preview(a.command, 200)}\` — ` +
        `\`herald approve ${state.conversationId} ${a.requestId} once|session|always|deny [--rule]\``,
    );
  }
  if (state.clarify && state.clarify.answer === undefined) {
    lines.push(
      `**Question for the user:** ${preview(state.clarify.question, 300)} — \`herald answer ${state.conversationId} "…"\``,
    );
  }
  if (state.queue.length) lines.push(`**Queued:** ${state.queue.length} message(s)`);
  const last = state.lastResult;
  if (last?.final_response) lines.push(`**Last reply:** ${preview(last.final_response, 300)}`);
  if (state.lastError) lines.push(`**Last error:** ${preview(state.lastError, 300)}`);
  lines.push(`**Usage:** ${state.sessionUsage.total_tokens} tokens, $${state.sessionUsage.cost_usd.toFixed(4)}`);
  return lines.join('\n\n');
}
