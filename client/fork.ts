/**
 * What a fork carries of its source (docs/checkpoints.md): the conversation's text — each user
 * message and the assistant's written replies — of its first N turns, as the new session's seed
 * history. Tool calls and results are not carried (the new workspace holds what they did).
 */
import type { Db } from '../store/db.js';

export type SeedMessage = { role: 'user' | 'assistant'; content: string };

/** The newest session of `conversationId`'s lineage that holds turn `atTurn`, and its messages up to turn `atTurn + 1`. */
export async function firstTurns(db: Db, conversationId: string, atTurn: number): Promise<SeedMessage[]> {
  const holder = await db.query<{ session_id: string }>(
    `SELECT m.session_id FROM messages m JOIN sessions s ON s.id = m.session_id
      WHERE s.conversation_id = $1 AND m.turn_id = $2 AND m.role = 'user'
      ORDER BY s.started_at DESC LIMIT 1`,
    [conversationId, `${conversationId}:${atTurn}`],
  );
  const sessionId = holder.rows[0]?.session_id;
  if (!sessionId)
    throw new Error(`turn ${atTurn} of ${conversationId} is not in its transcript (compressed away, or never ran)`);
  const rows = await db.query<{ role: string; content: string | null; turn_id: string | null }>(
    `SELECT role, content, turn_id FROM messages WHERE session_id = $1 ORDER BY seq`,
    [sessionId],
  );
  const out: SeedMessage[] = [];
  for (const r of rows.rows) {
    const turn = r.turn_id ? Number(/:(\d+)$/.exec(r.turn_id)?.[1]) : undefined;
    if (turn !== undefined && turn > atTurn) break;
    if ((r.role === 'user' || r.role === 'assistant') && r.content?.trim())
      out.push({ role: r.role, content: r.content });
  }
  return out;
}
