/**
 * What a turn changed in the workspace, from its checkpoint row (docs/checkpoints.md): every change,
 * whichever tool made it (a shell command's included), as the worker's snapshots recorded it. Read
 * from Postgres, so `herald diff` and `/diff` work wherever the database is reachable.
 */
import pc from 'picocolors';
import type { Db } from '../store/db.js';
import { visibleControls } from '../shared/command-display.js';
import { describeChanges } from '../common/checkpoints.js';

export interface TurnDiff {
  turn: number;
  files: number;
  added: number;
  removed: number;
  notes: string[];
  /** The unified diff (git's format), bounded by the worker; null while the turn runs. */
  patch: string | null;
}

/** The conversation a session id belongs to: a compressed or rewound session `<id>.N` is `<id>`'s. */
function conversationOf(sessionId: string): string {
  return sessionId.replace(/\.\d+$/, '');
}

/** Turn `turn`'s changes, or the latest turn's with a checkpoint; undefined when there is none. */
export async function readTurnDiff(db: Db, sessionId: string, turn?: number): Promise<TurnDiff | undefined> {
  const r = await db.query<TurnDiff>(
    `SELECT turn, files, added, removed, notes, patch FROM checkpoints
      WHERE conversation_id = $1 AND ($2::int IS NULL OR turn = $2) ORDER BY turn DESC LIMIT 1`,
    [conversationOf(sessionId), turn ?? null],
  );
  const row = r.rows[0];
  return row ? { ...row, notes: Array.isArray(row.notes) ? row.notes : [] } : undefined;
}

/** Lines of a turn's diff shown (the stored diff is itself bounded by the worker). */
const MAX_SHOWN_LINES = 2000;

/** A coloured unified diff with file headers, then the summary line and any "not snapshotted" notes. */
export function renderTurnDiff(d: TurnDiff, maxLines = MAX_SHOWN_LINES): string {
  const out: string[] = [];
  const lines = visibleControls(d.patch ?? '').split('\n');
  for (const l of lines.slice(0, maxLines)) {
    if (l.startsWith('diff --git')) out.push(pc.bold(l));
    else if (l.startsWith('--- ') || l.startsWith('+++ ') || l.startsWith('index ')) out.push(pc.bold(pc.dim(l)));
    else if (l.startsWith('@@')) out.push(pc.cyan(l));
    else if (l.startsWith('+')) out.push(pc.green(l));
    else if (l.startsWith('-')) out.push(pc.red(l));
    else out.push(l);
  }
  if (lines.length > maxLines) out.push(pc.dim(`… ${lines.length - maxLines} more lines`));
  while (out.length && out.at(-1) === '') out.pop();
  out.push(pc.bold(`turn ${d.turn}: ${d.patch === null ? 'still running' : describeChanges(d)}`));
  for (const n of d.notes) out.push(pc.yellow(visibleControls(n)));
  return out.join('\n');
}
