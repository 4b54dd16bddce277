/**
 * `delegate_task` in the workflow (docs/delegation.md): each task becomes a child conversation workflow
 * (same loop, `platform: subagent`) with restricted tools, its own iteration budget and what is
 * left of the session budget. The parent waits for all of them; `/stop` (or the child timeout)
 * sends each running child the ordinary `stop` signal, so children end their turn cleanly —
 * transcript valid, result reported — instead of being killed. Child usage joins the parent's.
 */
import {
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  isCancellation,
  startChild,
  uuid4,
} from '@temporalio/workflow';
import type { ChildWorkflowHandle } from '@temporalio/workflow';
import type { ConversationInput, TurnResult } from '../common/contract.js';
import type { ChildEnding, ChildReport, DelegateTask } from '../common/delegation.js';
import {
  childReport,
  childSessionId,
  childTools,
  childUsage,
  delegationResult,
  subagentBrief,
} from '../common/delegation.js';
import type { Usage } from '../common/messages.js';
import { addUsage, emptyUsage } from '../common/messages.js';
import type { ProviderRef } from '../common/providers.js';
import type { CallOfKind } from '../common/tool-batch.js';
import { storeStep } from './activities.js';
import { withDeadline } from './deadline.js';
import { MAX_DETAILS_CHARS, label } from './labels.js';
import { stopSignal } from './definitions.js';
import { rootMessage } from './errors.js';
import type { ConversationState } from './state.js';
import type { TurnProgress } from './turn-progress.js';

/** After a stop, how long children get to wind down before the parent reports without them. */
const WIND_DOWN_MS = 120_000;

export interface DelegationOutcome {
  /** The tool result for the model. */
  content: string;
  /** Set when the parent's turn was stopped while children ran: rethrow it once the result is recorded. */
  stoppedBy?: Error;
  /** Background mode: children still running, for the conversation to watch. */
  background?: ChildBatch;
}

interface Child {
  index: number;
  sessionId: string;
  handle?: ChildWorkflowHandle<() => Promise<TurnResult | null>>;
  /** Settles when the child ends; never rejects. */
  done: Promise<{ result: TurnResult | null; error?: string; endedAt: number }>;
}

/** The children of one `delegate_task` call. */
export interface ChildBatch {
  id: string;
  children: Child[];
  startedAt: number;
  /** Settles when every child has ended; never rejects. */
  settled: Promise<unknown>;
  /** Why the parent ended the wait early, if it did. */
  ending?: ChildEnding;
  /** The turn that started them, and who sent its message (a child's approval request is theirs). */
  turnId: string;
  requestedBy?: string | undefined;
}

/** Run the call's tasks as child agents; `resultSeq` (the call's result position) makes their ids unique. */
export async function runDelegation(
  s: ConversationState,
  p: TurnProgress,
  call: CallOfKind<'delegate'>,
  resultSeq: number,
  onProgress: () => void,
): Promise<DelegationOutcome> {
  const batch = await startBatch(s, p, call, resultSeq);
  if (typeof batch === 'string') return { content: batch };
  if (s.delegation.mode === 'background' && !s.subagent) {
    const ids = batch.children.map((c) => c.sessionId).join(', ');
    return {
      content:
        `Dispatched ${batch.children.length} task(s) to child agents running in the background (${ids}). Their ` +
        'reports will arrive in a later message once all of them have finished. Continue with other work, or end ' +
        'your turn if there is nothing else to do.',
      background: batch,
    };
  }

  p.children = batch.children.map((c) => c.sessionId);
  onProgress();
  let stoppedBy: Error | undefined;
  try {
    await waitForBatch(s, batch);
  } catch (err) {
    if (!isCancellation(err)) throw err;
    batch.ending = 'stopped';
    stoppedBy = err as Error;
    await CancellationScope.nonCancellable(() => windDown(batch));
  }
  p.children = [];
  onProgress();
  const { content, usage } = await collectReports(s, batch);
  p.usage = addUsage(p.usage, usage);
  return { content, ...(stoppedBy !== undefined ? { stoppedBy } : {}) };
}

