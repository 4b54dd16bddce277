/**
 * One turn of the conversation (docs/architecture.md): record the user message, compress if the context is
 * over the threshold, then loop model call → tools until the model answers without tools, the
 * budget runs out, the user stops it, or a failure ends it. Every exit path returns the same
 * TurnResult and leaves a transcript in a valid message order (docs/architecture.md).
 */
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { SyntheticMessage } from '../common/activity-types.js';
import { BUDGET_FINAL_NOTE, budgetWarning } from '../common/budget.js';
import { LoopGuard, haltNote, PAUSE_NOTE, PAUSE_RETRY_NOTE, pausedHaltNote } from '../common/loop-guard.js';
import { recogniseTextToolCall, textToolCallNote } from '../common/text-tool-call.js';
import type { ConversationStatus, TurnExitReason, TurnResult } from '../common/contract.js';
import { CONTINUE_PROMPT, decideNextStep, raisedOutputCap } from '../common/model-response.js';
import type { ToolCallRef } from '../common/tool-batch.js';
import { storeStep } from './activities.js';
import { runTools } from './tool-calls.js';
import { countLate, countedForFinish } from './attempts.js';
import { compressNow, mayAutoCompress, overThreshold, windowOf } from './context.js';
import { TurnEnd, rootMessage } from './errors.js';
import type { ChildBatch } from './delegation.js';
import { snapshotAfterTurn } from './checkpoints.js';
import { breakerNote } from '../common/approval-policy.js';
import { partialProgress } from '../common/delegation.js';
import { interruptedNote } from '../common/stop-kind.js';
import type { StopKind } from '../common/stop-kind.js';
import { callModelSlot } from './model-slot.js';
import { fallbacksLeft, startTurnOnPrimary, switchToFallback } from './provider-chain.js';
import type { ConversationState, QueuedMessage } from './state.js';
import type { OpenCall, Phase } from './turn-progress.js';
import { TurnProgress } from './turn-progress.js';

export { TurnProgress };

/** The largest final response carried in a turn result; the full text is always in the transcript. */
const MAX_RESULT_TEXT = 200_000;

/** Preflight compression passes at most (while each one makes progress). */
const MAX_PREFLIGHT_PASSES = 3;

export const CANCELLED_TOOL_RESULT = (name: string) =>
  `[Tool execution cancelled — ${name} was skipped due to user interrupt]`;

/** What the conversation exposes to a running turn. */
export interface TurnHost {
  readonly state: ConversationState;
  /** Called whenever the turn's visible progress changes (state query, Web UI details). */
  onProgress(progress: TurnProgress): void;
  /** Steer text waiting for the next model call, taken (and cleared) by the turn. */
  takeSteer(): string | undefined;
  /** Children started in the background: the conversation watches them and queues their reports. */
  adoptBackground(batch: ChildBatch): void;
  /**
   * The user message is recorded: `shown` is its text as the worker redacted it, the only form of
   * it the conversation shows outside itself (title, memo, current details).
   */
  onRecorded(shown: string): void;
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
  progress.chainPos = startTurnOnPrimary(s);

  // The user message is recorded before anything else and cannot be interrupted: nothing is lost.
  const userSeq = s.nextSeq;
  const recorded = await CancellationScope.nonCancellable(() =>
    storeStep('recordUserMessage', {
      conversationId: s.conversationId,
      sessionId: s.sessionId,
      turnId: progress.turnId,
      turn: progress.turn,
      seq: userSeq,
      text: msg.text,
      messageId: msg.id,
      model: s.provider.model,
      tools: s.tools,
      ...(msg.steerParts?.length ? { steerParts: msg.steerParts } : {}),
    }),
  );
  if (recorded?.duplicate) {
    // An id this conversation answered in an earlier execution, past the results kept in state:
    // its result again, nothing recorded or run twice.
    progress.duplicate = true;
    return recorded.duplicate;
  }
  s.nextSeq = userSeq + 1;
  host.onRecorded(recorded?.shown ?? '');
  if (recorded?.searchAttributeNames) s.searchAttributeNames = recorded.searchAttributeNames;

  const guardSettings = s.loopGuard;
  // Repeated identical tool calls are nudged, refused, and a turn without progress ends (docs/loop-guard.md).
  if (guardSettings.enabled) {
    progress.loopGuard = new LoopGuard(guardSettings, s.loopGuardStats);
  }

