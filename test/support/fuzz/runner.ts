/**
 * Runs a scenario against a real stack: starts the conversation, executes the operations in order
 * (updates are tracked, not awaited, so they race the operations after them), then plays the
 * attentive user until the conversation is quiet (answering approvals and questions), and closes
 * it. Everything it did and saw goes into a RunRecord for the invariants.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';

const { temporal } = proto;
import { CONVERSATION_WORKFLOW, workflowIdFor } from '../../../common/constants.js';
import type { ConversationStateView, TurnResult } from '../../../common/contract.js';
import { messagePayloadBytes } from '../../../common/contract.js';

/** Past this an update cannot be answered at all (Temporal's 2 MB payload limit, less the update's envelope). */
const ANSWERABLE_UPDATE_BYTES = 1_900_000;
import type { RunningWorker } from '../../../workers/worker.js';
import type { TestStack } from '../stack.js';
import { FAKE_MODEL } from '../stack.js';
import type { FuzzModel } from './model.js';
import { fuzzModel } from './model.js';
import type { Op, Scenario, TextSpec } from './ops.js';
import { describeOp, materialize, materializeValue } from './ops.js';

export interface RunOptions {
  /** A client call unresolved this long after the conversation went quiet is hung (default 60 s). */
  callTimeoutMs?: number;
  /** Longest wait for the conversation to go quiet after the last operation (default 120 s). */
  drainTimeoutMs?: number;
  /** Run only these operations (indices into scenario.ops), for shrinking. */
  only?: readonly number[];
  log?: (line: string) => void;
}

export interface OpRecord {
  i: number;
  line: string;
  at: number;
  outcome: string;
}

/** A call whose answer may come much later (updates wait for their turn). */
export interface Tracked {
  op: number;
  label: string;
  updateId?: string;
  startedAt: number;
  settledAt?: number;
  ok?: boolean;
  value?: unknown;
  error?: string;
  /** `reject`: the operation is malformed and must be refused. */
  expect: 'reject' | 'any';
}

/** One attempt to deliver a user message (an update, a signal, the start input, a steer). */
export interface MessageAttempt {
  tag: string;
  op: number;
  via: 'update' | 'signal' | 'start' | 'steer';
  id?: string;
  /** The RPC went through (a signal was delivered, an update was sent). */
  delivered: boolean;
  /** A fuzz `end` had been delivered before this attempt. */
  afterEnd: boolean;
  tracked?: Tracked;
}

export interface SideWorkflow {
  op: number;
  kind: 'spoof' | 'badStart';
  workflowId: string;
  sessionId: string;
  note: string;
  tag?: string;
  startError?: string;
}

export interface SessionSnapshot {
  id: string;
  parent_id: string | null;
  ended_at: Date | null;
  end_reason: string | null;
}

