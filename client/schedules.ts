/**
 * Scheduled conversations from the client's side (docs/schedules.md): create, list, describe,
 * pause, unpause, trigger and delete Temporal Schedules whose runs are Herald turns. Schedule ids
 * are `herald-<name>`, so they sit next to any other schedules in the namespace and show in the
 * Web UI's Schedules page; each run is a `scheduledRun` workflow whose result names its session.
 */
import type { ScheduleDescription, ScheduleOverlapPolicy, ScheduleSummary } from '@temporalio/client';
import { ScheduleNotFoundError } from '@temporalio/client';
import type { ConversationInput } from '../common/contract.js';
import { conversationInputSchema, describeZodError, inputBoundsIssue } from '../common/contract.js';
import type { OverlapPolicy, ScheduledRunInput } from '../common/schedule.js';
import {
  MAX_SCHEDULED_MESSAGE,
  OVERLAP_POLICIES,
  SCHEDULED_RUN_ID_PREFIX,
  SCHEDULED_RUN_WORKFLOW,
  SCHEDULE_NAME_PATTERN,
  isCronLike,
  parseEvery,
  scheduleIdFor,
  scheduleNameOf,
  scheduledRunInputSchema,
} from '../common/schedule.js';
import { redactor } from '../runtime/secrets.js';
import type { HeraldClient, StartOptions } from './client.js';

/** A run that found the previous one still answering: skipped, unless the schedule says otherwise. */
export const DEFAULT_OVERLAP: OverlapPolicy = 'skip';
/** Runs missed while Temporal was down are still taken if at most this late (Temporal's own default is a year). */
export const DEFAULT_CATCHUP_WINDOW = '10 minutes';
/**
 * A session-per-run conversation ends after an hour without messages (a person can reopen it with
 * `herald chat`): scheduled runs do not pile up idle workflows for the default 30 days.
 */
export const PER_RUN_IDLE_TIMEOUT = '1 hour';

export interface ScheduleCreateOptions {
  name: string;
  message: string;
  /** A cron expression (`0 9 * * 1-5`, `@daily`), in UTC unless `timezone` is given. */
  cron?: string;
  /** An interval: `1h`, `30m`, `90s`, `2d`. */
  every?: string;
  timezone?: string;
  /** The standing session every run continues (with its memory); absent: a new session per run. */
  session?: string;
  overlap?: OverlapPolicy;
  /** `10 minutes`, `1h`, or milliseconds. */
  catchupWindow?: string | number;
  /** Conversation options for the session (model, provider, cwd, …). */
  start?: Omit<StartOptions, 'message' | 'sessionId' | 'messageId' | 'history'>;
  paused?: boolean;
  note?: string;
}

export interface ScheduleView {
  name: string;
  /** `every 1h`, `cron 0 9 * * *`, … */
  spec: string;
  /** The standing session, or null for a new session per run. */
  session: string | null;
  message: string;
  paused: boolean;
  note: string | null;
  overlap: string | null;
  nextRuns: string[];
  /** The latest runs: when each was due and its workflow (whose result names the session). */
  recentRuns: Array<{ scheduledAt: string; workflowId: string }>;
}

export class HeraldSchedules {
  constructor(private readonly herald: HeraldClient) {}

  private get temporal() {
    return this.herald.temporal.schedule;
  }

  /** Create the schedule; its input is checked here with the same schemas the run and the conversation use. */
  async create(o: ScheduleCreateOptions): Promise<ScheduleView> {
    if (!SCHEDULE_NAME_PATTERN.test(o.name))
      throw new Error(`invalid schedule name "${o.name}": 1-48 lowercase letters, digits, "-" or "_"`);
    if ((o.cron === undefined) === (o.every === undefined)) throw new Error('give exactly one of --cron and --every');
    if (o.cron !== undefined && !isCronLike(o.cron))
      throw new Error(`not a cron expression: "${o.cron}" (five fields, e.g. "0 9 * * 1-5", or @daily)`);
    const everyMs = o.every === undefined ? undefined : parseEvery(o.every);
    if (o.every !== undefined && everyMs === undefined)
      throw new Error(`not an interval: "${o.every}" (e.g. 30s, 15m, 1h, 2d; at least 1 s)`);
    const overlap = o.overlap ?? DEFAULT_OVERLAP;
    if (!OVERLAP_POLICIES.includes(overlap))
      throw new Error(`unknown overlap policy "${overlap}": one of ${OVERLAP_POLICIES.join(', ')}`);
    const message = redactor().redact(o.message);
    if (message.length > MAX_SCHEDULED_MESSAGE)
      throw new Error(`the scheduled message is too long (at most ${MAX_SCHEDULED_MESSAGE} characters)`);
    const start: Partial<ConversationInput> = {
      ...(o.session === undefined ? { idleTimeout: PER_RUN_IDLE_TIMEOUT } : {}),
      ...(o.start ?? {}),
    };
    checkStart({ ...start, sessionId: o.session ?? 'scheduled-run' });
    const args: ScheduledRunInput = {
      schedule: o.name,
      message,
      ...(o.session !== undefined ? { session: o.session } : {}),
      ...(Object.keys(start).length ? { start } : {}),
    };
    const parsed = scheduledRunInputSchema.safeParse(args);
    if (!parsed.success) throw new Error(`invalid schedule: ${describeZodError(parsed.error)}`);
    await this.temporal.create({
      scheduleId: scheduleIdFor(o.name),
      spec: {
        ...(o.cron !== undefined ? { cronExpressions: [o.cron.trim()] } : { intervals: [{ every: everyMs! }] }),
        ...(o.timezone ? { timezone: o.timezone } : {}),
      },
      action: {
        type: 'startWorkflow',
        workflowType: SCHEDULED_RUN_WORKFLOW,
        workflowId: `${SCHEDULED_RUN_ID_PREFIX}${o.name}`,
        taskQueue: this.herald.settings.taskQueue,
        args: [parsed.data],
        staticSummary: `scheduled: ${o.name}`,
      },
      policies: {
        overlap: overlap.toUpperCase() as ScheduleOverlapPolicy,
        catchupWindow: o.catchupWindow ?? DEFAULT_CATCHUP_WINDOW,
        pauseOnFailure: false,
      },
      state: { paused: Boolean(o.paused), ...(o.note ? { note: o.note } : {}) },
      // Temporal describes a cron as calendar fields: the words the schedule was made with are kept.
      memo: { heraldSpec: o.cron !== undefined ? `cron ${o.cron.trim()}` : `every ${o.every!.trim()}` },
    });
    return await this.describe(o.name);
  }