  const scope = new CancellationScope();
  progress.scope = scope;
  if (progress.stopRequested) scope.cancel();
  try {
    await scope.run(async () => {
      // Results recorded by older workers carry no estimate (replay).
      if (recorded?.contextTokens !== undefined) await preflightCompression(host, progress, recorded.contextTokens);
      await loop(host, progress, outcome);
    });
  } catch (err) {
    recordFailure(err, progress, outcome);
  }
  progress.scope = undefined;
  progress.phase = 'finishing';
  return await CancellationScope.nonCancellable(() => finish(host, msg, progress, outcome));
}

/** Preflight (docs/long-conversations.md): over threshold at turn start → compress, up to 3 passes while it helps. */
async function preflightCompression(host: TurnHost, p: TurnProgress, tokens: number): Promise<void> {
  const s = host.state;
  let estimate = tokens;
  for (let pass = 0; pass < MAX_PREFLIGHT_PASSES && mayAutoCompress(s) && overThreshold(s, estimate); pass++) {
    const reason = estimate > windowOf(s) * s.compression.hygieneThreshold ? 'hygiene' : 'preflight';
    setStatus(host, p, 'compressing', 'api');
    const c = await compressNow(s, p, reason);
    if (!c.compressed || !c.progress) break;
    estimate = c.tokensAfter;
  }
}

async function loop(host: TurnHost, p: TurnProgress, outcome: Outcome): Promise<void> {
  const s = host.state;
  let note: string | undefined;
  // A tool-less request answered with a tool call written as text is asked once more, still tool-less.
  let repause = false;
  let pauseRetried = false;
  for (;;) {
    if (p.iteration >= s.maxIterations) {
      await budgetSummary(host, p, outcome);
      return;
    }
    p.iteration += 1;
    setStatus(host, p, 'thinking', 'api');
    const seq = s.nextSeq;
    const tailBefore = p.tailRole;
    const steer = p.lastStepWasTools && note === undefined ? host.takeSteer() : undefined;
    // The user's words may say what changed (or they changed it): no earlier call is a repeat now.
    if (steer) p.loopGuard?.changed();
    const nudges = p.loopGuard?.takeNudges();
    // The guard had to answer a repeated call itself: this request offers no tools (common/loop-guard.ts).
    const pause = (p.loopGuard?.takePause() ?? false) || repause;
    repause = false;
    const r = await callModelSlot(s, p, {
      steer,
      note:
        [budgetWarning(p.iteration, s.maxIterations), pause ? PAUSE_NOTE : nudges, note].filter(Boolean).join('\n\n') ||
        undefined,
      maxOutputTokens: p.capRaises ? raisedOutputCap(s.provider.maxOutputTokens, p.capRaises) : undefined,
      ...(pause ? { toolChoiceNone: true } : {}),
    });
    note = undefined;
    if (r.reasoning) outcome.lastReasoning = r.reasoning;

    const step = decideNextStep(
      {
        finishReason: r.finishReason,
        text: r.text,
        toolCalls: r.toolCalls,
        scratchpadUnterminated: r.scratchpadUnterminated,
      },
      p.counters,
      { lastStepWasTools: p.lastStepWasTools, fallbacksLeft: fallbacksLeft(s, p.chainPos) },
    );
    switch (step.kind) {
      case 'final': {
        // Small models answer a paused request with the call they wanted, as text: that is not an
        // answer. It is asked once more, then the turn halts.
        const attempted = pause ? recogniseTextToolCall(r.text) : undefined;
        if (attempted) {
          // The reply is overwritten at the same position, by the retry's reply or by the halt note.
          s.nextSeq = seq;
          p.tailRole = tailBefore;
          if (!pauseRetried) {
            pauseRetried = true;
            repause = true;
            note = PAUSE_RETRY_NOTE(attempted.name);
            continue;
          }
          await guardrailHalt(host, p, outcome, pausedHaltNote(attempted.name));
          return;
        }
        outcome.finalText = [...p.parts, r.text].join('');
        outcome.exit = 'text_response';
        return;
      }
      case 'tools':
        await toolStep(host, p, r.toolCalls, seq, r.text);
        if (p.approvalHalt) {
          await approvalsDeniedHalt(host, p, outcome);
          return;
        }
        if (p.loopGuard?.shouldHalt()) {
          await guardrailHalt(host, p, outcome);
          return;
        }
        await postToolCompression(host, p);
        continue;
      case 'recall':
        // Discard the reply: the next call writes over it at the same position.
        s.nextSeq = seq;
        p.tailRole = tailBefore;
        if (step.raiseOutputCap) p.capRaises += 1;
        note = step.note;
        continue;
      case 'fallback':
        s.nextSeq = seq;
        p.tailRole = tailBefore;
        p.chainPos = await switchToFallback(s, p.chainPos, step.why, p.turnId);
        continue;
      case 'continue_truncated':
        p.parts.push(r.text);
        p.capRaises += 1;
        await writeOwnMessage(s, p, 'user', CONTINUE_PROMPT);
        continue;
      case 'end_partial':
        outcome.partial = true;
        outcome.exit = r.toolCalls.length
          ? 'invalid_tool_calls'
          : r.finishReason === 'length'
            ? 'truncated'
            : 'empty_response';
        outcome.finalText = [...p.parts, r.text].join('') || null;
        outcome.error = step.message;
        // Calls the model made stay answered: synthetic results keep the transcript valid.
        if (r.toolCalls.length) openCalls(s, p, r.toolCalls);
        return;
      case 'fail':
        throw new TurnEnd('content_filtered', step.message);
    }
  }
}

