/**
 * The invariants a fuzzed conversation must keep, checked after it went quiet and closed:
 *   I1 no workflow task fails twice in a row (a wedged workflow), in any run of the chain. A task
 *      the server force-closes (FORCE_CLOSE_COMMAND) because the signals and updates buffered while
 *      it ran passed the server's own limits (2 MB or 100 events by default) is not counted: that is
 *      the server's flood control, which no workflow can avoid when a client sends megabytes faster
 *      than any task completes (fuzz seeds 3 and 9: six 1 MB signals within 40 ms of a task's
 *      start); it does not count as an attempt, each one flushes the buffer into history, and it
 *      stops when the flood does. Such a run must still complete a task after the flood: one whose
 *      last task event is a force-close while it runs still counts;
 *   I2 every accepted message is answered or recorded exactly once, never twice; rejected ones never;
 *   I3 every session's transcript keeps the role order (isValidOrder);
 *   I4 every run's history stays under bounds;
 *   I5 the session is ended iff the workflow closed, and it closes when it should (end, idle timeout);
 *   I6 no client call hangs;
 *   I7 malformed input is refused: invalid updates rejected, invalid starts failed, carried state never adopted.
 */
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';

const { temporal } = proto;
import { MAX_MESSAGE_CHARS, messageSizeIssue } from '../../../common/contract.js';
import type { TurnResult } from '../../../common/contract.js';
import { isValidOrder } from '../../../shared/role-order.js';
import type { TestStack } from '../stack.js';
import type { MessageAttempt, RunRecord, SessionSnapshot } from './runner.js';
import { errText, within } from './runner.js';
import type { TextSpec } from './ops.js';
import { describeOp, materialize, tagMarker } from './ops.js';

/**
 * Herald continues as new past 8,000 events or 8 MB between turns and stops a turn past 30,000 or
 * 30 MB (workflows/limits.ts); a run must stay clear of Temporal's own 51,200 events and 50 MB.
 */
export const HISTORY_MAX_BYTES = 40 * 1024 * 1024;
export const HISTORY_MAX_EVENTS = 40_000;

export interface Violation {
  invariant: 'I1' | 'I2' | 'I3' | 'I4' | 'I5' | 'I6' | 'I7';
  message: string;
  /** Operations involved (indices into scenario.ops; -1 is the start input). */
  ops: number[];
}

export interface RunFacts {
  runId: string;
  status: string;
  historyLength: number;
  historySizeBytes: number;
  /** Longest run of failed workflow tasks, and the first failure of that run. */
  wftStreak: number;
  wftFailure?: string;
  /** Tasks force-closed by the server's flood control (not counted in the streak; see I1). */
  forceClosed: number;
  accepted: Set<string>;
  completed: Set<string>;
  failure?: string;
}

export interface Facts {
  runs: RunFacts[];
  sessions: number;
  messages: number;
  /** Model calls by kind, and how the run ended: for coverage reports. */
  coverage: Record<string, number>;
}

const { WorkflowTaskFailedCause } = temporal.api.enums.v1;
/** The server failed the task because events buffered during it passed its limits (see I1). */
const FLOOD = WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND;
/** Failures a busy workflow may see once or twice without being wedged. */
const BENIGN = new Set<number>([
  WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
  WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_STICKY_TASK_QUEUE,
]);

async function runIdsOf(client: Client, workflowId: string, first: Iterable<string>): Promise<string[]> {
  const ids = new Set<string>(first);
  try {
    for await (const w of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) ids.add(w.runId);
  } catch {
    // visibility is a cross-check; the continue-as-new chain below is authoritative
  }
  return [...ids];
}

/** A client whose connection takes the largest histories in one piece (the default limit is 4 MB). */
export async function inspector(stack: TestStack): Promise<Client> {
  const connection = await Connection.connect({
    address: stack.temporalAddress,
    channelArgs: { 'grpc.max_receive_message_length': 256 * 1024 * 1024 },
  });
  return new Client({ connection, namespace: stack.temporal.options.namespace });
}

