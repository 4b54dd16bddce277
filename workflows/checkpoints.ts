/**
 * Checkpoints from the workflow's side (docs/checkpoints.md): a snapshot of the workspace before
 * the turn's first tool call that can change it, and one after the turn; and the `rewind` update,
 * which puts the workspace (and, when asked, the transcript) back to before a turn. The snapshots
 * run as activities where the tools run; a snapshot that fails costs the turn nothing but its
 * checkpoint (logged, the turn goes on).
 */
import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  log,
  proxyActivities,
  setHandler,
  uuid4,
} from '@temporalio/workflow';
import type { HeraldActivities } from '../activities/index.js';
import type { RewindInput, RewindResult } from '../common/contract.js';
import { describeZodError, forkWorkspaceSchema, rewindSchema } from '../common/contract.js';
import type { ToolCallRef } from '../common/tool-batch.js';
import { forkWorkspaceUpdate, rewindUpdate } from './definitions.js';
import type { Run } from './run.js';
import type { ConversationState } from './state.js';
import type { TurnProgress } from './turn-progress.js';

/** Tools that change the conversation's own state, not the workspace. */
const NOT_WORKSPACE = new Set(['memory', 'todo', 'clarify', 'session_search']);

function checkpointSteps(s: ConversationState, summary: string) {
  return proxyActivities<HeraldActivities>({
    summary,
    ...(s.toolTaskQueue ? { taskQueue: s.toolTaskQueue } : {}),
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '30 seconds',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
  });
}

/** Can this call change the workspace? Anything not read-only (an MCP tool without the hint included). */
export function changesWorkspace(call: ToolCallRef): boolean {
  return call.kind !== 'invalid' && !call.traits.readOnly && !NOT_WORKSPACE.has(call.name);
}

/** Before a call that may change the workspace: the turn's "before" snapshot, taken once. */
export async function snapshotBeforeCall(s: ConversationState, p: TurnProgress, call: ToolCallRef): Promise<void> {
  if (!changesWorkspace(call)) return;
  p.checkpoint ??= CancellationScope.nonCancellable(() =>
    checkpointSteps(s, `checkpoint turn ${p.turn}: before`)
      .snapshotWorkspace({
        conversationId: s.conversationId,
        sessionId: s.sessionId,
        turnId: p.turnId,
        turn: p.turn,
        phase: 'before',
        cwd: s.cwd,
      })
      .then(
        (r) => r.taken,
        (err: unknown) => {
          log.warn('checkpoint before the turn failed', { error: err instanceof Error ? err.message : String(err) });
          return false;
        },
      ),
  );
  await p.checkpoint;
}

/** After the turn: the "after" snapshot, when a "before" one was taken; its summary goes into state. */
export async function snapshotAfterTurn(s: ConversationState, p: TurnProgress): Promise<void> {
  if (!p.checkpoint || !(await p.checkpoint)) return;
  try {
    const r = await checkpointSteps(s, `checkpoint turn ${p.turn}: after`).snapshotWorkspace({
      conversationId: s.conversationId,
      sessionId: s.sessionId,
      turnId: p.turnId,
      turn: p.turn,
      phase: 'after',
      cwd: s.cwd,
    });
    if (r.summary) s.lastChanges = { turn: p.turn, ...r.summary };
  } catch (err) {
    log.warn('checkpoint after the turn failed', { error: err instanceof Error ? err.message : String(err) });
  }
}

/** Rewind `input.toTurn`: the workspace first (it may refuse), then the transcript. */
async function rewind(run: Run, input: RewindInput): Promise<RewindResult> {
  const s = run.state;
  const steps = checkpointSteps(s, `rewind to turn ${input.toTurn}`);
  const result: RewindResult = { to_turn: input.toTurn, files: null, conversation: null };
  if (input.files) {
    const w = await steps.rewindWorkspace({
      conversationId: s.conversationId,
      cwd: s.cwd,
      toTurn: input.toTurn,
      force: input.force ?? false,
      rewindId: uuid4(),
    });
    if (!w.restored) return { ...result, refused: w.refused, would_lose: w.wouldLose };
    result.files = {
      ...w.changed,
      ...(w.savedAs ? { saved_as: w.savedAs } : {}),
      ...(w.note ? { note: w.note } : {}),
    };
  }
  if (input.conversation) {
    const newSessionId = `${s.conversationId}.${s.compressions + 1}`;
    const t = await steps.rewindTranscript({
      conversationId: s.conversationId,
      sessionId: s.sessionId,
      newSessionId,
      toTurn: input.toTurn,
    });
    if (!t.ok) return { ...result, refused: t.refused };
    result.conversation = {
      previous_session_id: s.sessionId,
      session_id: t.sessionId,
      discarded_messages: t.discardedMessages,
    };
    s.compressions += 1;
    s.sessionId = t.sessionId;
    s.nextSeq = t.nextSeq;
    s.lastPromptTokens = 0;
    s.todos = [];
  }
  s.lastChanges = undefined;
  return result;
}

/** The `rewind` update (refused while a turn runs; turns wait while it runs) and `forkWorkspace`. */
export function registerCheckpointUpdates(run: Run): void {
  setHandler(
    rewindUpdate,
    async (input) => {
      run.checkDue();
      run.rewinding = true;
      run.refreshDetails();
      try {
        return await rewind(run, rewindSchema.parse(input));
      } finally {
        run.rewinding = false;
        run.refreshDetails();
      }
    },
    {
      validator: (input) => {
        const parsed = rewindSchema.safeParse(input);
        if (!parsed.success) throw new Error(`invalid rewind: ${describeZodError(parsed.error, 'rewind')}`);
        if (run.ended) throw new Error('the conversation has ended');
        if (run.current || run.compressing || run.rewinding || run.state.queue.length)
          throw new Error('a turn is running (or waiting to run): rewind when the conversation is idle');
        if (parsed.data.toTurn > run.state.turn)
          throw new Error(`turn ${parsed.data.toTurn} has not run (the latest is turn ${run.state.turn})`);
        if (!parsed.data.files && !parsed.data.conversation) throw new Error('rewind neither files nor conversation');
      },
    },
  );

  // A fork's workspace: the copy is made where the workspace is; the client starts the new conversation.
  setHandler(
    forkWorkspaceUpdate,
    async (input) => {
      run.checkDue();
      const s = run.state;
      const r = await checkpointSteps(s, `fork workspace at turn ${input.atTurn}`).forkWorkspace({
        conversationId: s.conversationId,
        cwd: s.cwd,
        atTurn: input.atTurn,
        dest: input.cwd,
      });
      if (!r.ok) throw ApplicationFailure.nonRetryable(r.refused, 'ForkRefused');
      return { cwd: r.cwd, files: r.files };
    },
    {
      validator: (input) => {
        const parsed = forkWorkspaceSchema.safeParse(input);
        if (!parsed.success)
          throw new Error(`invalid forkWorkspace: ${describeZodError(parsed.error, 'forkWorkspace')}`);
        if (parsed.data.atTurn > run.state.turn)
          throw new Error(`turn ${parsed.data.atTurn} has not run (the latest is turn ${run.state.turn})`);
      },
    },
  );
}