/** Assign result positions to a batch of calls, in call order. */
function openCalls(s: ConversationState, p: TurnProgress, calls: ToolCallRef[]): OpenCall[] {
  p.openCalls = calls.map((call, i) => ({ call, seq: s.nextSeq + i, done: false }));
  s.nextSeq += calls.length;
  p.tailRole = 'tool';
  return p.openCalls;
}

/** A tool step: the calls opened in order, run as one batch (workflows/tool-calls.ts). */
async function toolStep(
  host: TurnHost,
  p: TurnProgress,
  calls: ToolCallRef[],
  assistantSeq: number,
  text: string,
): Promise<void> {
  p.noteStep(
    text,
    calls.map((c) => c.summary),
  );
  const open = openCalls(host.state, p, calls);
  p.currentTools = calls.map((c) => c.summary);
  setStatus(host, p, 'running_tools', 'tools');
  await runTools(host, p, open, assistantSeq);
  p.openCalls = [];
  p.currentTools = [];
  p.lastStepWasTools = true;
}

/** Post-tool (docs/long-conversations.md): the reported prompt plus the new results over the threshold → compress. */
async function postToolCompression(host: TurnHost, p: TurnProgress): Promise<void> {
  const s = host.state;
  if (!mayAutoCompress(s) || !overThreshold(s, s.lastPromptTokens)) return;
  setStatus(host, p, 'compressing', 'api');
  await compressNow(s, p, 'post_tool');
}

/** No progress (the last calls all repeats): a closing assistant note, exit `guardrail_halt`. */
async function guardrailHalt(
  host: TurnHost,
  p: TurnProgress,
  outcome: Outcome,
  text = haltNote(p.loopGuard!.settings.noProgressCalls),
): Promise<void> {
  p.loopGuard!.stats.halts += 1;
  await endWithNote(host, p, outcome, text, 'guardrail_halt', {
    kind: 'loop_guard',
    message: 'turn ended: no progress (repeated tool calls)',
    details: { ...p.loopGuard!.stats },
  });
}

/** Too many denials in a row (common/approval-policy.ts): a closing note, exit `approvals_denied`. */
async function approvalsDeniedHalt(host: TurnHost, p: TurnProgress, outcome: Outcome): Promise<void> {
  await endWithNote(host, p, outcome, breakerNote(p.denialsInARow), 'approvals_denied', {
    kind: 'approvals_denied',
    message: `turn ended: ${p.denialsInARow} approvals in a row denied or unanswered`,
  });
}

/** A turn a guard ends: its closing assistant note in the transcript, a status event, the exit reason. */
async function endWithNote(
  host: TurnHost,
  p: TurnProgress,
  outcome: Outcome,
  text: string,
  exit: TurnExitReason,
  status: { kind: string; message: string; details?: Record<string, unknown> },
): Promise<void> {
  const s = host.state;
  await writeOwnMessage(s, p, 'assistant', text);
  await storeStep('publishStatus', { conversationId: s.conversationId, turnId: p.turnId, ...status });
  outcome.finalText = text;
  outcome.exit = exit;
}