async function runFacts(client: Client, workflowId: string, runId: string): Promise<RunFacts & { next?: string }> {
  const h = client.workflow.getHandle(workflowId, runId);
  const d = await within(h.describe(), 30_000, 'describe');
  const history = await within(h.fetchHistory(), 120_000, 'fetch history');
  const info = d.raw.workflowExecutionInfo;
  const f: RunFacts & { next?: string } = {
    runId,
    status: d.status.name,
    historyLength: Number(info?.historyLength ?? 0),
    historySizeBytes: Number(info?.historySizeBytes ?? 0),
    wftStreak: 0,
    forceClosed: 0,
    accepted: new Set(),
    completed: new Set(),
  };
  let streak = 0;
  let benignStart = false;
  let lastWasFailure = false;
  let current: string | undefined;
  /** The last task event was a force-close (no task has completed since). */
  let flooded = false;
  const note = (n: number) => {
    const effective = benignStart ? n - 2 : n;
    if (effective > f.wftStreak) {
      f.wftStreak = effective;
      if (current) f.wftFailure = current;
    }
  };
  for (const e of history.events ?? []) {
    const failed = e.workflowTaskFailedEventAttributes;
    if (failed && failed.cause === FLOOD) {
      // Neither a failure of the workflow's nor the end of a streak of them.
      f.forceClosed += 1;
      flooded = true;
      continue;
    }
    if (failed) {
      flooded = false;
      if (streak === 0) {
        benignStart = BENIGN.has(failed.cause ?? 0);
        current = `${WorkflowTaskFailedCause[failed.cause ?? 0]}: ${failed.failure?.message ?? ''}`.slice(0, 400);
      }
      streak += 1;
      lastWasFailure = true;
      note(streak);
      continue;
    }
    const scheduled = e.workflowTaskScheduledEventAttributes;
    // After a failure, retries are not written to history until one completes: the attempt says how many failed.
    if (scheduled && lastWasFailure && (scheduled.attempt ?? 1) > 1) {
      streak = Math.max(streak, (scheduled.attempt ?? 1) - 1);
      note(streak);
    }
    if (e.workflowTaskCompletedEventAttributes) {
      streak = 0;
      lastWasFailure = false;
      flooded = false;
    }
    const acc = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId;
    if (acc) f.accepted.add(acc);
    const done = e.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId;
    if (done) f.completed.add(done);
    const can = e.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (can) f.next = can;
    const failedRun = e.workflowExecutionFailedEventAttributes?.failure;
    if (failedRun) f.failure = `${failedRun.applicationFailureInfo?.type ?? ''} ${failedRun.message ?? ''}`.trim();
  }
  const pending = d.raw.pendingWorkflowTask?.attempt ?? 0;
  if (f.status === 'RUNNING' && lastWasFailure && pending > 1) note(Math.max(streak, pending - 1));
  if (f.status === 'RUNNING' && flooded && f.wftStreak < 2) {
    // Quiet, and still no task completed after the flood: the run is stuck, whoever failed it.
    f.wftStreak = 2;
    f.wftFailure = `${WorkflowTaskFailedCause[FLOOD]}: no task completed after the flood`;
  }
  return f;
}

/** Every run of a workflow id: all executions, each followed along its continue-as-new chain. */
export async function chainFacts(client: Client, workflowId: string, first: Iterable<string>): Promise<RunFacts[]> {
  const out = new Map<string, RunFacts>();
  const todo = await runIdsOf(client, workflowId, first);
  while (todo.length) {
    const id = todo.shift()!;
    if (out.has(id)) continue;
    const f = await runFacts(client, workflowId, id);
    out.set(id, f);
    if (f.next && !out.has(f.next)) todo.push(f.next);
  }
  return [...out.values()];
}

interface Row {
  session_id: string;
  seq: number;
  role: string;
  message_id: string | null;
  tool_call_id: string | null;
  content: string | null;
}

/** How often each tag was recorded: user rows the workflow wrote, and tool results it was steered into. */
function countTag(rows: Row[], tag: string): number {
  const marker = tagMarker(tag);
  // Compression copies the kept user messages into the new session: count within each session,
  // where a message that ran twice would stand twice.
  const perSession = new Map<string, number>();
  for (const r of rows)
    if (r.role === 'user' && r.message_id !== null && r.content?.includes(marker))
      perSession.set(r.session_id, (perSession.get(r.session_id) ?? 0) + 1);
  const users = Math.max(0, ...perSession.values());
  // Compression copies a tool result into the new session: the same call, counted once.
  const tools = new Set(
    rows
      .filter((r) => r.role === 'tool' && r.content?.includes(marker))
      .map((r) => r.tool_call_id ?? `${r.session_id}:${r.seq}`),
  );
  return users + tools.size;
}

