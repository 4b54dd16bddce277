/**
 * Byte bounds on everything the conversation workflow keeps in memory and hands to Temporal
 * (docs/architecture.md, bounds): each value that can enter history or a payload has one, single and aggregated.
 * Temporal refuses a payload over 2 MB (and a history over 50 MB or 51,200 events), and a
 * refused workflow task is retried forever; so the workflow refuses or drops input that would
 * cross these lines, before it gets anywhere near them. Pure.
 */
import { utf8Bytes } from '../common/text.js';

/** Messages waiting for a turn: how many, and their texts' encoded bytes together (JSON in UTF-8, as a payload carries them). */
export const MAX_QUEUED_MESSAGES = 64;
export const MAX_QUEUED_BYTES = 1_000_000;
/** Steer text waiting for the next model call (joined into one activity argument), in encoded bytes. */
export const MAX_PENDING_STEER = 32;
export const MAX_PENDING_STEER_BYTES = 200_000;
/** Background reports held after `/stop` until the user's next message. */
export const MAX_HELD_REPORT_BYTES = 400_000;
/** The whole continue-as-new input. */
export const MAX_CARRIED_BYTES = 1_500_000;
/** A result remembered for a repeated message id keeps this much of its reply (the rest is in Postgres). */
export const REMEMBERED_REPLY_CHARS = 2_000;
/** A search attribute value (Temporal's limit for a keyword is 2 KB). */
export const MAX_SEARCH_ATTRIBUTE_CHARS = 200;
/** A conversation's title (HeraldTitle, Current Details). */
export const MAX_TITLE_CHARS = 100;

/**
 * Continue-as-new is due past either of these, whatever Temporal suggests: far enough below the
 * hard limits that the turns still in the queue (at most Temporal's 10 in-flight updates) fit.
 */
export const CAN_HISTORY_EVENTS = 8_000;
export const CAN_HISTORY_BYTES = 8_000_000;
/** Past these, a running turn is stopped so the run can continue as new (a flood of signals mid-turn). */
export const STOP_HISTORY_EVENTS = 30_000;
export const STOP_HISTORY_BYTES = 30_000_000;

/** Text cut to at most `max` UTF-8 bytes, on a character boundary, with a note when cut. */
export function clampBytes(s: string, max: number, note = '\n[…truncated]'): string {
  if (utf8Bytes(s) <= max) return s;
  let lo = 0;
  let hi = s.length;
  const budget = Math.max(0, max - utf8Bytes(note));
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (utf8Bytes(s.slice(0, mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  let cut = s.slice(0, lo);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut}${note}`;
}
