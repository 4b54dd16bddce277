/**
 * One batch of tool calls of a turn (docs/tools.md): each call answered by the handler of its kind
 * (the workflow answers `todo`, `clarify` and `delegate_task` itself, every other call is a
 * `runTool` activity), concurrently when the batch plan allows, within a deadline, with the loop
 * guard deciding before a call and counting after it (docs/loop-guard.md).
 */
import { CancellationScope } from '@temporalio/workflow';
import type { NotRunReason } from '../common/activity-types.js';
import type { GuardedCall, LoopGuard } from '../common/loop-guard.js';
import { callEffect, duplicateText, duplicatesInReply, workflowResultKey } from '../common/loop-guard.js';
import type { CallOfKind, ToolCallKind, ToolCallRef } from '../common/tool-batch.js';
import { approvalOf, planToolBatch } from '../common/tool-batch.js';
import { applyTodos, formatTodos } from '../common/todos.js';
import { storeStep, toolActivities } from './activities.js';
import { snapshotBeforeCall } from './checkpoints.js';
import { withDeadline } from './deadline.js';
import { runDelegation } from './delegation.js';
import { askClarify, gateCommand } from './human.js';
import type { ConversationState } from './state.js';
import type { TurnHost } from './turn.js';
import type { OpenCall, TurnProgress } from './turn-progress.js';

/** Concurrent tool activities of one batch at most, and how long a batch may take (docs/tools.md). */
const MAX_PARALLEL_TOOLS = 8;
const BATCH_DEADLINE_SECONDS = 420;
/** All tool results of one assistant turn together (docs/tools.md); each call gets an equal share. */
const MAX_TURN_RESULT_CHARS = 200_000;
/** The most characters of a loop-guard status event's message. */
const MAX_GUARD_EVENT_CHARS = 500;

/**
 * How the loop guard treats each kind: `guarded` calls are decided before and counted after they
 * run; the others break a run of repeats, and `changes` ones (a delegation's children worked in the
 * workspace, a person answering clarify may have changed it) count as a possible change.
 */
const GUARD_POLICY: Record<ToolCallKind, 'guarded' | 'changes' | 'other'> = {
  activity: 'guarded',
  mcp: 'guarded',
  todo: 'guarded',
  invalid: 'other',
  clarify: 'changes',
  delegate: 'changes',
};

/** What every handler of one batch shares. */
interface Batch {
  host: TurnHost;
  p: TurnProgress;
  s: ConversationState;
  calls: readonly ToolCallRef[];
  assistantSeq: number;
  guard: LoopGuard | undefined;
  /** Loop-guard notes for the batch's status event. */
  notes: string[];
  /** Characters the tools added to the context (for the next compression check). */
  resultChars: number;
}

type Handler<K extends ToolCallKind> = (b: Batch, o: OpenCall, call: CallOfKind<K>) => Promise<void>;

/** The handler of each kind of call. */
const HANDLERS: { [K in ToolCallKind]: Handler<K> } = {
  todo: runTodo,
  delegate: runDelegate,
  clarify: runClarify,
  activity: runActivity,
  mcp: runActivity,
  // A call with invalid arguments goes to its tool activity, which records why it cannot run.
  invalid: runActivity,
};

/** The handler of the call's kind (each handler takes exactly its kind: the table says which). */
function dispatch(b: Batch, o: OpenCall, call: ToolCallRef): Promise<void> {
  const handler = HANDLERS[call.kind] as Handler<ToolCallKind>;
  return handler(b, o, call);
}

function guardedCall(c: ToolCallRef): GuardedCall {
  const readOnly = c.traits?.readOnly ?? false;
  return {
    name: c.name,
    argsKey: c.kind === 'invalid' ? undefined : c.argsKey,
    readOnly,
    effect: callEffect({ name: c.name, readOnly, kind: c.kind }),
  };
}

/** Record a result the workflow wrote itself; `notRun` says why the tool did not run. */
async function answer(
  b: Batch,
  o: OpenCall,
  content: string,
  isError: boolean,
  durationMs?: number,
  notRun?: NotRunReason,
): Promise<void> {
  await storeStep('recordToolResult', {
    conversationId: b.s.conversationId,
    sessionId: b.s.sessionId,
    turnId: b.p.turnId,
    seq: o.seq,
    toolCallId: o.call.id,
    toolName: o.call.name,
    content,
    isError,
    ...(durationMs !== undefined ? { durationMs } : {}),
    ...(notRun ? { notRun, summary: o.call.summary } : {}),
  });
}

/** After a guarded call ran: the guard's note, if it nudged. */
function counted(b: Batch, o: OpenCall, resultKey: string | undefined, isError = false): void {
  const note = b.guard?.ran(guardedCall(o.call), o.seq, resultKey, isError);
  if (note) b.notes.push(`${o.call.name}: ${note}`);
}

async function runTodo(b: Batch, o: OpenCall, call: CallOfKind<'todo'>): Promise<void> {
  b.s.todos = applyTodos(b.s.todos, call.todo.todos, call.todo.merge);
  const text = formatTodos(b.s.todos);
  await answer(b, o, text, false);
  // The guard counts todo calls too: a small model can send the same list over and over.
  counted(b, o, workflowResultKey(text));
}

async function runDelegate(b: Batch, o: OpenCall, call: CallOfKind<'delegate'>): Promise<void> {
  const started = Date.now();
  const d = await runDelegation(b.s, b.p, call, o.seq, () => b.host.onProgress(b.p));
  if (d.background) b.host.adoptBackground(d.background);
  // The children's reports are recorded even when the turn was stopped: they did real work.
  await CancellationScope.nonCancellable(() => answer(b, o, d.content, false, Date.now() - started));
  o.done = true;
  if (d.stoppedBy !== undefined) throw d.stoppedBy;
}