/** Start one child per task (or say why none can start). */
async function startBatch(
  s: ConversationState,
  p: TurnProgress,
  call: CallOfKind<'delegate'>,
  resultSeq: number,
): Promise<ChildBatch | string> {
  const tasks = call.delegate.tasks;
  const depth = (s.subagent?.depth ?? 0) + 1;
  if (depth > s.delegation.maxDepth)
    return `delegate_task is not available at this depth (limit ${s.delegation.maxDepth}). Do the work yourself.`;
  const budget = remainingBudget(s);
  if (budget === null) return 'The session budget is spent: no child agent can be started. Finish with what you have.';

  const startedAt = Date.now();
  const children = await CancellationScope.nonCancellable(() =>
    Promise.all(tasks.map((task, i) => startOne(s, p, task, i, resultSeq, depth, budget))),
  );
  await storeStep('publishStatus', {
    conversationId: s.conversationId,
    turnId: p.turnId,
    kind: 'delegation',
    message: `delegated ${tasks.length} task(s) to child agents: ${children.map((c) => c.sessionId).join(', ')} (herald watch <id> follows one)`,
    details: { sessions: children.map((c) => c.sessionId) },
  });
  return {
    id: `${p.turn}-${resultSeq}`,
    children,
    startedAt,
    settled: Promise.all(children.map((c) => c.done)),
    turnId: p.turnId,
    requestedBy: p.requestedBy,
  };
}

/**
 * Wait until every child has ended, or the child timeout passes (then they are stopped and the
 * batch marked `timed_out`). A cancellation of the calling scope is thrown to the caller.
 */
export async function waitForBatch(s: ConversationState, batch: ChildBatch): Promise<void> {
  const timedOut = await withDeadline(
    s.delegation.childTimeoutSeconds * 1000,
    async () => {
      await Promise.race([batch.settled, CancellationScope.current().cancelRequested]);
    },
    `child agents deadline (${batch.children.length})`,
  );
  if (timedOut) {
    batch.ending = 'timed_out';
    await CancellationScope.nonCancellable(() => windDown(batch));
  }
}

/** The reports of a finished batch as the tool result (or background message), child usage added to the session's. */
export async function collectReports(
  s: ConversationState,
  batch: ChildBatch,
): Promise<{ content: string; usage: Usage }> {
  const reports: ChildReport[] = [];
  let total = emptyUsage();
  for (const c of batch.children) {
    const { result, error, endedAt } = await Promise.race([c.done, neverEnded(batch.startedAt)]);
    total = addUsage(total, childUsage(result));
    reports.push(
      childReport(
        c.index,
        c.sessionId,
        result,
        endedAt - batch.startedAt,
        batch.ending,
        s.delegation.maxSummaryChars,
        error,
      ),
    );
  }
  s.sessionUsage = addUsage(s.sessionUsage, total);
  return { content: delegationResult(reports), usage: total };
}

async function startOne(
  s: ConversationState,
  p: TurnProgress,
  task: DelegateTask,
  index: number,
  resultSeq: number,
  depth: number,
  budget: ConversationInput['budget'],
): Promise<Child> {
  const sessionId = childSessionId(s.conversationId, p.turn, resultSeq, index, uuid4);
  const input = childInput(s, task, sessionId, depth, budget);
  try {
    const handle = await startChild<(input: ConversationInput) => Promise<TurnResult | null>>('conversation', {
      workflowId: `session-${sessionId}`,
      args: [input],
      // The Web UI's summary of the child: the task it was given.
      staticSummary: label(`delegated: ${task.goal}`),
      staticDetails: childDetails(s, task),
      // Stop goes to children as the `stop` signal (a clean end of their turn), not as cancellation.
      cancellationType: ChildWorkflowCancellationType.ABANDON,
      parentClosePolicy: ParentClosePolicy.TERMINATE,
    });
    const done = handle.result().then(
      (result) => ({ result, endedAt: Date.now() }),
      (err: unknown) => ({ result: null, error: rootMessage(err), endedAt: Date.now() }),
    );
    return { index, sessionId, handle, done };
  } catch (err) {
    const error = `the child agent could not be started: ${rootMessage(err)}`;
    return { index, sessionId, done: Promise.resolve({ result: null, error, endedAt: Date.now() }) };
  }
}

function childInput(
  s: ConversationState,
  task: DelegateTask,
  sessionId: string,
  depth: number,
  budget: ConversationInput['budget'],
): ConversationInput {
  return {
    sessionId,
    message: subagentBrief(task),
    messageId: `${sessionId}:task`,
    source: 'subagent',
    ...childModel(s),
    fallbackProviders: s.fallbacks.map(requestFor),
    maxIterations: s.delegation.maxIterations,
    toolsets: childTools(s.tools, depth, s.delegation.maxDepth, task.tools),
    cwd: s.cwd,
    // The parent's network, as narrowed by whoever started it: a child never gets the worker's wider one.
    ...(s.sandbox ? { sandbox: { network: s.sandbox.network } } : {}),
    ...(s.toolTaskQueue ? { toolTaskQueue: s.toolTaskQueue } : {}),
    approvals: { mode: s.approvalMode, timeoutSeconds: s.approvalTimeoutSeconds },
    ...(budget ? { budget } : {}),
    subagent: {
      parentSessionId: s.sessionId,
      depth,
      autoApprove: s.delegation.autoApprove,
      // Only when set: the inputs of children that may not ask stay as they were.
      ...(s.delegation.askPerson ? { askPerson: true } : {}),
    },
  };
}