const validText = (spec: TextSpec) => {
  const text = materialize(spec);
  return text.length >= 1 && messageSizeIssue(text) === undefined;
};

const isTurnResult = (v: unknown): v is TurnResult => !!v && typeof v === 'object' && 'turn_exit_reason' in v;

export async function checkInvariants(
  stack: TestStack,
  rec: RunRecord,
): Promise<{ violations: Violation[]; facts: Facts }> {
  const client = await inspector(stack);
  try {
    return await check(stack, client, rec);
  } finally {
    await client.connection.close();
  }
}

async function check(
  stack: TestStack,
  client: Client,
  rec: RunRecord,
): Promise<{ violations: Violation[]; facts: Facts }> {
  const v: Violation[] = [];
  const add = (invariant: Violation['invariant'], message: string, ops: number[] = []) =>
    v.push({ invariant, message, ops: [...new Set(ops)].sort((a, b) => a - b) });

  const runs = await chainFacts(client, rec.workflowId, rec.firstRunIds);
  const accepted = new Set(runs.flatMap((r) => [...r.accepted]));
  const completed = new Set(runs.flatMap((r) => [...r.completed]));
  const lastOp = rec.ops.at(-1)?.i ?? -1;

  // I1: wedged runs (the attempt the runner saw pending counts too: retries are not in history).
  if (rec.maxWftAttempt > 2 && !runs.some((r) => r.wftStreak >= rec.maxWftAttempt - 1)) {
    // Only when a task really failed (a timed-out task after a worker restart also counts an attempt).
    const r = runs.find((x) => x.wftStreak > 0);
    if (r) r.wftStreak = rec.maxWftAttempt - 1;
  }
  for (const r of runs) {
    if (r.wftStreak >= 2)
      add(
        'I1',
        `run ${r.runId} (${r.status}): ${r.wftStreak} workflow tasks failed in a row; first: ${r.wftFailure ?? '?'}`,
        [lastOp],
      );
  }

  // I4: history bounds.
  for (const r of runs) {
    if (r.historySizeBytes > HISTORY_MAX_BYTES || r.historyLength > HISTORY_MAX_EVENTS)
      add(
        'I4',
        `run ${r.runId}: history ${r.historyLength} events, ${r.historySizeBytes} bytes (bounds ${HISTORY_MAX_EVENTS} events, ${HISTORY_MAX_BYTES} bytes)`,
      );
  }

  // I6: calls that never resolved.
  const now = Date.now();
  for (const t of rec.tracked) {
    if (t.settledAt === undefined)
      add('I6', `${t.label} (op #${t.op}) never resolved: pending for ${Math.round((now - t.startedAt) / 1000)} s`, [
        t.op,
      ]);
  }

  // I7: malformed updates must be rejected.
  for (const t of rec.tracked) {
    if (t.expect !== 'reject') continue;
    if (t.ok || (t.updateId && accepted.has(t.updateId)))
      add(
        'I7',
        `malformed ${t.label} (op #${t.op}) was accepted${t.ok ? `: returned ${JSON.stringify(t.value)?.slice(0, 200)}` : ''}`,
        [t.op],
      );
  }

  // I2: messages, by tag (a re-send carries the same text and id as the original). In a wedged
  // conversation, messages that never ran are a consequence of I1, not a failure of their own.
  const wedged = v.some((x) => x.invariant === 'I1');
  const { rows: rows } = await stack.db.query<Row>(
    `SELECT m.session_id, m.seq, m.role, m.message_id, m.tool_call_id, m.content
       FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.conversation_id = $1`,
    [rec.conversationId],
  );
  const byTag = new Map<string, MessageAttempt[]>();
  for (const m of rec.messages) byTag.set(m.tag, [...(byTag.get(m.tag) ?? []), m]);
  const specOf = (m: MessageAttempt): TextSpec | undefined => {
    if (m.op < 0) return rec.scenario.start.message;
    const op = rec.scenario.ops[m.op];
    if (op && 'text' in op && typeof op.text === 'object') return op.text;
    if (op?.kind === 'burst') return { tag: m.tag, plan: ['text'], size: op.size, flavor: op.flavor };
    return undefined;
  };
  // Signals cannot be refused: one that does not fit a bound (the aggregate steer or queue bound,
  // a message over the byte cap) is ignored and counted in the state's `ignored_messages`. Delivered
  // signal messages that were never recorded are accounted for by that count, and only past it
  // are they lost.
  const unrecorded: Array<{ tag: string; text: string; ops: number[] }> = [];
  for (const [tag, attempts] of byTag) {
    const n = countTag(rows, tag);
    const ops = attempts.map((a) => a.op);
    const spec = specOf(attempts[0]!);
    const valid = spec ? validText(spec) : true;
    if (n > 1) add('I2', `message ${tag} was recorded ${n} times`, ops);
    if (!valid) {
      if (n > 0) add('I2', `invalid message ${tag} (empty or over ${MAX_MESSAGE_CHARS} characters) was recorded`, ops);
      for (const a of attempts) {
        const t = a.tracked;
        if (t && (t.ok || (t.updateId && accepted.has(t.updateId))))
          add('I7', `invalid sendMessage ${tag} (op #${a.op}) was accepted`, [a.op]);
      }
      continue;
    }
    for (const a of attempts) {
      const t = a.tracked;
      if (!t) continue;
      // An update id can be accepted in one execution and rejected in another (the same message
      // re-sent after the conversation closed): an attempt the validator rejected was not accepted.
      const rejected = t.ok === false && /^(WorkflowUpdateFailedError|WorkflowNotFoundError)/.test(t.error ?? '');
      const wasAccepted = t.ok === true || (!rejected && t.updateId !== undefined && accepted.has(t.updateId));
      if (!wasAccepted) continue;
      if (t.ok && isTurnResult(t.value)) {
        const r = t.value;
        if (a.id && r.message_id !== a.id)
          add(
            'I2',
            `sendMessage ${tag} (op #${a.op}) got the result of another message: ${r.message_id} (expected ${a.id})`,
            [a.op],
          );
        if (r.turn_exit_reason !== 'conversation_ended' && n === 0)
          add(
            'I2',
            `sendMessage ${tag} (op #${a.op}) returned turn ${r.turn} (${r.turn_exit_reason}), but the message is not in the transcript`,
            [a.op],
          );
      } else if (t.settledAt !== undefined) {
        add(
          'I2',
          `sendMessage ${tag} (op #${a.op}) was accepted but never answered: ${t.error ?? JSON.stringify(t.value)}`,
          [a.op],
        );
      }
      if (t.updateId && accepted.has(t.updateId) && !completed.has(t.updateId) && t.settledAt !== undefined && t.ok)
        add('I2', `update ${t.updateId} (op #${a.op}) returned, but its completion is in no run's history`, [a.op]);
    }
    const delivered = attempts.filter(
      (a) => (a.via === 'signal' || a.via === 'steer' || a.via === 'start') && a.delivered && !a.afterEnd,
    );
    if (
      delivered.length &&
      n === 0 &&
      !wedged &&
      rec.openAtQuiescence &&
      !rec.endedAtQuiescence &&
      !attempts.some((a) => a.tracked?.ok)
    )
      unrecorded.push({
        tag,
        text: `message ${tag} was delivered (${delivered.map((a) => `${a.via} #${a.op}`).join(', ')}) while the conversation was open, and never recorded`,
        ops,
      });
  }
  if (unrecorded.length > rec.ignoredAtQuiescence)
    for (const u of unrecorded)
      add('I2', `${u.text} (the conversation counts ${rec.ignoredAtQuiescence} ignored signal(s))`, u.ops);

  // I2: the start input's message is the first turn (signals that arrive while the session is prepared queue behind it).
  const startTag = rec.scenario.start.message?.tag;
  if (startTag && rec.messages.some((m) => m.op === -1)) {
    const firstSession = rows.filter(
      (r) => r.session_id === rec.conversationId && r.role === 'user' && r.message_id !== null,
    );
    const first = firstSession.sort((a, b) => a.seq - b.seq)[0];
    // An end delivered before the message that ran first answers the start message without
    // running it (a later start then begins with another message): that is no violation.
    const other = /\[\[fz (\S+) /.exec(first?.content ?? '')?.[1] ?? first?.message_id;
    const firstOp = Math.min(...rec.messages.filter((m) => m.tag === other).map((m) => m.op));
    const endedFirst = rec.ops.some(
      (o) => o.i < firstOp && rec.scenario.ops[o.i]?.kind === 'end' && o.outcome === 'delivered',
    );
    if (first && !endedFirst && !first.content?.includes(tagMarker(startTag))) {
      add('I2', `the start message ${startTag} did not run first: turn 1 was ${other}`, [
        -1,
        ...rec.messages.filter((m) => m.tag === other).map((m) => m.op),
      ]);
    }
  }

  // I3: role order of every session's live transcript.
  const { rows: sessions } = await stack.db.query<SessionSnapshot>(
    'SELECT id, parent_id, ended_at, end_reason FROM sessions WHERE conversation_id = $1 ORDER BY started_at, id',
    [rec.conversationId],
  );
  for (const s of sessions) {
    const t = await stack.transcript(s.id);
    if (!isValidOrder(t))
      add(
        'I3',
        `session ${s.id}: invalid role order: ${t
          .map((m) => `${m.seq}:${m.role}${m.tool_calls?.length ? `(${m.tool_calls.length} calls)` : ''}`)
          .join(' ')
          .slice(0, 600)}`,
      );
  }

  // I5: closing, and the session rows agree with the workflow.
  const latest = runs.find((r) => r.status === 'RUNNING') ?? runs.at(-1);
  const closed = latest !== undefined && latest.status !== 'RUNNING';
  if (!rec.close.closed)
    add(
      'I5',
      `the conversation should have closed (${rec.close.by === 'end' ? 'an end signal was delivered' : rec.close.by === 'idle' ? `idle timeout ${rec.scenario.start.idleTimeout}` : 'the fuzzer sent end'}) but did not${rec.close.finallyClosed ? '' : ', not even after another end signal'}`,
      [lastOp],
    );
  for (const r of runs) {
    if (['FAILED', 'TIMED_OUT', 'TERMINATED', 'CANCELED'].includes(r.status))
      add('I5', `run ${r.runId} ended ${r.status}${r.failure ? `: ${r.failure}` : ''}`);
  }
  // The head of the chain: the session no compression continued from.
  const heads = (all: SessionSnapshot[]) => all.filter((s) => !all.some((x) => x.parent_id === s.id));
  if (rec.openAtQuiescence) {
    const at = rec.sessionsAtQuiescence;
    const h = heads(at);
    if (at.length && h.length !== 1)
      add('I5', `${h.length} head sessions while running: ${h.map((s) => s.id).join(', ')}`);
    for (const s of h)
      if (s.ended_at && !rec.endedAtQuiescence)
        add(
          'I5',
          `the workflow was running (quiet, after the operations), but its session ${s.id} was ended (${s.end_reason})`,
          [lastOp],
        );
  }
  if (closed) {
    for (const s of sessions) if (!s.ended_at) add('I5', `the workflow closed, but session ${s.id} is not ended`);
  } else {
    for (const s of heads(sessions))
      if (s.ended_at) add('I5', `the workflow is still running, but its session ${s.id} is ended (${s.end_reason})`);
  }

  // I7: other conversations started with malformed input.
  for (const side of rec.side) {
    if (side.startError) continue;
    try {
      const [f] = await chainFacts(client, side.workflowId, []);
      if (!f) continue;
      if (f.wftStreak >= 2)
        add(
          'I1',
          `${side.kind} ${side.workflowId}: ${f.wftStreak} workflow tasks failed in a row; first: ${f.wftFailure ?? '?'}`,
          [side.op],
        );
      if (side.kind === 'badStart' && f.status !== 'FAILED')
        add(
          'I7',
          `conversation started with invalid input (${side.note}) is ${f.status}, expected FAILED (InvalidInput)`,
          [side.op],
        );
      if (side.kind === 'spoof') {
        const wrote = side.tag ? countTag(rows, side.tag) : 0;
        let adopted = '';
        if (f.status === 'RUNNING') {
          const st = await within(
            stack.temporal.workflow.getHandle(side.workflowId).query<{ conversation_id: string }>('state'),
            15_000,
            'state query',
          ).catch(() => undefined);
          if (st && st.conversation_id !== side.sessionId) adopted = ` (it runs as conversation ${st.conversation_id})`;
        }
        if (wrote || adopted || (side.note === 'garbage' && f.status === 'RUNNING'))
          add(
            'I7',
            `a client-supplied carried state (${side.note}) was adopted${adopted}${wrote ? `; its queued message was written into conversation ${rec.conversationId}` : ''}; status ${f.status}`,
            [side.op],
          );
      }
    } catch (err) {
      add('I7', `could not inspect ${side.workflowId}: ${errText(err)}`, [side.op]);
    }
  }

  const coverage: Record<string, number> = { ...rec.model.calls };
  coverage.runs = runs.length;
  coverage.sessions = sessions.length;
  coverage.restarts = rec.restarts;
  const forceClosed = runs.reduce((n, r) => n + r.forceClosed, 0);
  if (forceClosed) coverage['force-closed'] = forceClosed;
  coverage[`close:${rec.close.by}`] = 1;
  return { violations: v, facts: { runs, sessions: sessions.length, messages: rows.length, coverage } };
}

/** A failure report: the violations, then the operation log (ops involved marked with `!`). */
export function formatReport(rec: RunRecord, violations: Violation[], facts?: Facts): string {
  const involved = new Set(violations.flatMap((x) => x.ops));
  const sc = rec.scenario;
  const lines = [
    `seed ${sc.seed} (${sc.profile}), conversation ${rec.conversationId}: ${violations.length} violation(s)`,
    ...grouped(violations).map(
      (x) => `  [${x.invariant}] ${x.message}${x.ops.length ? ` (ops ${x.ops.map((o) => `#${o}`).join(', ')})` : ''}`,
    ),
    `start: ${JSON.stringify({ ...sc.start, message: sc.start.message?.tag })}`,
    ...(involved.has(-1) ? ['! start message'] : []),
    ...rec.ops.map((r) => `${involved.has(r.i) ? '!' : ' '} #${r.i} +${r.at}ms ${r.line} → ${r.outcome}`),
    `drain: ${rec.drain.note} (at +${rec.drain.at}ms); close by ${rec.close.by}: ${rec.close.closed ? 'closed' : 'NOT closed'}`,
    `at quiescence: ${rec.diagnosis}`,
  ];
  if (facts)
    lines.push(
      `facts: ${facts.runs.length} run(s), ${facts.sessions} session(s), ${facts.messages} rows; ${JSON.stringify(facts.coverage)}`,
    );
  return lines.join('\n');
}

/** The shape of a violation: its message with tags, ids and numbers blanked (the same failure in another seed). */
export const shapeOf = (v: Violation) =>
  `[${v.invariant}] ${v.message.replace(/s\d+m\d+(b\d+)?|fz\d+-[0-9a-f]+|[0-9a-f]{8}-[0-9a-f-]{27}|\d+/g, '#')}`;

/** Violations of the same shape in one case, as one line ("messages a, b, c (3): …"). */
function grouped(vs: Violation[]): Violation[] {
  const by = new Map<string, Violation[]>();
  for (const x of vs) by.set(shapeOf(x), [...(by.get(shapeOf(x)) ?? []), x]);
  return [...by.values()].map((g) =>
    g.length === 1
      ? g[0]!
      : {
          invariant: g[0]!.invariant,
          message: `${g.length}× ${g[0]!.message} (and ${g.length - 1} more like it)`,
          ops: [...new Set(g.flatMap((x) => x.ops))].sort((a, b) => a - b),
        },
  );
}

/** The ops of a scenario as a list, for `--ops`. */
export const opList = (rec: RunRecord) => rec.ops.map((r) => r.i).join(',');
export { describeOp };
