/**
 * Which session `herald chat --resume <id|title>` and `/resume` go on with, and whether they may:
 * a session id, a compressed session's id (`demo.2` → its conversation `demo`) or a title; a
 * running conversation resumes; an ended one is refused unless reopening was asked for, because
 * a new run under the same id starts afresh (session usage, approvals for the session, todos)
 * even though the model sees the stored messages again.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Db } from '../store/db.js';
import { loadTranscript } from '../store/messages.js';
import type { SessionRow } from '../store/sessions.js';
import { getSession, latestInLineage } from '../store/sessions.js';
import type { StoredMessage } from '../common/messages.js';
import type { HeraldClient } from './client.js';

export type ResumeDecision =
  | { ok: true; sessionId: string; messages: StoredMessage[]; reopened: boolean; title: string | null }
  | { ok: false; message: string };

async function byIdOrTitle(db: Db, key: string): Promise<SessionRow | undefined> {
  const own = await getSession(db, key);
  if (own) return own;
  const r = await db.query<SessionRow>(
    'SELECT * FROM sessions WHERE title = $1 AND parent_id IS NULL ORDER BY started_at DESC LIMIT 1',
    [key],
  );
  return r.rows[0];
}

/** `running`, `closed` (with when and how), or `none` (Temporal has never seen it). */
async function workflowStatus(
  client: HeraldClient,
  sessionId: string,
): Promise<{ state: 'running' } | { state: 'closed'; status: string; closedAt: Date | undefined } | { state: 'none' }> {
  try {
    const d = await client.conversation(sessionId).handle.describe();
    if (d.status.name === 'RUNNING') return { state: 'running' };
    return { state: 'closed', status: d.status.name.toLowerCase(), closedAt: d.closeTime };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { state: 'none' };
    throw err;
  }
}

const when = (d: Date | null | undefined) =>
  d ? d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : 'an unknown date';

export async function decideResume(
  client: HeraldClient,
  db: Db,
  key: string,
  options: { reopen: boolean; command: (id: string, reopen: boolean) => string },
): Promise<ResumeDecision> {
  const row = await byIdOrTitle(db, key);
  // A compressed or titled session: talk to its conversation.
  const sessionId = row?.conversation_id ?? key;
  const status = await workflowStatus(client, sessionId);
  if (!row && status.state === 'none')
    return {
      ok: false,
      message: `no session ${key} (\`herald sessions\` lists them); start a new one with \`herald chat\``,
    };
  const head = row && row.id !== sessionId ? await getSession(db, sessionId) : row;
  if (status.state !== 'running') {
    const endedAt = head?.ended_at ?? (status.state === 'closed' ? status.closedAt : undefined);
    const why = head?.end_reason ?? (status.state === 'closed' ? status.status : 'not running');
    if (!options.reopen)
      return {
        ok: false,
        message:
          `session ${sessionId} ended on ${when(endedAt)} (${why}). Reopen it with \`${options.command(sessionId, true)}\` ` +
          '(the model sees its earlier messages; its usage count and session approvals start afresh), ' +
          'or start a new one with `herald chat`',
      };
  }
  const latest = (await latestInLineage(db, sessionId, sessionId))?.sessionId ?? sessionId;
  const messages = await loadTranscript(db, latest);
  return { ok: true, sessionId, messages, reopened: status.state !== 'running', title: head?.title ?? null };
}

/** The command line that goes on with a session (`--reopen`: one that has ended). */
export function resumeCommand(sessionId: string, reopen = false): string {
  return `herald chat --resume ${sessionId}${reopen ? ' --reopen' : ''}`;
}