/** The child's static details in the Web UI: its goal, its context (shortened), who delegated it. */
function childDetails(s: ConversationState, task: DelegateTask): string {
  const lines = [
    `**Goal:** ${task.goal}`,
    ...(task.context ? [`**Context:** ${task.context}`] : []),
    `**Delegated by:** \`session-${s.conversationId}\``,
    ...(task.tools?.length ? [`**Tools:** ${task.tools.join(', ')}`] : []),
  ];
  const text = lines.join('\n\n');
  return text.length > MAX_DETAILS_CHARS ? `${text.slice(0, MAX_DETAILS_CHARS - 1)}…` : text;
}

/** The configured child model, else the parent's current one (resolved again by the child's worker). */
function childModel(s: ConversationState): Partial<ConversationInput> {
  const m = s.delegation.model;
  if (m)
    return {
      provider: m.provider,
      model: m.model,
      ...(m.apiMode ? { apiMode: m.apiMode } : {}),
      ...(m.baseUrl ? { baseUrl: m.baseUrl } : {}),
      ...(m.apiKeyEnv ? { apiKeyEnv: m.apiKeyEnv } : {}),
    };
  const p = s.provider;
  return { ...requestFor(p), ...(p.contextLength ? { contextLength: p.contextLength } : {}) };
}

/** A resolved provider as workflow input, for the child's worker to resolve again. */
function requestFor(ref: ProviderRef): NonNullable<ConversationInput['fallbackProviders']>[number] {
  return {
    provider: ref.provider,
    model: ref.model,
    apiMode: ref.apiMode,
    ...(ref.baseUrl ? { baseUrl: ref.baseUrl } : {}),
    // A credential pool is the worker's to resolve again; a single key variable is passed on.
    ...(ref.apiKeyEnv && !ref.credentialPool?.length ? { apiKeyEnv: ref.apiKeyEnv } : {}),
  };
}

/** What is left of the session caps for children to spend; null when nothing is. */
function remainingBudget(s: ConversationState): ConversationInput['budget'] | null {
  const out: NonNullable<ConversationInput['budget']> = {};
  if (s.budget.maxCostUsd !== undefined) {
    const left = s.budget.maxCostUsd - s.sessionUsage.cost_usd;
    if (left <= 0) return null;
    out.maxCostUsd = left;
  }
  if (s.budget.maxTokens !== undefined) {
    const left = s.budget.maxTokens - s.sessionUsage.total_tokens;
    if (left <= 0) return null;
    out.maxTokens = left;
  }
  return out.maxCostUsd !== undefined || out.maxTokens !== undefined ? out : undefined;
}

/** Ask every running child to stop, then give them a while to end their turn and report. */
export async function windDown(batch: ChildBatch): Promise<void> {
  await stopChildren(batch);
  // The wait's timer is cancelled once the children have ended, instead of firing 120 s later.
  await withDeadline(
    WIND_DOWN_MS,
    async () => {
      await Promise.race([batch.settled, CancellationScope.current().cancelRequested]);
    },
    'child agents wind-down',
  );
}

/** Send every child of the batch the `stop` signal (children that already ended ignore it). */
export async function stopChildren(batch: ChildBatch): Promise<void> {
  const reason =
    batch.ending === 'timed_out' ? 'the delegated task ran out of time' : 'stopped by the delegating agent';
  await Promise.all(
    batch.children.map((c) =>
      c.handle
        ? c.handle.signal(stopSignal, reason).catch(() => {
            // Already ended: nothing to stop.
          })
        : Promise.resolve(),
    ),
  );
}

/** A child that did not end even after the wind-down: reported as such, without a result. */
function neverEnded(startedAt: number): Promise<{ result: null; error: string; endedAt: number }> {
  return Promise.resolve({
    result: null,
    error: `the child agent did not end within ${WIND_DOWN_MS / 1000} s of being stopped`,
    endedAt: startedAt,
  });
}
