/**
 * Turn results by message id: idempotency for messages that outlives the workflow's memory of
 * recent results (and continue-as-new). The first result recorded for an id wins.
 */
import type { TurnResult } from '../common/contract.js';
import type { Db } from './db.js';

export async function recordTurnResult(
  db: Db,
  conversationId: string,
  turnId: string,
  result: TurnResult,
): Promise<void> {
  await db.query(
    `INSERT INTO turn_results (conversation_id, message_id, turn_id, result) VALUES ($1, $2, $3, $4)
     ON CONFLICT (conversation_id, message_id) DO NOTHING`,
    [conversationId, result.message_id, turnId, JSON.stringify(result)],
  );
}

export async function findTurnResult(
  db: Db,
  conversationId: string,
  messageId: string,
): Promise<TurnResult | undefined> {
  const r = await db.query<{ result: TurnResult }>(
    'SELECT result FROM turn_results WHERE conversation_id = $1 AND message_id = $2',
    [conversationId, messageId],
  );
  return r.rows[0]?.result;
}
