/**
 * Scheduled conversations (docs/schedules.md): the names, the bounds and the input of one
 * scheduled run. A schedule is a Temporal Schedule whose action starts the small `scheduledRun`
 * workflow; that run delivers the message as a turn of a conversation (a new session per run, or
 * the next turn of a standing one) and ends with the turn. Pure: the workflow, the worker's
 * activity and the client share it.
 */
import { z } from 'zod';
import { boundedString } from './bounded-string.js';

/** Workflow type of a scheduled run. */
export const SCHEDULED_RUN_WORKFLOW = 'scheduledRun';
/** Schedule ids are `herald-<name>`: `herald schedule list` shows only these. */
export const SCHEDULE_ID_PREFIX = 'herald-';
/** A run's workflow id starts so; Temporal adds the time the run was due (`…-2026-01-02T09:00:00Z`). */
export const SCHEDULED_RUN_ID_PREFIX = 'herald-schedule-';

export const SCHEDULE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,47}$/;
/** The scheduled message, in UTF-16 units: a prompt, not a document (it rides in every run's input). */
export const MAX_SCHEDULED_MESSAGE = 16_000;
/** What a run's result shows of the answer (the whole answer is in the session's transcript). */
export const MAX_RUN_ANSWER_PREVIEW = 2_000;

/** Temporal's overlap policies under the names the CLI takes. */
export const OVERLAP_POLICIES = [
  'skip',
  'buffer_one',
  'buffer_all',
  'cancel_other',
  'terminate_other',
  'allow_all',
] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

export function scheduleIdFor(name: string): string {
  return `${SCHEDULE_ID_PREFIX}${name}`;
}

export function scheduleNameOf(scheduleId: string): string | undefined {
  return scheduleId.startsWith(SCHEDULE_ID_PREFIX) ? scheduleId.slice(SCHEDULE_ID_PREFIX.length) : undefined;
}

/**
 * The session a run of a session-per-run schedule talks in: `<name>-<due time>` from the run's
 * workflow id (`herald-schedule-daily-2026-01-02T09:00:00Z` → `daily-2026-01-02T09:00:00Z`), so a
 * retried run finds its own session again. An id the schedule did not make is used as it is.
 */
export function sessionForRun(runWorkflowId: string): string {
  const tail = runWorkflowId.startsWith(SCHEDULED_RUN_ID_PREFIX)
    ? runWorkflowId.slice(SCHEDULED_RUN_ID_PREFIX.length)
    : runWorkflowId;
  return tail.replace(/[^A-Za-z0-9._:-]/g, '-').slice(0, 128);
}

const sessionId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, 'use letters, digits, ".", "_", ":" or "-"');

/**
 * One run's input (the schedule's action arguments). Untrusted like any workflow input: whoever
 * can create a schedule can write it; the conversation checks the start options again.
 */
export const scheduledRunInputSchema = z
  .object({
    schedule: z.string().regex(SCHEDULE_NAME_PATTERN),
    message: boundedString(MAX_SCHEDULED_MESSAGE).min(1),
    /** The standing session every run continues; absent: a new session per run. */
    session: sessionId.optional(),
    /** Conversation start options (model, cwd, …), checked by the conversation itself. */
    start: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type ScheduledRunInput = z.infer<typeof scheduledRunInputSchema>;

/** What a run returns (what the Web UI shows as the run's result). */
export interface ScheduledRunResult {
  session: string;
  failed: boolean;
  interrupted: boolean;
  /** The answer, shortened (the whole one is in the session). */
  answer: string | null;
  error: string | null;
}

/** `--every 90m` / `1h` / `30s` / `2d` → milliseconds; undefined when it is not such a duration. */
export function parseEvery(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|sec|seconds?|m|min|minutes?|h|hours?|d|days?)\s*$/i.exec(text);
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase()[0]!;
  const ms = Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as 's' | 'm' | 'h' | 'd'];
  return ms >= 1000 && ms <= 366 * 86_400_000 ? Math.round(ms) : undefined;
}

/** A cron expression of 5 fields (or 6–7 with seconds/year, or a `@daily`-style macro), bounded. */
export function isCronLike(text: string): boolean {
  const t = text.trim();
  if (t.length === 0 || t.length > 200) return false;
  if (/^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/.test(t)) return true;
  const fields = t.split(/\s+/);
  return fields.length >= 5 && fields.length <= 7 && fields.every((f) => /^[0-9A-Za-z*?/,#LW-]+$/.test(f));
}