/** A message the workflow writes itself at its next position, over any leftover of a discarded call. */
async function writeOwnMessage(
  s: ConversationState,
  p: TurnProgress,
  role: 'user' | 'assistant',
  content: string,
): Promise<void> {
  await storeStep('recordMessages', {
    sessionId: s.sessionId,
    turnId: p.turnId,
    messages: [{ seq: s.nextSeq, role, content, overwrite: true }],
  });
  s.nextSeq += 1;
  p.tailRole = role;
}

/** Budget spent: one last tool-less call asks the model to summarise (docs/providers.md). */
async function budgetSummary(host: TurnHost, p: TurnProgress, outcome: Outcome): Promise<void> {
  setStatus(host, p, 'thinking', 'api');
  const r = await callModelSlot(host.state, p, {
    note: BUDGET_FINAL_NOTE,
    toolChoiceNone: true,
    steer: p.lastStepWasTools ? host.takeSteer() : undefined,
  });
  if (r.toolCalls.length) openCalls(host.state, p, r.toolCalls);
  outcome.finalText = r.text;
  // A small model writes the call it wanted as text (or calls anyway): that is not an answer.
  const attempted = recogniseTextToolCall(r.text)?.name ?? (r.text.trim() ? undefined : r.toolCalls[0]?.name);
  if (attempted) outcome.finalText = textToolCallNote(attempted);
  if (r.reasoning) outcome.lastReasoning = r.reasoning;
  outcome.exit = 'budget_exhausted';
}

/** What stopped the turn, when something did: a stop's kind, or a budget that ended it. */
function stopKindOf(outcome: Outcome, p: TurnProgress): StopKind | undefined {
  if (outcome.interrupted) return p.stopKind ?? 'user';
  if (outcome.exit === 'session_budget_exceeded' || outcome.exit === 'budget_exhausted') return 'budget';
  return undefined;
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
  if (err instanceof TurnEnd) {
    outcome.failed = !err.partial;
    outcome.partial = err.partial;
    outcome.exit = err.exit;
    outcome.error = err.message;
    return;
  }
  outcome.failed = true;
  outcome.exit = 'internal_error';
  outcome.error = err instanceof Error ? `${err.name}: ${rootMessage(err)}` : String(err);
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
        : outcome.partial
          ? `[Skipped: ${outcome.error ?? 'the turn ended'}]`
          : `[Tool ${open.call.name} failed to run: ${outcome.error ?? 'unknown error'}]`,
    });
  }
  if ((outcome.interrupted || outcome.failed || outcome.partial) && (p.tailRole !== 'assistant' || synthetic.length)) {
    const note = outcome.interrupted
      ? interruptedNote(p.stopKind)
      : `The turn ended early: ${outcome.error ?? 'unknown error'}`;
    // The position is the workflow's next one: anything there is a leftover of a discarded call.
    synthetic.push({ seq: s.nextSeq, role: 'assistant', content: note, overwrite: true });
    s.nextSeq += 1;
  }
  if (synthetic.length)
    await storeStep('recordMessages', { sessionId: s.sessionId, turnId: p.turnId, messages: synthetic });
  p.openCalls = [];

  // A child agent stopped mid-task reports what it had so far (its parent marks it as partial).
  const finalText =
    outcome.finalText ?? (outcome.interrupted && s.subagent ? partialProgress(p.lastText, p.toolsRun) : null);
  const result: TurnResult = {
    final_response:
      finalText !== null && finalText.length > MAX_RESULT_TEXT
        ? `${finalText.slice(0, MAX_RESULT_TEXT)}\n[…truncated: the full reply is in the transcript]`
        : finalText,
    last_reasoning: outcome.lastReasoning,
    messages_count: s.nextSeq,
    api_calls: p.apiCalls,
    completed: !outcome.failed && !outcome.interrupted && !outcome.partial && outcome.exit === 'text_response',
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
  const stopKind = stopKindOf(outcome, p);
  if (stopKind) result.stop_kind = stopKind;
  s.lastError = outcome.error ?? null;
  await snapshotAfterTurn(s, p);
  const closed = await storeStep('finishTurn', {
    conversationId: s.conversationId,
    sessionId: s.sessionId,
    turnId: p.turnId,
    result,
    sessionApiCalls: s.sessionApiCalls,
    ...countedForFinish(p),
  });
  return countLate(s, p, result, closed);
}

function setStatus(host: TurnHost, p: TurnProgress, status: ConversationStatus, phase: Phase): void {
  p.status = status;
  p.phase = phase;
  host.onProgress(p);
}
