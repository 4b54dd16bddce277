/**
 * Which conversation a session id on the command line names, and whether it still runs.
 *
 * After a compression `herald state` and `herald sessions` lineage show the session of the current
 * context (`demo.2`); its conversation, the workflow every command talks to, is still `demo`. A
 * user copies whichever id they saw, so every command takes both: the sessions table says which
 * conversation a session belongs to, and without a database `<id>.<n>` is tried as `<id>`.
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { createDb } from '../store/db.js';
import { getSession } from '../store/sessions.js';
import type { Conversation, HeraldClient } from './client.js';

/** A session the user named that cannot take what they asked (unknown, or ended). */
export class SessionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionError';
  }
}

export interface FoundSession {
  conversation: Conversation;
  description: WorkflowExecutionDescription;
  /** The latest run is still running (or handing over to its next run). */
  running: boolean;
}

const COMPRESSED_SUFFIX = /^(.+)\.(\d+)$/;
const START_HINT = 'start a new conversation with `herald start "…"` or `herald chat`';

async function describe(client: HeraldClient, sessionId: string): Promise<FoundSession | undefined> {
  const conversation = client.conversation(sessionId);
  try {
    const description = await conversation.handle.describe();
    const status = description.status.name;
    return { conversation, description, running: status === 'RUNNING' || status === 'CONTINUED_AS_NEW' };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** The session row of `id` (its conversation and end), when the database is known. */
async function sessionRow(client: HeraldClient, id: string) {
  const url = client.settings.databaseUrl;
  if (!url) return undefined;
  const db = createDb(url, 1);
  try {
    return await getSession(db, id);
  } catch {
    return undefined; // no database to ask: the id alone decides
  } finally {
    await db.end().catch(() => {});
  }
}

/** The conversation `id` names, running or not; throws a SessionError naming it when there is none. */
export async function findSession(client: HeraldClient, id: string): Promise<FoundSession> {
  const direct = await describe(client, id);
  if (direct) return direct;
  const row = await sessionRow(client, id);
  const base = row && row.conversation_id !== id ? row.conversation_id : COMPRESSED_SUFFIX.exec(id)?.[1];
  const viaLineage = base ? await describe(client, base) : undefined;
  if (viaLineage) return viaLineage;
  if (row?.ended_at)
    throw new SessionError(
      `session ${id} ended ${row.ended_at.toISOString()} (${row.end_reason ?? 'no reason'}) and Temporal no longer keeps it: ${START_HINT}`,
    );
  throw new SessionError(`no session "${id}": \`herald sessions\` lists them`);
}

/** How a closed conversation closed, and when: `session demo ended 2026-…`. */
export function endedSummary(found: FoundSession): string {
  const { conversation, description } = found;
  const when = description.closeTime ? ` ${description.closeTime.toISOString()}` : '';
  const how: Record<string, string> = {
    COMPLETED: 'ended',
    FAILED: 'failed',
    TERMINATED: 'was terminated',
    TIMED_OUT: 'timed out',
    CANCELLED: 'was cancelled',
  };
  const verb = how[description.status.name] ?? `is ${description.status.name.toLowerCase()}`;
  return `session ${conversation.sessionId} ${verb}${when}`;
}

/** Why a closed conversation takes no messages, and what to do instead. */
export function endedMessage(found: FoundSession): string {
  return `${endedSummary(found)}: it takes no more messages; ${START_HINT}`;
}

/** The running conversation `id` names; a SessionError says why there is none. */
export async function runningConversation(client: HeraldClient, id: string): Promise<Conversation> {
  const found = await findSession(client, id);
  if (!found.running) throw new SessionError(endedMessage(found));
  return found.conversation;
}
