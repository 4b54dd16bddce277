/**
 * The conversation workflow (docs/temporal-cli.md): one per session, alive between turns. It owns the order of
 * the transcript and the turn queue; turns never run concurrently. Messages arrive as signals and
 * updates (workflows/handlers.ts), `/stop` cancels only the running turn, and the workflow
 * continues-as-new between turns when its history grows, carrying its small, bounded state.
 *
 * Every input and aggregate is bounded (limits.ts), continue-as-new happens at a history threshold
 * whatever the traffic, a turn stops when history nears Temporal's limits, and the start message
 * is de-duplicated and goes first.
 */
import {
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  makeContinueAsNewFunc,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { sessionIdFromWorkflowId } from '../common/constants.js';
import type { TurnResult } from '../common/contract.js';
import { BACKGROUND_REPORTS_PREFIX } from '../common/delegation.js';
import { emptyUsage } from '../common/messages.js';
import { closing } from './activities.js';
import { compressNow } from './context.js';
import type { ChildBatch } from './delegation.js';
import { collectReports, waitForBatch } from './delegation.js';
import { endedResult, titleOf } from './details.js';
import { rootMessage } from './errors.js';
import { registerHandlers } from './handlers.js';
import { timerLabel } from './labels.js';
import type { ManualCompression } from './run.js';
import { Run } from './run.js';
import { carryInput, conversationIdOf, initialState, parseCarried, parseInput, prepare } from './start.js';
import type { ConversationState, QueuedMessage } from './state.js';
import { preview, rememberResult } from './state.js';
import { TurnProgress, runTurn } from './turn.js';
import { refreshIfStale } from './mcp.js';

const DEFAULT_IDLE_TIMEOUT = '30 days';
const DEFAULT_CAN_AFTER_TURNS = 200;

export async function conversation(rawInput?: unknown): Promise<TurnResult | null> {
  const input = parseInput(rawInput);
  const conversationId = conversationIdOf(input, sessionIdFromWorkflowId(workflowInfo().workflowId));
  const carried = input.carried === undefined ? undefined : parseCarried(input.carried);
  const state: ConversationState = carried ?? initialState(conversationId, input);
  const run = new Run(state, input.continueAsNewAfterTurns ?? DEFAULT_CAN_AFTER_TURNS);
  registerHandlers(run);

  try {
    await live(run, input, carried !== undefined);
  } catch (err) {
    // `temporal workflow cancel`: the session row is closed all the same, then the run ends cancelled.
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => close(run, 'cancelled'));
      throw err;
    }
    throw err;
  }
  return state.subagent ? run.childResult : state.lastResult;
}

async function live(run: Run, input: ReturnType<typeof parseInput>, carried: boolean): Promise<void> {
  const { state } = run;
  if (!carried) {
    const shown = await prepare(state, input);
    if (input.message !== undefined) run.firstShown = { text: input.message, shown };
  }
  if (input.message && !carried) {
    // The start message came first, whatever signals arrived with the start; and it runs once.
    const id = input.messageId ?? `${state.conversationId}:first:${workflowInfo().firstExecutionRunId}`;
    // A signal with the same id that arrived with the start is this message: it moves to the front.
    const early = state.queue.findIndex((m) => m.id === id);
    if (early >= 0) state.queue.unshift(...state.queue.splice(early, 1));
    else if (!run.isKnownMessage(id)) state.queue.unshift({ id, text: input.message, awaited: false });
  }
  run.refreshDetails();

  const idleTimeout = input.idleTimeout ?? DEFAULT_IDLE_TIMEOUT;
  for (;;) {
    const woke = await condition(
      () => state.queue.length > 0 || run.compressions.length > 0 || run.ended || run.moveDue,
      idleTimeout,
      { summary: timerLabel('idle until end', idleTimeout) },
    );
    if (!woke) {
      // Whatever arrived with the timer still runs; otherwise nothing is accepted from now on.
      if (state.queue.length > 0 || run.compressions.length > 0) continue;
      run.endReason = 'idle timeout';
      run.ended = true;
      break;
    }
    if (run.ended) break;
    const manual = run.compressions.shift();
    if (manual) {
      await runManualCompression(run, manual);
      run.checkDue();
      continue;
    }
    // Decided in this task, which the history records (Run.checkDue): a replay decides the same.
    // While due, validators keep refusing new work (Run.draining) until the run has moved.
    const due = run.canDue();
    run.moveDue = due;
    if (state.queue.length === 0 && !due) continue;
    if (state.queue.length === 0 || (due && state.queue.every((m) => !m.awaited))) {
      // Continue-as-new only once no update is in flight: updates cannot follow a run.
      await condition(
        () => allHandlersFinished() || run.ended || state.queue.some((m) => m.awaited) || run.compressions.length > 0,
      );
      if (run.ended || run.compressions.length > 0) continue;
      if (allHandlersFinished() && !state.queue.some((m) => m.awaited)) {
        const next = carryInput(input, state);
        // Moving to a newly current build: the next run's first task goes to it (and it pins there).
        if (run.upgradeDue())
          await makeContinueAsNewFunc<typeof conversation>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(next);
        await continueAsNew<typeof conversation>(next);
      }
      if (state.queue.length === 0) continue;
    }
    // A rewind in progress finishes first: the next turn sees the workspace and transcript it left.
    if (run.rewinding) await condition(() => !run.rewinding);
    await takeTurn(run, state.queue.shift()!);
    run.checkDue();
  }
  await close(run, run.endReason);
}

