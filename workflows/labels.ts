/**
 * Labels the Temporal Web UI shows for timers, child workflows and activities (user metadata), so
 * a history reads "approval wait (5 minutes)" instead of "5 minutes". Metadata is not part of the
 * command sequence: adding or changing a label does not affect replay. Pure.
 */
import { durationMs } from '../common/contract.js';
import { oneLine } from '../common/text.js';

/** User metadata is meant to be a short single line; this keeps it so (bytes are far under any limit). */
export const MAX_LABEL_CHARS = 200;

/** A duration as people say it: "90 seconds", "5 minutes", "30 days". */
export function durationLabel(d: string | number): string {
  const ms = durationMs(d);
  if (!Number.isFinite(ms)) return String(d);
  const units: Array<[number, string]> = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) {
      const n = ms / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} seconds` : `${ms} ms`;
}

/** `<what> (<duration>)`, one line, bounded. */
export function timerLabel(what: string, d: string | number): string {
  return label(`${what} (${durationLabel(d)})`);
}

/** Any label: one line, bounded. */
export function label(text: string): string {
  return oneLine(text, MAX_LABEL_CHARS);
}

/** Static details (Markdown) of a child workflow: a few lines. */
export const MAX_DETAILS_CHARS = 2_000;