  /** Herald's schedules in the namespace (ids `herald-…`). */
  async list(): Promise<ScheduleView[]> {
    const out: ScheduleView[] = [];
    for await (const s of this.temporal.list()) {
      if (scheduleNameOf(s.scheduleId) === undefined) continue;
      if (s.action?.workflowType !== SCHEDULED_RUN_WORKFLOW) continue;
      out.push(await this.describe(scheduleNameOf(s.scheduleId)!).catch(() => summaryView(s)));
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  async describe(name: string): Promise<ScheduleView> {
    return viewOf(name, await this.handle(name).describe());
  }

  async pause(name: string, note?: string): Promise<void> {
    await this.handle(name).pause(note ?? 'paused with herald schedule pause');
  }

  async unpause(name: string, note?: string): Promise<void> {
    await this.handle(name).unpause(note ?? 'unpaused with herald schedule unpause');
  }

  /** Run it now (the schedule's overlap policy applies unless another is given). */
  async trigger(name: string, overlap?: OverlapPolicy): Promise<void> {
    await this.handle(name).trigger(overlap ? (overlap.toUpperCase() as ScheduleOverlapPolicy) : undefined);
  }

  /** Delete the schedule; runs already started go on (each is a conversation turn). */
  async delete(name: string): Promise<void> {
    await this.handle(name).delete();
  }

  private handle(name: string) {
    return this.temporal.getHandle(scheduleIdFor(name));
  }
}

/** A missing schedule, said in Herald's words. */
export function isScheduleMissing(err: unknown): boolean {
  return err instanceof ScheduleNotFoundError;
}

function checkStart(input: Record<string, unknown>): void {
  const parsed = conversationInputSchema.safeParse(input);
  if (!parsed.success) throw new Error(`invalid conversation options: ${describeZodError(parsed.error)}`);
  const issue = inputBoundsIssue(parsed.data);
  if (issue) throw new Error(`invalid conversation options: ${issue.field}: ${issue.message}`);
}

function specText(spec: ScheduleDescription['spec'] | ScheduleSummary['spec']): string {
  const parts: string[] = [];
  for (const i of spec?.intervals ?? []) parts.push(`every ${durationText(Number(i.every))}`);
  for (const c of spec?.calendars ?? []) parts.push(`calendar ${JSON.stringify(c)}`);
  if (spec && 'cronExpressions' in spec)
    for (const c of (spec as { cronExpressions?: string[] }).cronExpressions ?? []) parts.push(`cron ${c}`);
  return parts.join('; ') || '(no times)';
}

function durationText(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const)
    if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/** The spec as the schedule was made (its memo), else as Temporal describes it. */
function specOf(memo: Record<string, unknown> | undefined, spec: ScheduleSummary['spec']): string {
  const said = memo?.heraldSpec;
  return typeof said === 'string' && said.length <= 300 ? said : specText(spec);
}

function viewOf(name: string, d: ScheduleDescription): ScheduleView {
  const args = scheduledRunInputSchema.safeParse(d.action.type === 'startWorkflow' ? d.action.args?.[0] : undefined);
  return {
    name,
    spec: specOf(d.memo, d.spec),
    session: args.success ? (args.data.session ?? null) : null,
    message: args.success ? args.data.message : '',
    paused: d.state.paused,
    note: d.state.note ?? null,
    overlap: d.policies.overlap ? String(d.policies.overlap).toLowerCase() : null,
    nextRuns: d.info.nextActionTimes.slice(0, 3).map((t) => t.toISOString()),
    recentRuns: d.info.recentActions.map((a) => ({
      scheduledAt: a.scheduledAt.toISOString(),
      workflowId: a.action.workflow.workflowId,
    })),
  };
}

function summaryView(s: ScheduleSummary): ScheduleView {
  return {
    name: scheduleNameOf(s.scheduleId) ?? s.scheduleId,
    spec: specOf(s.memo, s.spec),
    session: null,
    message: '',
    paused: s.state.paused,
    note: s.state.note ?? null,
    overlap: null,
    nextRuns: s.info.nextActionTimes.slice(0, 3).map((t) => t.toISOString()),
    recentRuns: s.info.recentActions.map((a) => ({
      scheduledAt: a.scheduledAt.toISOString(),
      workflowId: a.action.workflow.workflowId,
    })),
  };
}