export interface RunRecord {
  scenario: Scenario;
  conversationId: string;
  workflowId: string;
  ops: OpRecord[];
  messages: MessageAttempt[];
  tracked: Tracked[];
  side: SideWorkflow[];
  firstRunIds: Set<string>;
  model: FuzzModel;
  endDelivered: boolean;
  restarts: number;
  /** The highest workflow task attempt seen pending (attempt n = n - 1 failures in a row). */
  maxWftAttempt: number;
  /** What the conversation was doing when the drain ended. */
  diagnosis: string;
  /** Drain result: quiet, or why not. */
  drain: { quiet: boolean; note: string; at: number };
  /** The conversation was still running when the drain ended, and its sessions then. */
  openAtQuiescence: boolean;
  /** Running, but ended (an end signal or idle timeout was taken; it is finishing). */
  endedAtQuiescence: boolean;
  sessionsAtQuiescence: SessionSnapshot[];
  /** Signals the conversation says it ignored (over a bound, malformed, too late), at quiescence. */
  ignoredAtQuiescence: number;
  /** Closing: what was expected to close the conversation and whether it did. */
  close: { by: 'end' | 'idle' | 'fuzzer-end' | 'already'; closed: boolean; finallyClosed: boolean; waitedMs: number };
  callTimeoutMs: number;
  startedAt: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolve with the value, or reject after `ms` (the call itself keeps going). */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`TIMEOUT: ${what} did not resolve within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function errText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  const inner = cause instanceof Error ? `: ${cause.message}` : '';
  return `${err.name}: ${err.message}${inner}`.slice(0, 400);
}

const describeResult = (v: unknown): string => {
  if (v && typeof v === 'object' && 'turn_exit_reason' in v) {
    const r = v as TurnResult;
    return `turn ${r.turn} ${r.turn_exit_reason} (message ${r.message_id.slice(0, 40)})`;
  }
  const s = JSON.stringify(v);
  return s === undefined ? 'undefined' : s.slice(0, 160);
};

const CONFIG =
  'retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\nmodel: { requestTimeoutSeconds: 4, streamStallSeconds: 5 }\n';
/** Stack options for the fuzzer: fast retries, and hung model calls (before or during the stream) abandoned within seconds. */
export const FUZZ_STACK = { configYaml: CONFIG } as const;

/**
 * Run a scenario. Every call it makes is tied to `abort`: calls still waiting when the case is
 * over (a hung update) are abandoned instead of retrying against closed connections.
 */
export async function runScenario(
  stack: TestStack,
  sc: Scenario,
  o: RunOptions & { abort?: AbortSignal } = {},
): Promise<RunRecord> {
  const signal = o.abort ?? new AbortController().signal;
  return await stack.temporal.connection.withAbortSignal(signal, () =>
    stack.herald.temporal.connection.withAbortSignal(signal, () => run(stack, sc, o)),
  );
}

async function run(stack: TestStack, sc: Scenario, o: RunOptions): Promise<RunRecord> {
  const callTimeoutMs = o.callTimeoutMs ?? 60_000;
  const drainTimeoutMs = o.drainTimeoutMs ?? 120_000;
  const log = o.log ?? (() => {});
  const nonce = randomBytes(3).toString('hex');
  const conversationId = `fz${sc.seed}-${nonce}`;
  const workflowId = workflowIdFor(conversationId);
  const namespace = stack.temporal.options.namespace;
  const ws = join(stack.workspaces, `ws-${conversationId}`);
  mkdirSync(join(ws, 'scratch'), { recursive: true });
  writeFileSync(join(ws, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  writeFileSync(join(ws, 'other.txt'), 'other file\n');
  writeFileSync(join(ws, 'scratch', 'junk.txt'), 'junk\n');

  const model = fuzzModel();
  stack.fake.reset().respond(model.responder);
  const t0 = Date.now();
  const rec: RunRecord = {
    scenario: sc,
    conversationId,
    workflowId,
    ops: [],
    messages: [],
    tracked: [],
    side: [],
    firstRunIds: new Set(),
    model,
    endDelivered: false,
    restarts: 0,
    maxWftAttempt: 0,
    drain: { quiet: false, note: '', at: 0 },
    diagnosis: '',
    openAtQuiescence: false,
    ignoredAtQuiescence: 0,
    endedAtQuiescence: false,
    sessionsAtQuiescence: [],
    close: { by: 'already', closed: false, finallyClosed: false, waitedMs: 0 },
    callTimeoutMs,
    startedAt: t0,
  };
  const handle: WorkflowHandle = stack.temporal.workflow.getHandle(workflowId);
  let worker: RunningWorker | undefined = stack.worker;

  const startInput: Record<string, unknown> = { sessionId: conversationId, cwd: ws };
  const { message, messageId, ...settings } = sc.start;
  Object.assign(startInput, settings);
  if (message) startInput.message = materialize(message);
  if (messageId) startInput.messageId = messageId;
  const first = await stack.temporal.workflow.start(CONVERSATION_WORKFLOW, {
    taskQueue: stack.taskQueue,
    workflowId,
    args: [startInput],
  });
  rec.firstRunIds.add(first.firstExecutionRunId);
  if (message)
    rec.messages.push({
      tag: message.tag,
      op: -1,
      via: 'start',
      delivered: true,
      afterEnd: false,
      id: messageId ?? `${conversationId}:first`,
    });
  log(
    `[fuzz ${sc.seed}] ${conversationId} (${sc.profile}) start ${JSON.stringify({ ...settings, message: message?.tag })}`,
  );

  const track = (op: number, label: string, p: Promise<unknown>, expect: Tracked['expect'], updateId?: string) => {
    const t: Tracked = { op, label, startedAt: Date.now(), expect, ...(updateId ? { updateId } : {}) };
    rec.tracked.push(t);
    const later = (what: string) => {
      const r = rec.ops.find((x) => x.i === op);
      if (r && r.outcome) r.outcome += ` ⇒ +${Date.now() - t0}ms ${label}: ${what}`;
    };
    p.then(
      (value) => {
        Object.assign(t, { ok: true, value, settledAt: Date.now() });
        later(`ok ${describeResult(value)}`);
      },
      (err: unknown) => {
        Object.assign(t, { ok: false, error: errText(err), settledAt: Date.now() });
        later(`error ${t.error}`);
      },
    );
    return t;
  };
  const settled = async (t: Tracked, ms: number) => {
    const until = Date.now() + ms;
    while (t.settledAt === undefined && Date.now() < until) await sleep(50);
    return t.settledAt !== undefined;
  };
  const outcomeOf = (t: Tracked) =>
    t.settledAt === undefined ? 'pending' : t.ok ? `ok ${describeResult(t.value)}` : `error ${t.error}`;
  const query = async (): Promise<ConversationStateView | undefined> => {
    try {
      return await within(handle.query<ConversationStateView>('state'), 15_000, 'state query');
    } catch {
      return undefined;
    }
  };
  const signal = async (name: string, args: unknown[]) => {
    await within(handle.signal(name, ...(args as [])), 30_000, `signal ${name}`);
  };
  /** Send a user message by update (tracked) or signal; records the attempt. */
  const deliver = async (
    i: number,
    spec: TextSpec,
    how: 'update' | 'signal' | 'steer',
    id?: string,
    via = 'raw',
    form = 'object',
  ) => {
    const text = materialize(spec);
    const attempt: MessageAttempt = {
      tag: spec.tag,
      op: i,
      via: how,
      delivered: false,
      afterEnd: rec.endDelivered,
      ...(id ? { id } : {}),
    };
    rec.messages.push(attempt);
    if (how === 'update' && via === 'raw' && messagePayloadBytes(text) > ANSWERABLE_UPDATE_BYTES)
      // Known limit, not Herald's: the server admits an update past Temporal's 2 MB payload limit,
      // and the worker's answer (acceptance or rejection, which carries the request back) is then
      // refused for as long as the caller retries. Herald's client refuses such a message.
      return 'skipped (over the payload limit an update can be answered within)';
    if (how === 'update') {
      // A start after the conversation closed begins a new execution: an end sent to the old one
      // says nothing about when the new one closes.
      if (via === 'withStart' && rec.endDelivered && (await isClosed())) rec.endDelivered = false;
      const updateId = via === 'raw' ? `u${i}-${spec.tag}` : (id ?? `u${i}-${spec.tag}`);
      const conv = stack.herald.conversation(conversationId);
      const p =
        via === 'client'
          ? conv.send(text, { id: id ?? updateId })
          : via === 'withStart'
            ? conv.send(text, { id: id ?? updateId, start: { cwd: ws, ...settings } })
            : handle.executeUpdate('sendMessage', { args: [id ? { text, id } : { text }], updateId });
      attempt.tracked = track(i, `sendMessage ${spec.tag}`, p, 'any', updateId);
      attempt.delivered = true;
      return attempt.tracked;
    }
    try {
      if (how === 'steer') await signal('steer', [text]);
      else await signal('userMessage', [form === 'string' ? text : id ? { text, id } : { text }]);
      attempt.delivered = true;
      return 'delivered';
    } catch (err) {
      return `error ${errText(err)}`;
    }
  };

  const indices = o.only ? [...o.only].sort((a, b) => a - b) : sc.ops.map((_, i) => i);
  let wedged: string | undefined;
  for (const i of indices) {
    const op = sc.ops[i]!;
    const r: OpRecord = { i, line: describeOp(op), at: Date.now() - t0, outcome: '' };
    rec.ops.push(r);
    // A wedged workflow answers nothing: the rest of the case would only wait for timeouts.
    wedged ??= await wedgedNow();
    if (wedged) {
      r.outcome = `skipped (${wedged})`;
      continue;
    }
    try {
      r.outcome = await runOp(i, op);
    } catch (err) {
      r.outcome = `error ${errText(err)}`;
    }
    log(`[fuzz ${sc.seed}] #${i} +${r.at}ms ${r.line} → ${r.outcome}`);
  }

  async function runOp(i: number, op: Op): Promise<string> {
    switch (op.kind) {
      case 'send': {
        const sent = await deliver(i, op.text, 'update', op.id, op.via);
        if (typeof sent === 'string') return sent;
        const t = sent;
        if (!op.wait) {
          await settled(t, 300);
          return t.settledAt === undefined ? 'sent (tracked)' : outcomeOf(t);
        }
        // Wait for the answer, or until the turn waits for a human (the next operation may answer).
        const until = Date.now() + 15_000;
        while (t.settledAt === undefined && Date.now() < until) {
          if (await settled(t, 400)) break;
          const st = await query();
          if (st && (st.pending_approvals.length || st.clarify)) return 'waiting for a human';
        }
        return outcomeOf(t);
      }
      case 'post':
        return (await deliver(i, op.text, 'signal', op.id, 'raw', op.form)) as string;
      case 'steer':
        return (await deliver(i, op.text, 'steer')) as string;
      case 'burst': {
        const specs: TextSpec[] = Array.from({ length: op.count }, (_, j) => ({
          tag: `${op.tag}b${j}`,
          plan: ['text'],
          size: op.size,
          flavor: op.flavor,
        }));
        const how = op.via === 'send' ? 'update' : op.via === 'steer' ? 'steer' : 'signal';
        const out = await Promise.all(
          specs.map((s) => deliver(i, s, how, how === 'update' ? `id-${s.tag}` : undefined)),
        );
        return out
          .map((x) => (typeof x === 'string' ? x : 'sent'))
          .join(', ')
          .slice(0, 300);
      }
      case 'stop':
      case 'end': {
        await signal(op.kind, op.payload === undefined ? [] : [op.payload]);
        if (op.kind === 'end') rec.endDelivered = true;
        return 'delivered';
      }
      case 'approve': {
        const st = await query();
        const pending = st?.pending_approvals[0]?.request_id;
        const requestId = op.target === 'pending' && pending ? pending : 'fz-unknown-request';
        const arg = { requestId, decision: op.decision, ...(op.scope ? { scope: op.scope } : {}) };
        if (op.via === 'signal') {
          await signal('approve', [arg]);
          return `signal for ${requestId}`;
        }
        const t = track(
          i,
          `approve ${requestId}`,
          handle.executeUpdate('approve', { args: [arg], updateId: `u${i}-approve` }),
          requestId === pending ? 'any' : 'reject',
          `u${i}-approve`,
        );
        await settled(t, 10_000);
        return `${requestId === pending ? 'pending' : 'unknown'} ${requestId}: ${outcomeOf(t)}`;
      }
      case 'answer': {
        const st = await query();
        const pending = st?.clarify?.request_id;
        const arg =
          op.target === 'none'
            ? { answer: op.answer }
            : { answer: op.answer, requestId: op.target === 'pending' && pending ? pending : 'fz-wrong' };
        const valid = pending !== undefined && (op.target === 'none' || arg.requestId === pending);
        const t = track(
          i,
          'answerClarify',
          handle.executeUpdate('answerClarify', { args: [arg], updateId: `u${i}-answer` }),
          valid ? 'any' : 'reject',
          `u${i}-answer`,
        );
        await settled(t, 10_000);
        return `${valid ? 'pending question' : 'no matching question'}: ${outcomeOf(t)}`;
      }
      case 'compress': {
        const t = track(
          i,
          'compress',
          handle.executeUpdate('compress', { args: [op.focus ? { focus: op.focus } : {}], updateId: `u${i}-compress` }),
          'any',
          `u${i}-compress`,
        );
        await settled(t, 300);
        return t.settledAt === undefined ? 'sent (tracked)' : outcomeOf(t);
      }
      case 'query': {
        const st = await within(handle.query<ConversationStateView>('state'), 30_000, 'state query');
        return `${st.status} turn ${st.turn} queued ${st.queued_messages.length} session ${st.session_id}`;
      }
      case 'badUpdate': {
        const updateId = `u${i}-bad`;
        const t = track(
          i,
          `bad ${op.name}`,
          handle.executeUpdate(op.name, { args: [materializeValue(op.arg)], updateId }),
          'reject',
          updateId,
        );
        await settled(t, 10_000);
        return outcomeOf(t);
      }
      case 'badSignal': {
        const arg = materializeValue(op.arg);
        await signal(op.name, [arg]);
        return 'delivered';
      }
      case 'rawSignal': {
        await within(
          stack.temporal.workflowService.signalWorkflowExecution({
            namespace,
            workflowExecution: { workflowId },
            signalName: op.name,
            input: { payloads: [rawPayload(op.encoding, op.data)] },
            identity: 'fuzzer',
            requestId: randomUUID(),
          }),
          30_000,
          'raw signal',
        );
        return 'delivered';
      }
      case 'rawUpdate': {
        const updateId = `u${i}-raw`;
        const p = stack.temporal.workflowService
          .updateWorkflowExecution({
            namespace,
            workflowExecution: { workflowId },
            waitPolicy: {
              lifecycleStage:
                temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage
                  .UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED,
            },
            request: {
              meta: { updateId, identity: 'fuzzer' },
              input: { name: op.name, args: { payloads: [rawPayload(op.encoding, op.data)] } },
            },
          })
          .then((res) => {
            if (res.outcome?.failure) throw new Error(`rejected: ${res.outcome.failure.message ?? ''}`);
            return { stage: res.stage, success: res.outcome?.success ? 'completed' : 'accepted' };
          });
        const t = track(i, `raw update ${op.name}`, p, 'reject', updateId);
        await settled(t, 10_000);
        return outcomeOf(t);
      }
      case 'startSpoof': {
        const sessionId = `${conversationId}-spoof${i}`;
        const carried =
          op.variant === 'garbage'
            ? { conversationId: 42, queue: 'not a queue', recentResults: null }
            : victimState(conversationId, op.tag, stack.fake.url);
        const side: SideWorkflow = {
          op: i,
          kind: 'spoof',
          workflowId: workflowIdFor(sessionId),
          sessionId,
          note: op.variant,
          tag: op.tag,
        };
        rec.side.push(side);
        try {
          await stack.temporal.workflow.start(CONVERSATION_WORKFLOW, {
            taskQueue: stack.taskQueue,
            workflowId: side.workflowId,
            args: [{ sessionId, carried }],
          });
          return 'started';
        } catch (err) {
          side.startError = errText(err);
          return `error ${side.startError}`;
        }
      }
      case 'badStart': {
        const sessionId = `${conversationId}-bad${i}`;
        const side: SideWorkflow = {
          op: i,
          kind: 'badStart',
          workflowId: workflowIdFor(sessionId),
          sessionId,
          note: op.note,
        };
        rec.side.push(side);
        try {
          await stack.temporal.workflow.start(CONVERSATION_WORKFLOW, {
            taskQueue: stack.taskQueue,
            workflowId: side.workflowId,
            args: [materializeValue(op.input)],
          });
          return 'started';
        } catch (err) {
          side.startError = errText(err);
          return `error ${side.startError}`;
        }
      }
      case 'restartWorker': {
        if (worker) await within(worker.shutdown(), 60_000, 'worker shutdown');
        worker = undefined;
        await sleep(op.downMs);
        worker = await stack.startWorker();
        rec.restarts += 1;
        return 'restarted';
      }
      case 'sleep':
        await sleep(op.ms);
        return 'slept';
      case 'waitFor': {
        const until = Date.now() + op.timeoutMs;
        let st: ConversationStateView | undefined;
        while (Date.now() < until) {
          st = await query();
          if (st?.status === 'ended') return 'not reached: the conversation ended';
          if (st) {
            const human = st.pending_approvals.length > 0 || st.clarify !== null;
            const busy = !['idle', 'ended'].includes(st.status);
            if (op.status === 'human' ? human : op.status === 'busy' ? busy : !busy && st.queued_messages.length === 0)
              return `reached (${st.status})`;
          }
          await sleep(200);
        }
        return `not reached (${st?.status ?? 'no answer'})`;
      }
    }
  }

  await drain();
  rec.diagnosis = await diagnose();
  rec.openAtQuiescence = !(await isClosed());
  // Sessions first, then the state: the workflow marks itself ended before it ends the session
  // row, so a session seen ended is explained by a state read after it (an idle timeout may fire
  // between the two reads).
  rec.sessionsAtQuiescence = (
    await stack.db.query<SessionSnapshot>(
      'SELECT id, parent_id, ended_at, end_reason FROM sessions WHERE conversation_id = $1',
      [conversationId],
    )
  ).rows;
  const atQuiescence = rec.openAtQuiescence ? await query() : undefined;
  rec.endedAtQuiescence = atQuiescence?.status === 'ended';
  rec.ignoredAtQuiescence = atQuiescence?.ignored_messages?.count ?? 0;
  await closeConversation();
  return rec;

  /** What the conversation is doing now: for reports of cases that did not go quiet. */
  async function diagnose(): Promise<string> {
    const parts: string[] = [];
    try {
      const d = await within(handle.describe(), 15_000, 'describe');
      parts.push(`status ${d.status.name}`);
      const wft = d.raw.pendingWorkflowTask;
      if (wft) parts.push(`pending workflow task attempt ${wft.attempt ?? 1}`);
      for (const a of d.raw.pendingActivities ?? [])
        parts.push(
          `pending activity ${a.activityType?.name ?? '?'} attempt ${a.attempt ?? 1} state ${a.state ?? '?'}${a.lastFailure?.message ? ` last failure: ${a.lastFailure.message.slice(0, 200)}` : ''}`,
        );
      if (d.status.name === 'RUNNING') {
        const st = await query();
        if (st)
          parts.push(
            `state ${st.status}, turn ${st.turn}, queued ${st.queued_messages.length}, approvals ${st.pending_approvals.length}, clarify ${st.clarify ? 'yes' : 'no'}, session ${st.session_id}, last error ${st.last_error?.slice(0, 200) ?? 'none'}`,
          );
        else parts.push('state query did not answer');
      }
    } catch (err) {
      parts.push(`describe failed: ${errText(err)}`);
    }
    return parts.join('; ');
  }

  async function wedgedNow(): Promise<string | undefined> {
    try {
      const attempt = (await within(handle.describe(), 15_000, 'describe')).raw.pendingWorkflowTask?.attempt ?? 0;
      rec.maxWftAttempt = Math.max(rec.maxWftAttempt, attempt);
      return attempt >= 3 ? `wedged: workflow task attempt ${attempt}` : undefined;
    } catch {
      return undefined;
    }
  }

  async function isClosed(): Promise<boolean> {
    try {
      const d = await within(handle.describe(), 15_000, 'describe');
      return d.status.name !== 'RUNNING';
    } catch {
      return false;
    }
  }

  /** Play the attentive user until nothing is running, nothing waits and every call has its answer. */
  async function drain(): Promise<void> {
    const deadline = Date.now() + drainTimeoutMs;
    let quietSince: number | undefined;
    for (;;) {
      const pending = rec.tracked.filter((t) => t.settledAt === undefined);
      if (Date.now() > deadline)
        return finish(false, `not quiet after ${drainTimeoutMs} ms (${pending.length} calls pending)`);
      let d;
      try {
        d = await within(handle.describe(), 15_000, 'describe');
      } catch (err) {
        await sleep(500);
        if (Date.now() > deadline) return finish(false, `describe failed: ${errText(err)}`);
        continue;
      }
      if (d.status.name !== 'RUNNING') {
        if (!pending.length) return finish(true, `closed (${d.status.name})`);
        quietSince ??= Date.now();
        if (Date.now() - quietSince > 10_000)
          return finish(true, `closed (${d.status.name}) with ${pending.length} calls pending`);
        await sleep(300);
        continue;
      }
      const attempt = d.raw.pendingWorkflowTask?.attempt ?? 0;
      rec.maxWftAttempt = Math.max(rec.maxWftAttempt, attempt);
      if (attempt >= 3) return finish(false, `wedged: workflow task attempt ${attempt}`);
      const st = await query();
      if (st) {
        for (const a of st.pending_approvals) {
          const decision = parseInt(a.request_id.replace(/\D/g, '').slice(-3) || '0', 10) % 2 ? 'once' : 'deny';
          await within(
            handle.executeUpdate('approve', { args: [{ requestId: a.request_id, decision }] }),
            20_000,
            'approve',
          ).catch(() => {});
        }
        if (st.clarify)
          await within(handle.executeUpdate('answerClarify', { args: [{ answer: 'a' }] }), 20_000, 'answer').catch(
            () => {},
          );
      }
      const quiet =
        st !== undefined &&
        (st.status === 'idle' || st.status === 'ended') &&
        st.queued_messages.length === 0 &&
        st.pending_approvals.length === 0 &&
        st.clarify === null;
      if (!quiet) quietSince = undefined;
      else {
        quietSince ??= Date.now();
        if (!pending.length && Date.now() - quietSince > 1_000) return finish(true, 'quiet');
        // Nothing runs, nothing waits for the user, yet a call has no answer: it is hung.
        if (pending.length && Date.now() - quietSince > 10_000)
          return finish(
            true,
            `quiet, but ${pending.length} calls still pending: ${pending.map((t) => `#${t.op} ${t.label}`).join(', ')}`,
          );
      }
      await sleep(300);
    }
  }
  function finish(quiet: boolean, note: string): void {
    rec.drain = { quiet, note, at: Date.now() - t0 };
    log(`[fuzz ${sc.seed}] drain: ${note}`);
  }

  async function waitClosed(ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (await isClosed()) return true;
      await sleep(300);
    }
    return isClosed();
  }

  /** Close the conversation the way it should close (end signal, idle timeout), else end it; note what happened. */
  async function closeConversation(): Promise<void> {
    const started = Date.now();
    if (!rec.openAtQuiescence) {
      rec.close = { by: 'already', closed: true, finallyClosed: true, waitedMs: 0 };
      return;
    }
    // A wedged workflow takes the end signal only if its next task succeeds: no need to wait long.
    const wedge = rec.drain.note.startsWith('wedged');
    let by: RunRecord['close']['by'] = 'fuzzer-end';
    let closed = false;
    if (rec.endDelivered) {
      by = 'end';
      closed = await waitClosed(wedge ? 5_000 : 15_000);
    } else if (sc.start.idleTimeout && rec.drain.quiet) {
      by = 'idle';
      closed = await waitClosed(parseInt(sc.start.idleTimeout, 10) * 1000 + 30_000);
    }
    let finallyClosed = closed;
    if (!closed) {
      await signal('end', [{ reason: 'fuzzer done' }]).catch(() => {});
      finallyClosed = await waitClosed(wedge || by !== 'fuzzer-end' ? 10_000 : 30_000);
      if (by === 'fuzzer-end') closed = finallyClosed;
    }
    rec.close = { by, closed, finallyClosed, waitedMs: Date.now() - started };
    log(
      `[fuzz ${sc.seed}] close by ${by}: ${closed ? 'closed' : finallyClosed ? 'closed only by the fuzzer end' : 'STILL RUNNING'} after ${rec.close.waitedMs} ms`,
    );
  }
}

function rawPayload(encoding: string, data: string) {
  return { metadata: { encoding: Buffer.from(encoding) }, data: Buffer.from(data, 'base64') };
}

/** A carried state that passes the schema and points at another conversation's session. */
function victimState(victim: string, tag: string, baseUrl: string) {
  const provider = { provider: 'custom', model: FAKE_MODEL, apiMode: 'chat_completions', baseUrl, apiKeyEnv: '' };
  const usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    total_tokens: 0,
    cost_usd: 0,
  };
  return {
    conversationId: victim,
    sessionId: victim,
    nextSeq: 0,
    turn: 0,
    provider,
    cwd: '/',
    tools: ['read_file', 'terminal'],
    searchAttributes: false,
    maxIterations: 3,
    busyPolicy: 'queue',
    sessionUsage: usage,
    sessionApiCalls: 0,
    queue: [{ id: `spoof-${tag}`, text: `[[fz ${tag} plan=text]] injected through carried state`, awaited: false }],
    pendingSteer: [],
    recentResults: [],
    lastResult: null,
    lastError: null,
    titleSet: true,
  };
}
