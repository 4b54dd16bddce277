/** Transcript rows. The workflow assigns each message its sequence number; writes are upserts. */
import type { ChatMessage, ReasoningDetails, Role, StoredMessage, ToolCall } from '../common/messages.js';
import type { PoolClient } from 'pg';
import type { Db } from './db.js';

export interface MessageWrite {
  seq: number;
  role: Role;
  content: string | null;
  toolCalls?: ToolCall[] | undefined;
  toolCallId?: string | undefined;
  toolName?: string | undefined;
  reasoning?: string | null | undefined;
  reasoningDetails?: ReasoningDetails | null | undefined;
  finishReason?: string | undefined;
  turnId?: string | undefined;
  messageId?: string | undefined;
  synthetic?: boolean;
}

/**
 * `replace`: a retried attempt's newer content wins (model calls). `keep`: an existing row wins
 * (synthetic results never overwrite a real one that landed first).
 */
export async function writeMessage(
  db: Db | PoolClient,
  sessionId: string,
  m: MessageWrite,
  onConflict: 'replace' | 'keep' = 'replace',
): Promise<void> {
  const conflict =
    onConflict === 'keep'
      ? 'DO NOTHING'
      : `DO UPDATE SET role = EXCLUDED.role, content = EXCLUDED.content, tool_calls = EXCLUDED.tool_calls,
           tool_call_id = EXCLUDED.tool_call_id, tool_name = EXCLUDED.tool_name, reasoning = EXCLUDED.reasoning,
           reasoning_details = EXCLUDED.reasoning_details,
           finish_reason = EXCLUDED.finish_reason, turn_id = EXCLUDED.turn_id, message_id = EXCLUDED.message_id,
           synthetic = EXCLUDED.synthetic, compacted = false, updated_at = now()`;
  await db.query(
    `INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, tool_name, reasoning, finish_reason, turn_id, message_id, synthetic, reasoning_details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (session_id, seq) ${conflict}`,
    [
      sessionId,
      m.seq,
      m.role,
      m.content === null ? null : withoutNul(m.content),
      m.toolCalls?.length ? JSON.stringify(m.toolCalls) : null,
      m.toolCallId ?? null,
      m.toolName ?? null,
      m.reasoning ?? null,
      m.finishReason ?? null,
      m.turnId ?? null,
      m.messageId ?? null,
      m.synthetic ?? false,
      m.reasoningDetails ? JSON.stringify(m.reasoningDetails) : null,
    ],
  );
}

/** Postgres text cannot hold NUL characters (binary tool output has them): they are dropped. */
export function withoutNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
}

/** Drop rows at or after `seq`: leftovers of attempts the workflow never acknowledged. */
export async function deleteFrom(db: Db, sessionId: string, seq: number): Promise<number> {
  const r = await db.query('DELETE FROM messages WHERE session_id = $1 AND seq >= $2', [sessionId, seq]);
  return r.rowCount ?? 0;
}

interface Row {
  seq: number;
  role: Role;
  content: string | null;
  tool_calls: ToolCall[] | null;
  tool_call_id: string | null;
  tool_name: string | null;
  reasoning: string | null;
  reasoning_details: ReasoningDetails | null;
}

function toMessage(r: Row): StoredMessage {
  const m: StoredMessage = { seq: r.seq, role: r.role, content: r.content };
  if (r.tool_calls?.length) m.tool_calls = r.tool_calls;
  if (r.tool_call_id) m.tool_call_id = r.tool_call_id;
  if (r.tool_name) m.name = r.tool_name;
  if (r.reasoning) m.reasoning = r.reasoning;
  if (r.reasoning_details) m.reasoning_details = r.reasoning_details;
  return m;
}

const COLUMNS = 'seq, role, content, tool_calls, tool_call_id, tool_name, reasoning, reasoning_details';

/** The session's live (not compacted) transcript before `beforeSeq`, in order. */
export async function loadTranscript(db: Db, sessionId: string, beforeSeq?: number): Promise<StoredMessage[]> {
  const r = await db.query<Row>(
    `SELECT ${COLUMNS} FROM messages
      WHERE session_id = $1 AND NOT compacted AND ($2::int IS NULL OR seq < $2)
      ORDER BY seq`,
    [sessionId, beforeSeq ?? null],
  );
  return r.rows.map(toMessage);
}

export async function getMessage(db: Db, sessionId: string, seq: number): Promise<StoredMessage | undefined> {
  const r = await db.query<Row>(`SELECT ${COLUMNS} FROM messages WHERE session_id = $1 AND seq = $2`, [sessionId, seq]);
  return r.rows[0] ? toMessage(r.rows[0]) : undefined;
}

/** Append `text` to a stored message's content (steer delivery); idempotent for the same text. */
export async function appendToContent(db: Db, sessionId: string, seq: number, text: string): Promise<void> {
  await db.query(
    `UPDATE messages SET content = coalesce(content, '') || $3, updated_at = now()
      WHERE session_id = $1 AND seq = $2 AND position($3 in coalesce(content, '')) = 0`,
    [sessionId, seq, text],
  );
}

/** Take `text` out of the tool results before `beforeSeq` (a steer note moved to a user message of its own). */
export async function removeFromToolResults(db: Db, sessionId: string, beforeSeq: number, text: string): Promise<void> {
  await db.query(
    `UPDATE messages SET content = replace(content, $3, ''), updated_at = now()
      WHERE session_id = $1 AND seq < $2 AND role = 'tool' AND position($3 in coalesce(content, '')) > 0`,
    [sessionId, beforeSeq, text],
  );
}

export async function nextSeq(db: Db, sessionId: string): Promise<number> {
  const r = await db.query<{ next: number }>(
    'SELECT coalesce(max(seq) + 1, 0)::int AS next FROM messages WHERE session_id = $1',
    [sessionId],
  );
  return r.rows[0]?.next ?? 0;
}

export type { ChatMessage };
