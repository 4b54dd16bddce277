/**
 * Orchestration overhead, the two figures docs/reliability.md states (goals: per-step p50 ≤ 20 ms, a
 * 1-step turn ≤ 50 ms):
 *   - per step: in a 10-step tool turn, the time between one activity's end and the next one's
 *     start, read from the history's own event timestamps (the server's clock): what Temporal,
 *     the workflow and its store steps add between a model call and a tool call, and back;
 *   - a 1-step turn: the client's wall time for `send()` on an existing conversation minus the
 *     model call's time at the provider (request received → response complete).
 * The fake provider answers at once, so everything measured is Herald + Temporal + Postgres.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import { tsToMs } from '@temporalio/common/lib/time.js';
import type { ScriptedReply } from '../test/support/fake-provider.js';
import type { TestStack } from '../test/support/stack.js';

export interface OverheadFigures {
  /** Gaps between consecutive activities of the tool turn, in ms. */
  stepGaps: number[];
  /** A 1-step turn's wall time minus its model call, in ms, one per turn measured. */
  oneStep: number[];
  /** Workflow tasks a 1-step turn took, on average (each one a round trip to the server). */
  tasksPerTurn: number;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The activities that are a turn's steps; store steps between them are part of the overhead. */
const STEP_ACTIVITIES = new Set(['callModel', 'runTool']);

/** Per step activity (in schedule order): when it started and when it completed, from the history. */
export function stepSpans(events: HistoryEvent[]): Array<{ started: number; completed: number }> {
  const at = new Map<number, number>();
  const type = new Map<number, string>();
  for (const e of events) {
    if (e.eventId && e.eventTime) at.set(Number(e.eventId), tsToMs(e.eventTime));
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name) type.set(Number(e.eventId), name);
  }
  const spans: Array<{ scheduled: number; started: number; completed: number }> = [];
  for (const e of events) {
    const done = e.activityTaskCompletedEventAttributes;
    if (!done || !e.eventTime || !STEP_ACTIVITIES.has(type.get(Number(done.scheduledEventId)) ?? '')) continue;
    const started = at.get(Number(done.startedEventId));
    if (started === undefined) continue;
    spans.push({ scheduled: Number(done.scheduledEventId), started, completed: tsToMs(e.eventTime) });
  }
  return spans.sort((a, b) => a.scheduled - b.scheduled);
}

/** The gaps between one step's completion and the next one's start (the turn's steps run one at a time). */
export function stepGaps(events: HistoryEvent[]): number[] {
  const spans = stepSpans(events);
  return spans.slice(1).map((s, i) => s.started - spans[i]!.completed);
}

export async function measureOverhead(stack: TestStack, cwd: string, quick: boolean): Promise<OverheadFigures> {
  // A 10-step turn: ten tool calls one after another, then the answer. Each reads another file:
  // the loop guard answers a repeated identical call itself, without a tool activity.
  const script: ScriptedReply[] = [];
  for (let i = 0; i < 10; i++) {
    writeFileSync(join(cwd, `step-${i}.txt`), `step ${i}\n`);
    script.push({ toolCalls: [{ name: 'read_file', arguments: { path: `step-${i}.txt` } }] });
  }
  script.push({ text: 'done' });
  stack.fake.reset().script(script);
  const tools = stack.herald.conversation('bench-overhead-steps');
  await tools.send('go', { start: { cwd } });
  const history = await stack.temporal.workflow.getHandle(tools.workflowId).fetchHistory();
  const gaps = stepGaps(history.events ?? []);

  // 1-step turns on a conversation that is already running (its first turn also starts it).
  const conv = stack.herald.conversation('bench-overhead-one');
  stack.fake.reset().script([{ text: 'warm' }]);
  await conv.send('warm up', { start: { cwd } });
  const handle = stack.temporal.workflow.getHandle(conv.workflowId);
  const warmEvents = Number((await handle.describe()).historyLength);
  const turns = quick ? 10 : 30;
  const oneStep: number[] = [];
  for (let i = 0; i < turns; i++) {
    stack.fake.reset().script([{ text: `answer ${i}` }]);
    const t0 = Date.now();
    await conv.send(`question ${i}`, { start: { cwd } });
    const wall = Date.now() - t0;
    const req = stack.fake.requests[0]!;
    oneStep.push(wall - ((req.completedAt ?? req.receivedAt) - req.receivedAt));
  }
  const tasks = ((await handle.fetchHistory()).events ?? []).filter(
    (e) => Number(e.eventId) > warmEvents && e.workflowTaskCompletedEventAttributes,
  ).length;
  return { stepGaps: gaps, oneStep, tasksPerTurn: tasks / turns };
}
