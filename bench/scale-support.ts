/**
 * Helpers for `npm run bench:scale` (bench/scale.ts): the fake model's script for the scale load,
 * process sampling from /proc (RSS, CPU), and a table printer. No assertions: numbers.
 */
import { readFileSync } from 'node:fs';
import type { RecordedRequest, ScriptedReply } from '../test/support/fake-provider.js';

/** The file each turn's tool call reads (written into the bench workspace). */
export const SCALE_FILE = 'notes.txt';

/** A user message carrying its model latency, so the fake model needs no shared state: `turn 2 [delay 1834]`. */
export function scaleMessage(turn: number, delayMs: number): string {
  return `turn ${turn} [delay ${delayMs}]`;
}

interface WireMessage {
  role?: string;
  content?: unknown;
}

/**
 * The fake model of the scale load: a user message gets a `read_file` call after the latency the
 * message names; the tool's result gets the answer at once. So a turn is model call → read_file →
 * answer, and its ideal time is the named latency.
 */
export function scaleResponder(req: RecordedRequest): ScriptedReply {
  const messages = (req.body.messages ?? []) as WireMessage[];
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') return { text: 'The notes say hello.' };
  const user = [...messages].reverse().find((m) => m.role === 'user');
  const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  const delayMs = Number(/\[delay (\d+)\]/.exec(text)?.[1] ?? 0);
  return { delayMs, toolCalls: [{ name: 'read_file', arguments: { path: SCALE_FILE } }] };
}

/** A process's resident set in MB (0 when it is gone). */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU time a process has used so far (user + system), in ms; 0 when it is gone. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // After "pid (comm) ": state is field 0, utime 11, stime 12 (clock ticks, 100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

/** A fixed-width table: a header row and rows of cells. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}
