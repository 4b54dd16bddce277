/**
 * One turn of the conversation (SPEC §3): record the user message, then loop model call → tools
 * until the model answers without tools, the budget runs out, the user stops it, or a failure ends
 * it. Every exit path returns the same TurnResult and leaves a transcript that obeys SPEC §13.
 */
import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { CallModelResult } from '../common/activity-types.js';
import { BUDGET_SUMMARY_NOTE, budgetWarning } from '../common/budget.js';
import type { ConversationStatus, TurnExitReason, TurnResult } from '../common/contract.js';
import type { Usage } from '../common/messages.js';
import { addUsage, emptyUsage } from '../common/messages.js';
import { providerLabel } from '../common/providers.js';
import type { SyntheticMessage } from '../common/activity-types.js';
import type { ToolCallRef } from '../common/tool-batch.js';
import { planToolBatch } from '../common/tool-batch.js';
import { modelActivities, store, toolActivities } from './activities.js';
import type { ConversationState, QueuedMessage } from './state.js';

/** The largest final response carried in a turn result; the full text is always in the transcript. */
const MAX_RESULT_TEXT = 200_000;

export const CANCELLED_TOOL_RESULT = (name: string) =>
  `[Tool execution cancelled — ${name} was skipped due to user interrupt]`;

/** What the conversation exposes to a running turn. */
export interface TurnHost {
  readonly state: ConversationState;
  /** Called whenever the turn's visible progress changes (state query, Web UI details). */
  onProgress(progress: TurnProgress): void;
  /** Steer text waiting for the next model call, taken (and cleared) by the turn. */
  takeSteer(): string | undefined;
}

type Phase = 'starting' | 'api' | 'tools' | 'finishing';

interface OpenCall {
  call: ToolCallRef;
  seq: number;
  done: boolean;
}

/** Live progress of a turn, readable by the state query while it runs. */
export class TurnProgress {
  iteration = 0;
  apiCalls = 0;
  usage: Usage = emptyUsage();
  status: ConversationStatus = 'thinking';
  phase: Phase = 'starting';
  currentTools: string[] = [];
  stopRequested = false;
  scope: CancellationScope | undefined;
  /** Role of the newest message this turn put in the transcript. */
  tailRole: 'user' | 'assistant' | 'tool' = 'user';
  openCalls: OpenCall[] = [];
  lastStepWasTools = false;

  constructor(
    readonly turnId: string,
    readonly turn: number,
    readonly messageId: string,
  ) {}

  /** `/stop`: cancel the turn's scope, or remember the request if the scope does not exist yet. */
  requestStop(): void {
    this.stopRequested = true;
    this.scope?.cancel();
  }
}

interface Outcome {
  finalText: string | null;
  lastReasoning: string | null;
  exit: TurnExitReason;
  failed: boolean;
  interrupted: boolean;
  partial: boolean;
  error?: string;
}

export async function runTurn(host: TurnHost, msg: QueuedMessage, progress: TurnProgress): Promise<TurnResult> {
  const s = host.state;
  const outcome: Outcome = {
    finalText: null,
    lastReasoning: null,
    exit: 'text_response',
    failed: false,
    interrupted: false,
    partial: false,
  };

  // The user message is recorded before anything else and cannot be interrupted: nothing is lost.
  const userSeq = s.nextSeq;
  await CancellationScope.nonCancellable(() =>
    store.recordUserMessage({
      conversationId: s.conversationId,
      sessionId: s.sessionId,
      turnId: progress.turnId,
      turn: progress.turn,
      seq: userSeq,
      text: msg.text,
      messageId: msg.id,
    }),
  );
  s.nextSeq = userSeq + 1;

  const scope = new CancellationScope();
  progress.scope = scope;
  if (progress.stopRequested) scope.cancel();
  try {
    await scope.run(() => loop(host, progress, outcome));
  } catch (err) {
    recordFailure(err, progress, outcome);
  }
  progress.scope = undefined;
  progress.phase = 'finishing';
  return await CancellationScope.nonCancellable(() => finish(host, msg, progress, outcome));
}

async function loop(host: TurnHost, p: TurnProgress, outcome: Outcome): Promise<void> {
  const s = host.state;
  for (;;) {
    if (p.iteration >= s.maxIterations) {
      await budgetSummary(host, p, outcome);
      return;
    }
    p.iteration += 1;
    setStatus(host, p, 'thinking', 'api');
    const steer = p.lastStepWasTools ? host.takeSteer() : undefined;
    const r = await callModel(host, p, { steer, note: budgetWarning(p.iteration, s.maxIterations) });
    if (r.reasoning) outcome.lastReasoning = r.reasoning;
    if (r.toolCalls.length === 0) {
      outcome.finalText = r.text;
      outcome.exit = 'text_response';
      return;
    }
    await runTools(host, p, r.toolCalls, s.nextSeq - 1);
  }
}

interface CallOptions {
  steer?: string | undefined;
  note?: string | undefined;
  toolChoiceNone?: boolean;
}

async function callModel(host: TurnHost, p: TurnProgress, opts: CallOptions): Promise<CallModelResult> {
  const s = host.state;
  const seq = s.nextSeq;
  const summary = `model call ${p.iteration}: ${providerLabel(s.provider)}`;
  const r = await modelActivities(summary).callModel({
    conversationId: s.conversationId,
    sessionId: s.sessionId,
    turnId: p.turnId,
    seq,
    iteration: p.iteration,
    maxIterations: s.maxIterations,
    provider: s.provider,
    tools: s.tools,
    ...(opts.note ? { ephemeralNote: opts.note } : {}),
    ...(opts.steer ? { steer: opts.steer } : {}),
    ...(opts.toolChoiceNone ? { toolChoiceNone: true } : {}),
  });
  s.nextSeq = seq + 1;
  p.tailRole = 'assistant';
  p.apiCalls += 1;
  p.usage = addUsage(p.usage, r.usage);
  s.sessionUsage = addUsage(s.sessionUsage, r.usage);
  s.sessionApiCalls += 1;
  return r;
}

