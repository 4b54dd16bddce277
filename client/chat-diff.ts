/**
 * `/diff` in `herald chat` with checkpoints off (docs/checkpoints.md): the workspace changes of the
 * last turn, as the turn's file edits reported them (the diff each `write_file`/`patch` call's
 * `tool.completed` event carries); changes a terminal command made are not in it.
 */
import pc from 'picocolors';
import { visibleControls } from '../shared/command-display.js';
import type { Db } from '../store/db.js';
import { beforeLastTurnSeq, readEvents } from '../store/events.js';
import { renderDiff } from './diff-view.js';
import type { StoredEvent } from './events.js';

/** Lines of one edit's diff shown by `/diff` (the event's diff is itself bounded by the worker). */
const DIFF_COMMAND_LINES = 400;

/**
 * The edits of a turn's events, each a header (the call's summary, from its `tool.started`) and its
 * coloured diff.
 */
export function renderTurnDiffs(events: readonly Pick<StoredEvent, 'kind' | 'payload'>[]): string {
  const summaries = new Map<string, string>();
  for (const e of events)
    if (e.kind === 'tool.started' && typeof e.payload.id === 'string' && typeof e.payload.summary === 'string')
      summaries.set(e.payload.id, e.payload.summary);
  const edits = events.filter(
    (e) => e.kind === 'tool.completed' && typeof e.payload.diff === 'string' && e.payload.diff && !e.payload.notRun,
  );
  if (!edits.length) return 'no file edits in the last turn (changes made by terminal commands are not tracked)';
  return edits
    .map((e) => {
      const p = e.payload;
      const head =
        summaries.get(String(p.id)) ?? (typeof p.summary === 'string' && p.summary ? p.summary : String(p.name));
      return `${pc.bold(visibleControls(head))}\n${renderDiff(visibleControls(p.diff as string), DIFF_COMMAND_LINES, '  ')}`;
    })
    .join('\n');
}

/** The last turn's edits of session `sessionId`, rendered. */
export async function lastTurnDiffs(db: Db, sessionId: string): Promise<string> {
  const from = await beforeLastTurnSeq(db, sessionId);
  const events: StoredEvent[] = [];
  // A long turn has many events; read them all (pages of 500), keep only the edits.
  for (let after = from; ;) {
    const page = await readEvents(db, sessionId, after, 500);
    events.push(...page.filter((e) => e.kind === 'tool.started' || e.kind === 'tool.completed'));
    if (page.length < 500) break;
    after = page.at(-1)!.seq;
  }
  return renderTurnDiffs(events);
}