async function takeTurn(run: Run, msg: QueuedMessage): Promise<void> {
  const { state } = run;
  let titleFromRecord = false;
  if (!state.titleSet) {
    // Only text the worker redacted leaves the conversation: the start message as prepare returned
    // it; another first message once it is recorded (HeraldTitle and the details; the memo, set
    // here once, then names the session).
    const first = run.firstShown;
    const shown = first && first.text === msg.text ? first.shown : undefined;
    upsertMemo({ title: shown !== undefined ? preview(shown, 120) : `Herald session ${state.sessionId}` });
    state.titleSet = true;
    if (shown !== undefined) state.title = titleOf(shown);
    else titleFromRecord = true;
  }
  state.turn += 1;
  const current = new TurnProgress(`${state.conversationId}:${state.turn}`, state.turn, msg.id);
  current.requestedBy = msg.by;
  run.current = current;
  const host = {
    state,
    onProgress: () => {
      run.refreshDetails();
      run.stopIfHistoryTooLarge();
    },
    adoptBackground: (batch: ChildBatch) => {
      run.background.push(batch);
      // Outside the turn's scope: stopping or ending the turn that dispatched them must not end the watch.
      void CancellationScope.nonCancellable(() => watchBackground(run, batch));
    },
    onRecorded: (shown: string) => {
      // Shown from the next refresh on (no refresh here: it would add an upsert to the history).
      current.messageText = shown;
      if (titleFromRecord) state.title = titleOf(shown);
    },
    takeSteer: () => {
      const text = state.pendingSteer.join('\n');
      state.pendingSteer = [];
      return text || undefined;
    },
  };
  run.refreshDetails();
  let result: TurnResult;
  try {
    // A server said its tool list changed: this turn gets the new list (workflows/mcp.ts).
    await refreshIfStale(state);
    result = await runTurn(host, msg, current);
  } catch (err) {
    // A store activity out of retries fails this turn, not the conversation.
    if (isCancellation(err)) throw err;
    result = failedTurn(state, msg, current, rootMessage(err));
  }
  run.current = undefined;
  // A repeated message id answered from the store took no turn: its number goes to the next message.
  if (current.duplicate) state.turn -= 1;
  else run.runTurns += 1;
  rememberResult(state, msg.id, result);
  // A message that steered this turn is answered by it, under its own id.
  for (const id of current.steeredIds) rememberResult(state, id, { ...result, message_id: id });
  // The waiting caller gets the full result; the remembered copy is compacted.
  if (msg.awaited) run.delivered.set(msg.id, result);
  if (state.pendingSteer.length) {
    // Steer that found no model call becomes the next user message (docs/human-control.md).
    state.queue.unshift({
      id: `${msg.id}:steer`,
      text: state.pendingSteer.join('\n'),
      awaited: false,
      steerParts: [...state.pendingSteer],
    });
    state.pendingSteer = [];
  }
  if (state.subagent) {
    // A child agent runs its one task; its result (in full) goes back to the parent.
    run.childResult = result;
    run.ended = true;
    run.endReason = 'delegated task finished';
  }
  run.refreshDetails();
}