async function runTools(host: TurnHost, p: TurnProgress, calls: ToolCallRef[], assistantSeq: number): Promise<void> {
  const s = host.state;
  p.openCalls = calls.map((call, i) => ({ call, seq: s.nextSeq + i, done: false }));
  s.nextSeq += calls.length;
  p.tailRole = 'tool';
  p.currentTools = calls.map((c) => c.summary);
  setStatus(host, p, 'running_tools', 'tools');

  const runOne = async (open: OpenCall) => {
    await toolActivities(`tool ${open.call.summary}`, open.call.timeoutSeconds).runTool({
      conversationId: s.conversationId,
      sessionId: s.sessionId,
      turnId: p.turnId,
      assistantSeq,
      resultSeq: open.seq,
      call: open.call,
      cwd: s.cwd,
    });
    open.done = true;
  };

  if (planToolBatch(calls).mode === 'parallel') {
    const settled = await Promise.allSettled(p.openCalls.map(runOne));
    const rejection = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (rejection) throw rejection.reason;
  } else {
    for (const open of p.openCalls) await runOne(open);
  }
  p.openCalls = [];
  p.currentTools = [];
  p.lastStepWasTools = true;
}

/** Budget spent: one last tool-less call asks the model to summarise (SPEC §8). */
async function budgetSummary(host: TurnHost, p: TurnProgress, outcome: Outcome): Promise<void> {
  setStatus(host, p, 'thinking', 'api');
  const r = await callModel(host, p, {
    note: BUDGET_SUMMARY_NOTE,
    toolChoiceNone: true,
    steer: p.lastStepWasTools ? host.takeSteer() : undefined,
  });
  outcome.finalText = r.text;
  if (r.reasoning) outcome.lastReasoning = r.reasoning;
  outcome.exit = 'budget_exhausted';
}

function recordFailure(err: unknown, p: TurnProgress, outcome: Outcome): void {
  if (isCancellation(err)) {
    outcome.interrupted = true;
    outcome.exit =
      p.phase === 'api'
        ? 'interrupted_during_api_call'
        : p.phase === 'tools'
          ? 'interrupted_during_tools'
          : 'interrupted_by_user';
    return;
  }
  outcome.failed = true;
  if (err instanceof ActivityFailure && err.activityType === 'callModel') {
    outcome.exit = 'model_error';
    outcome.error = describeModelFailure(err);
    return;
  }
  outcome.exit = 'internal_error';
  outcome.error = err instanceof Error ? `${err.name}: ${rootMessage(err)}` : String(err);
}

function describeModelFailure(err: ActivityFailure): string {
  const cause = err.cause;
  if (cause instanceof ApplicationFailure) return `model call failed (${cause.type ?? 'unknown'}): ${cause.message}`;
  return `model call failed: ${rootMessage(err)}`;
}

function rootMessage(err: Error): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/** Close the transcript (synthetic results, a closing note) and publish the turn's result. */
async function finish(host: TurnHost, msg: QueuedMessage, p: TurnProgress, outcome: Outcome): Promise<TurnResult> {
  const s = host.state;
  const synthetic: SyntheticMessage[] = [];
  for (const open of p.openCalls) {
    if (open.done) continue;
    synthetic.push({
      seq: open.seq,
      role: 'tool',
      toolCallId: open.call.id,
      toolName: open.call.name,
      content: outcome.interrupted
        ? CANCELLED_TOOL_RESULT(open.call.name)
        : `[Tool ${open.call.name} failed to run: ${outcome.error ?? 'unknown error'}]`,
    });
  }
  if ((outcome.interrupted || outcome.failed) && p.tailRole !== 'assistant') {
    const note = outcome.interrupted
      ? 'Operation interrupted.'
      : `The turn failed: ${outcome.error ?? 'unknown error'}`;
    synthetic.push({ seq: s.nextSeq, role: 'assistant', content: note });
    s.nextSeq += 1;
  }
  if (synthetic.length) await store.recordMessages({ sessionId: s.sessionId, turnId: p.turnId, messages: synthetic });
  p.openCalls = [];

  const finalText = outcome.finalText;
  const result: TurnResult = {
    final_response:
      finalText !== null && finalText.length > MAX_RESULT_TEXT
        ? `${finalText.slice(0, MAX_RESULT_TEXT)}\n[…truncated: the full reply is in the transcript]`
        : finalText,
    last_reasoning: outcome.lastReasoning,
    messages_count: s.nextSeq,
    api_calls: p.apiCalls,
    completed: !outcome.failed && !outcome.interrupted && outcome.exit === 'text_response',
    interrupted: outcome.interrupted,
    failed: outcome.failed,
    partial: outcome.partial,
    turn_exit_reason: outcome.exit,
    model: s.provider.model,
    provider: s.provider.provider,
    usage: { turn: p.usage, session: s.sessionUsage },
    estimated_cost_usd: s.sessionUsage.cost_usd,
    session_id: s.sessionId,
    turn: p.turn,
    message_id: msg.id,
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
  };
  s.lastError = outcome.error ?? null;
  await store.finishTurn({
    conversationId: s.conversationId,
    sessionId: s.sessionId,
    turnId: p.turnId,
    result,
    sessionApiCalls: s.sessionApiCalls,
  });
  return result;
}

function setStatus(host: TurnHost, p: TurnProgress, status: ConversationStatus, phase: Phase): void {
  p.status = status;
  p.phase = phase;
  host.onProgress(p);
}
