/**
 * What a chaos run must show, per conversation, against the fault-free run of the same script:
 *  - answered: every turn answered before the deadline, and the workflow completed after `end`;
 *  - results: each turn completed, with the final answer of the fault-free run (which must itself
 *    be the answer the script predicts);
 *  - transcript: the stored messages are the fault-free run's, message by message and in order —
 *    nothing duplicated, nothing missing — except that a tool result Herald marked as re-run after
 *    a worker restart may differ (it says so); an unmarked difference is a violation;
 *  - client: `Conversation.send` never threw at the caller (it resends through an outage itself);
 *  - model: no request the model received was malformed (a duplicated or missing message);
 *  - retries: no failed workflow task in any run's history, and no activity past `maxAttempts`.
 */
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { Db } from '../../../store/db.js';
import { loadTranscript } from '../../../store/messages.js';
import type { StoredMessage } from '../../../common/messages.js';
import { runsOf } from '../histories.js';
import type { ConversationRun } from './driver.js';
import { turnScript } from './script.js';

const { EventType, WorkflowTaskFailedCause } = proto.temporal.api.enums.v1;

/** Herald's note on a tool result that ran again (activities/tools/run-tool.ts), as the transcript holds it. */
const RE_RUN = /^\[herald:[0-9a-f]{16}\] \[re-executed after worker restart[^\]\n]*\]\n/;

export interface HistoryFacts {
  runs: number;
  workflowTaskFailures: string[];
  workflowTaskTimeouts: number;
  /** Highest attempt of any activity, and which. */
  maxAttempt: { attempt: number; activity: string };
  /** Activities that needed more than one attempt, by type. */
  retriedActivities: Record<string, number>;
  /** Why the attempt before the last one failed, by activity type and message (numbers masked). */
  retryCauses: Record<string, number>;
  activityFailures: number;
}

export interface Verdict {
  c: number;
  sessionId: string;
  violations: string[];
  reRuns: number;
  /** Marked re-runs whose result differs from the fault-free run's (allowed: Herald said so). */
  reRunsDiffering: number;
  resends: number;
  history?: HistoryFacts;
  turnMs: number[];
}

export async function historyFacts(client: Client, workflowId: string): Promise<HistoryFacts> {
  const runs = await runsOf(client, workflowId);
  const facts: HistoryFacts = {
    runs: runs.length,
    workflowTaskFailures: [],
    workflowTaskTimeouts: 0,
    maxAttempt: { attempt: 0, activity: '' },
    retriedActivities: {},
    retryCauses: {},
    activityFailures: 0,
  };
  for (const r of runs) {
    const scheduled = new Map<string, string>();
    for (const e of r.events) {
      const id = String(e.eventId ?? '');
      switch (e.eventType) {
        case EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED: {
          const a = e.workflowTaskFailedEventAttributes;
          facts.workflowTaskFailures.push(
            `${WorkflowTaskFailedCause[a?.cause ?? 0]}: ${a?.failure?.message ?? ''}`.slice(0, 300),
          );
          break;
        }
        case EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
          facts.workflowTaskTimeouts += 1;
          break;
        case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
          scheduled.set(id, e.activityTaskScheduledEventAttributes?.activityType?.name ?? '?');
          break;
        case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
          // Written when the activity closes, with the attempt that closed it.
          const a = e.activityTaskStartedEventAttributes;
          const type = scheduled.get(String(a?.scheduledEventId ?? '')) ?? '?';
          const attempt = a?.attempt ?? 1;
          if (attempt > facts.maxAttempt.attempt) facts.maxAttempt = { attempt, activity: type };
          if (attempt > 1) {
            facts.retriedActivities[type] = (facts.retriedActivities[type] ?? 0) + 1;
            const why = causeOf(a?.lastFailure);
            const key = `${type}: ${why}`;
            facts.retryCauses[key] = (facts.retryCauses[key] ?? 0) + 1;
          }
          break;
        }
        case EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
        case EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
          facts.activityFailures += 1;
          break;
      }
    }
  }
  return facts;
}

/** The wall time a terminal result ends with (`[exit code 0, 1.2s]`): the one part of a result that is not content. */
const DURATION = /(\[(?:exit code -?\d+|killed by \w+|killed after \d+s timeout)), \d+(?:\.\d+)?s\]/g;

/** A failure in one line: its innermost message, ids and numbers masked so alike causes count together. */
function causeOf(f: proto.temporal.api.failure.v1.IFailure | null | undefined): string {
  let x = f;
  const parts: string[] = [];
  while (x) {
    const kind = x.timeoutFailureInfo
      ? `timeout ${x.timeoutFailureInfo.timeoutType ?? ''}`
      : (x.applicationFailureInfo?.type ?? '');
    parts.push(`${kind ? `${kind}: ` : ''}${x.message ?? ''}`);
    x = x.cause;
  }
  return (parts.at(-1) ?? 'unknown').replace(/[0-9a-f]{8,}|\d+/g, 'N').slice(0, 160);
}

/** A message as compared: everything but what a re-run note adds and how long a command took. */
function comparable(m: StoredMessage): { marked: boolean; text: string } {
  const content = m.role === 'tool' ? (m.content ?? '').replace(DURATION, '$1, _s]') : (m.content ?? '');
  const marked = m.role === 'tool' && RE_RUN.test(content);
  const { seq, role, tool_calls, tool_call_id, name, reasoning } = m;
  return {
    marked,
    text: JSON.stringify({
      seq,
      role,
      content: marked ? content.replace(RE_RUN, '') : m.content === null ? null : content,
      tool_calls,
      tool_call_id,
      name,
      reasoning,
    }),
  };
}

