/**
 * The `herald sessions` table: a header and aligned columns, one conversation a line. The session
 * column is the id every command takes; a compressed conversation says how often it compressed.
 */
import { needsPersonUrl } from '../shared/needs-person.js';

export interface SessionLine {
  session: string;
  status: string;
  startedAt: Date;
  messages: number;
  model: string | null;
  title: string | null;
  compressions: number;
  parent: string | null;
}

const TITLE_MAX = 48;
const MODEL_MAX = 28;

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** `2026-11-30 00:57`, in UTC like the ids. */
function when(d: Date): string {
  return d.toISOString().slice(0, 16).replace('T', ' ');
}

export function renderSessionsTable(rows: readonly SessionLine[]): string {
  if (!rows.length) return '(no sessions)';
  const cells = rows.map((r) => {
    const notes = [
      ...(r.compressions > 0 ? [`compressed ${r.compressions}×`] : []),
      ...(r.parent ? [`← ${r.parent}`] : []),
    ];
    const title = [cut(r.title ?? '', TITLE_MAX), ...notes.map((n) => `(${n})`)].filter(Boolean).join(' ');
    return [
      r.session,
      r.status.replace(/_/g, ' '),
      when(r.startedAt),
      String(r.messages),
      cut(r.model ?? '', MODEL_MAX),
      title,
    ];
  });
  const header = ['SESSION', 'STATUS', 'STARTED (UTC)', 'MSGS', 'MODEL', 'TITLE'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  // Numbers align right; the last column is not padded (no trailing blanks).
  const line = (c: string[]) =>
    c
      .map((v, i) => (i === 3 ? v.padStart(widths[i]!) : i === c.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)].join('\n');
}

/**
 * The line under the table (stderr): how many listed conversations wait for a person's reply, and
 * the Web UI link that lists every conversation needing one (shared/needs-person.ts). None without
 * a Web UI (a stack started without it, or a remote one whose UI Herald does not know).
 */
export function needsYouLine(
  statuses: readonly string[],
  uiUrl: string | undefined,
  namespace: string,
): string | undefined {
  if (!uiUrl) return undefined;
  const waiting = statuses.filter((s) => s === 'awaiting_approval' || s === 'awaiting_clarify').length;
  const count = waiting ? `${waiting} listed conversation(s) wait for your reply · ` : '';
  return `${count}needs you (approvals, questions, failed turns) in the Web UI: ${needsPersonUrl(uiUrl, namespace)}`;
}