async function runManualCompression(run: Run, req: ManualCompression): Promise<void> {
  const { state } = run;
  run.manualCount += 1;
  run.compressing = true;
  run.refreshDetails();
  const answer = (compressed: boolean, before: number, after: number, message: string) =>
    run.compressResults.set(req.id, {
      compressed,
      session_id: state.sessionId,
      tokens_before: before,
      tokens_after: after,
      message,
    });
  try {
    const compress = () =>
      compressNow(state, `${state.conversationId}:compress:${state.turn}.${run.manualCount}`, 'manual', req.focus);
    // In a scope of its own, so `/stop` can cancel it.
    const scope = new CancellationScope();
    run.compressScope = scope;
    const c = await scope.run(compress);
    answer(
      c.compressed,
      c.tokensBefore,
      c.tokensAfter,
      c.compressed
        ? `compressed ${c.tokensBefore} → ${c.tokensAfter} tokens; the conversation continues in session ${state.sessionId}`
        : 'nothing to compress yet',
    );
  } catch (err) {
    if (isCancellation(err)) answer(false, 0, 0, 'compression stopped');
    else answer(false, 0, 0, `compression failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    run.compressScope = undefined;
    run.compressing = false;
    run.refreshDetails();
  }
}

/** Wait for a background batch, then queue its reports as the next message (a new turn). */
async function watchBackground(run: Run, batch: ChildBatch): Promise<void> {
  const { state } = run;
  try {
    await waitForBatch(state, batch);
    const { content } = await collectReports(state, batch);
    const msg: QueuedMessage = {
      id: `${state.conversationId}:delegation:${batch.id}`,
      text: `${BACKGROUND_REPORTS_PREFIX}\n${content}`,
      awaited: false,
    };
    if (batch.ending === 'stopped') run.holdReport(msg);
    else state.queue.push(msg);
  } catch (err) {
    log.error('background delegation failed', { error: err instanceof Error ? err.message : String(err) });
  } finally {
    const at = run.background.indexOf(batch);
    if (at >= 0) run.background.splice(at, 1);
    // The batch's end is a recorded event (its children completed): a move held back while they
    // ran may be due now, decided here as a replay decides it.
    run.checkDue();
    run.refreshDetails();
  }
}

/** The end of the conversation: children stopped, every waiting caller answered, the session row closed. */
async function close(run: Run, reason: string): Promise<void> {
  const { state } = run;
  run.ended = true;
  // Background children are stopped, not abandoned: each ends its turn and keeps its transcript.
  run.stopBackground();
  await condition(() => run.background.length === 0);
  // Messages that never ran still get an answer: the conversation is over.
  for (const msg of state.queue.splice(0)) rememberResult(state, msg.id, endedResult(state, msg.id));
  // So do compressions that never ran (a `compress` then `end` during a turn would wait forever).
  for (const c of run.compressions.splice(0))
    run.compressResults.set(c.id, {
      compressed: false,
      session_id: state.sessionId,
      tokens_before: 0,
      tokens_after: 0,
      message: 'the conversation ended before the compression ran',
    });
  await condition(allHandlersFinished);
  await closing.endConversation({ conversationId: state.conversationId, sessionId: state.sessionId, reason });
  run.refreshDetails();
}

/** A turn whose bookkeeping failed for good (the database gone longer than the activities wait). */
function failedTurn(state: ConversationState, msg: QueuedMessage, p: TurnProgress, error: string): TurnResult {
  state.lastError = error;
  return {
    final_response: null,
    last_reasoning: null,
    messages_count: state.nextSeq,
    api_calls: p.apiCalls,
    completed: false,
    interrupted: false,
    failed: true,
    partial: false,
    turn_exit_reason: 'internal_error',
    model: state.provider.model,
    provider: state.provider.provider,
    usage: { turn: p.usage ?? emptyUsage(), session: state.sessionUsage },
    estimated_cost_usd: state.sessionUsage.cost_usd,
    session_id: state.sessionId,
    turn: state.turn,
    message_id: msg.id,
    error: `the turn could not be completed: ${error}`,
  };
}