const short = (s: string) => (s.length > 240 ? `${s.slice(0, 240)}…` : s);

export interface CheckInput {
  seed: number;
  turns: number;
  run: ConversationRun;
  baseline: ConversationRun;
  transcript: StoredMessage[];
  baselineTranscript: StoredMessage[];
  storedRows: number;
  anomalies: string[];
  history: HistoryFacts | undefined;
  historyError?: string;
  maxAttempts: number;
}

export function judge(i: CheckInput): Verdict {
  const v: Verdict = {
    c: i.run.c,
    sessionId: i.run.sessionId,
    violations: [],
    reRuns: 0,
    reRunsDiffering: 0,
    resends: i.run.turns.reduce((n, t) => n + t.errors.length, 0),
    turnMs: i.run.turns.map((t) => t.ms),
    ...(i.history ? { history: i.history } : {}),
  };
  const fail = (invariant: string, what: string) => v.violations.push(`${invariant}: ${what}`);

  // answered
  // Whether the workflow finished at all after `end` tells a slow conversation from a wedged one.
  const after = i.run.closed ? 'the workflow finished later: slow, not wedged' : 'the workflow never finished';
  for (let t = 1; t <= i.turns; t++) {
    const got = i.run.turns.find((x) => x.turn === t);
    if (!got) fail('answered', `turn ${t} was never sent (an earlier turn gave up)`);
    else if (got.gaveUp) fail('answered', `turn ${t}: ${got.gaveUp} (${after})`);
  }
  if (!i.run.closed)
    fail('answered', `the workflow did not complete after end: ${i.run.closeErrors.at(-1) ?? 'no answer'}`);

  // results
  for (const got of i.run.turns) {
    if (!got.result) continue;
    const base = i.baseline.turns.find((x) => x.turn === got.turn)?.result;
    const expected = turnScript(i.seed, i.run.c, got.turn).expected;
    if (!got.result.completed)
      fail('results', `turn ${got.turn} did not complete: ${got.result.turn_exit_reason} ${got.result.error ?? ''}`);
    else if (got.result.final_response !== expected)
      fail(
        'results',
        `turn ${got.turn} answered ${JSON.stringify(short(got.result.final_response ?? ''))}, expected ${JSON.stringify(expected)}`,
      );
    if (base && base.final_response !== got.result.final_response)
      fail(
        'results',
        `turn ${got.turn}: the fault-free run answered ${JSON.stringify(short(base.final_response ?? ''))}`,
      );
  }

  // transcript
  const a = i.baselineTranscript.map(comparable);
  const b = i.transcript.map(comparable);
  for (const [k, m] of i.transcript.entries())
    if (m.seq !== k) {
      fail('transcript', `sequence numbers are not 0..n-1: position ${k} holds seq ${m.seq}`);
      break;
    }
  if (i.storedRows !== i.transcript.length)
    fail('transcript', `${i.storedRows} message rows stored, ${i.transcript.length} in the transcript`);
  const n = Math.max(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const x = a[k];
    const y = b[k];
    if (!x || !y) {
      fail(
        'transcript',
        `${b.length} messages, the fault-free run has ${a.length}: ${y ? `extra ${short(y.text)}` : `missing ${short(x!.text)}`}`,
      );
      break;
    }
    if (y.marked) v.reRuns += 1;
    if (x.text === y.text) continue;
    // A marked re-run may see its earlier run's effect — in either run: on a starved machine the
    // fault-free run's workers miss heartbeats too, and Temporal runs the tool again there.
    if ((x.marked || y.marked) && sameCall(i.baselineTranscript[k]!, i.transcript[k]!)) {
      v.reRunsDiffering += 1;
      continue;
    }
    fail('transcript', `message ${k} differs: got ${short(y.text)}, fault-free ${short(x.text)}`);
    break;
  }

  // client: Conversation.send itself rides out a restart (client/transient.ts); an error the caller saw is a failure
  for (const t of i.run.turns)
    if (t.errors.length) fail('client', `turn ${t.turn}: send threw ${t.errors.length}× (first: ${t.errors[0]})`);

  // model
  for (const what of i.anomalies) fail('model', what);

  // retries
  if (i.historyError) fail('retries', `history unreadable: ${i.historyError}`);
  if (i.history) {
    if (i.history.workflowTaskFailures.length)
      fail(
        'retries',
        `${i.history.workflowTaskFailures.length} failed workflow task(s): ${i.history.workflowTaskFailures[0]}`,
      );
    if (i.history.maxAttempt.attempt > i.maxAttempts)
      fail(
        'retries',
        `${i.history.maxAttempt.activity} took ${i.history.maxAttempt.attempt} attempts (bound ${i.maxAttempts})`,
      );
  }
  return v;
}

/** The same tool result slot: same sequence number, call id and tool. */
function sameCall(x: StoredMessage, y: StoredMessage): boolean {
  return (
    x.seq === y.seq && x.role === 'tool' && y.role === 'tool' && x.tool_call_id === y.tool_call_id && x.name === y.name
  );
}

export async function loadForCheck(db: Db, sessionId: string): Promise<{ transcript: StoredMessage[]; rows: number }> {
  const transcript = await loadTranscript(db, sessionId);
  const r = await db.query<{ n: string }>('SELECT count(*) AS n FROM messages WHERE session_id = $1', [sessionId]);
  return { transcript, rows: Number(r.rows[0]?.n ?? 0) };
}