async function runClarify(b: Batch, o: OpenCall, call: CallOfKind<'clarify'>): Promise<void> {
  const answered = await askClarify(b.s, b.p, call, () => b.host.onProgress(b.p));
  // The question is answered (or timed out): the Web UI stops showing it as waiting.
  b.host.onProgress(b.p);
  await answer(b, o, answered, false);
}

async function runActivity(b: Batch, o: OpenCall, call: CallOfKind<'activity' | 'mcp' | 'invalid'>): Promise<void> {
  const { s, p } = b;
  const check = approvalOf(call);
  const gate = await gateCommand(s, p, call, check, () => b.host.onProgress(p), b.assistantSeq);
  b.host.onProgress(p);
  if (!gate.run) {
    await answer(b, o, gate.result, true, undefined, check?.level === 'hardline' ? 'blocked' : 'denied');
    return;
  }
  const r = await toolActivities(`tool ${o.call.summary}`, o.call.timeoutSeconds, s.toolTaskQueue).runTool({
    conversationId: s.conversationId,
    sessionId: s.sessionId,
    turnId: p.turnId,
    assistantSeq: b.assistantSeq,
    resultSeq: o.seq,
    call: o.call,
    cwd: s.cwd,
    inlineLimit: Math.floor(MAX_TURN_RESULT_CHARS / b.calls.length),
    ...(s.sandbox ? { network: s.sandbox.network } : {}),
  });
  b.resultChars += r.chars ?? 0;
  if (!b.guard || GUARD_POLICY[call.kind] !== 'guarded') return;
  counted(b, o, r.resultKey, r.isError);
  if (r.fileState && b.guard.edited(r.fileState))
    b.notes.push(`${o.call.name}: the file is back the way an earlier edit left it — tools paused`);
}

/** One call: the loop guard first (a duplicate in the reply, a repeat it answers), then its handler. */
async function runOne(b: Batch, o: OpenCall, duplicateOf: number | undefined): Promise<void> {
  const { guard } = b;
  const call = o.call;
  if (guard && duplicateOf !== undefined) {
    await answer(b, o, duplicateText(o.call.name, b.calls[duplicateOf]!.id), false, undefined, 'duplicate');
    b.notes.push(`${o.call.name}: duplicate call in one reply ran once`);
  } else {
    const policy = GUARD_POLICY[call.kind];
    if (guard && policy !== 'guarded') guard.other(policy === 'changes');
    const d = guard && policy === 'guarded' ? guard.decide(guardedCall(o.call)) : undefined;
    if (d?.action === 'answer') {
      await answer(b, o, d.text, d.refused, undefined, d.refused ? 'refused' : 'repeat');
      b.notes.push(`${o.call.name}: repeated call ${d.refused ? 'refused' : 'answered from its earlier result'}`);
    } else await dispatch(b, o, call);
  }
  o.done = true;
}

/** Run the opened calls of one assistant message; those the deadline cut off get a closing result. */
export async function runTools(host: TurnHost, p: TurnProgress, open: OpenCall[], assistantSeq: number): Promise<void> {
  const s = host.state;
  const calls = open.map((o) => o.call);
  const guard = p.loopGuard;
  const b: Batch = { host, p, s, calls, assistantSeq, guard, notes: [], resultChars: 0 };
  // Calls of this reply identical to an earlier one in it run once (the loop guard's first rule).
  const duplicates = guard ? duplicatesInReply(calls.map(guardedCall)) : new Map<number, number>();
  const each = (o: OpenCall) => runOne(b, o, duplicates.get(open.indexOf(o)));
  // The turn's "before" checkpoint comes ahead of the whole batch, not of its first changing call:
  // a batch's calls still start together, in one workflow task (docs/checkpoints.md).
  for (const c of calls) await snapshotBeforeCall(s, p, c);
  const parallel = planToolBatch(calls).mode === 'parallel';
  const deadlineSeconds = Math.max(BATCH_DEADLINE_SECONDS, ...calls.map((c) => c.timeoutSeconds + 60));
  const timedOut = await withDeadline(
    deadlineSeconds * 1000,
    async () => {
      if (parallel) await inLanes(open, MAX_PARALLEL_TOOLS, each);
      else for (const o of open) await each(o);
    },
    `tool batch deadline (${calls.length} call(s))`,
  );
  if (timedOut) {
    const late = open.filter((o) => !o.done);
    await storeStep('recordMessages', {
      sessionId: s.sessionId,
      turnId: p.turnId,
      messages: late.map((o) => ({
        seq: o.seq,
        role: 'tool' as const,
        toolCallId: o.call.id,
        toolName: o.call.name,
        content: `[${o.call.name} did not finish within the ${deadlineSeconds} s deadline for this batch of tool calls and was cancelled.]`,
      })),
    });
    for (const o of late) o.done = true;
  }
  if (b.notes.length) {
    await storeStep('publishStatus', {
      conversationId: s.conversationId,
      turnId: p.turnId,
      kind: 'loop_guard',
      message: [...new Set(b.notes)].join('; ').slice(0, MAX_GUARD_EVENT_CHARS),
      details: { ...guard!.stats },
    });
  }
  // The provider's last prompt count plus what the tools just added (about 4 characters a token).
  s.lastPromptTokens += Math.ceil(b.resultChars / 4);
}

/** Run `each` over `items` with at most `lanes` in flight; the first failure is rethrown after all settle. */
async function inLanes<T>(items: readonly T[], lanes: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await each(item);
      } catch (err) {
        failures.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  if (failures.length) throw failures[0];
}
