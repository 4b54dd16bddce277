/**
 * The event side channel (docs/architecture.md): what clients watch live, kept out of Temporal history.
 * Each conversation has its own gap-free sequence so a client can reconnect from an offset;
 * `NOTIFY herald_events` tells listeners that new rows are there (the payload stays tiny because
 * NOTIFY payloads are capped at 8,000 bytes).
 */
import type { Db } from './db.js';

export const EVENTS_CHANNEL = 'herald_events';

export const EVENT_KINDS = [
  'turn.started',
  'step',
  'thinking',
  'reasoning.delta',
  'text.delta',
  'tool.generating',
  'tool.started',
  'tool.completed',
  'approval.requested',
  'clarify.requested',
  'status',
  'stream.reset',
  'turn.ended',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface NewEvent {
  kind: EventKind;
  turnId?: string | undefined;
  payload: Record<string, unknown>;
}

export interface StoredEvent {
  conversation_id: string;
  seq: number;
  kind: EventKind;
  turn_id: string | null;
  payload: Record<string, unknown>;
  created_at: Date;
}

/**
 * Append events for a conversation in order and notify listeners. Returns the last sequence number.
 * One statement (its own transaction): the counter, the rows and the NOTIFY in a single round
 * trip rather than five (BEGIN, counter, rows, notify, COMMIT), since event publishing is most of
 * Herald's Postgres statements and sits on the first token's path. The data-modifying CTEs run
 * once each and the NOTIFY is delivered at commit, as before.
 */
export async function appendEvents(db: Db, conversationId: string, events: readonly NewEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const r = await db.query<{ last_seq: string }>(
    `WITH counter AS (
       INSERT INTO event_counters (conversation_id, last_seq) VALUES ($1, $2)
       ON CONFLICT (conversation_id) DO UPDATE SET last_seq = event_counters.last_seq + $2
       RETURNING last_seq
     ), rows AS (
       INSERT INTO events (conversation_id, seq, kind, turn_id, payload)
       SELECT $1, counter.last_seq - $2 + u.ord, u.kind, u.turn_id, u.payload::jsonb
       FROM counter, unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS u(kind, turn_id, payload, ord)
     )
     SELECT last_seq, pg_notify($6, json_build_object('c', $1::text, 's', last_seq)::text) FROM counter`,
    [
      conversationId,
      events.length,
      events.map((e) => e.kind),
      events.map((e) => e.turnId ?? null),
      // jsonb rejects \u0000 escapes: NUL characters from binary output are dropped.
      events.map((e) => JSON.stringify(e.payload).replaceAll('\\u0000', '')),
      EVENTS_CHANNEL,
    ],
  );
  return Number(r.rows[0]!.last_seq);
}

/** Events of a conversation after `afterSeq`, oldest first. */
export async function readEvents(
  db: Db,
  conversationId: string,
  afterSeq: number,
  limit = 500,
): Promise<StoredEvent[]> {
  const r = await db.query<StoredEvent & { seq: string }>(
    'SELECT * FROM events WHERE conversation_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
    [conversationId, afterSeq, limit],
  );
  return r.rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

export async function lastEventSeq(db: Db, conversationId: string): Promise<number> {
  const r = await db.query<{ last_seq: string }>('SELECT last_seq FROM event_counters WHERE conversation_id = $1', [
    conversationId,
  ]);
  return r.rows[0] ? Number(r.rows[0].last_seq) : 0;
}

/** The sequence number just before the conversation's latest `turn.started` (0 when it has none). */
export async function beforeLastTurnSeq(db: Db, conversationId: string): Promise<number> {
  const r = await db.query<{ seq: string }>(
    "SELECT seq FROM events WHERE conversation_id = $1 AND kind = 'turn.started' ORDER BY seq DESC LIMIT 1",
    [conversationId],
  );
  return r.rows[0] ? Number(r.rows[0].seq) - 1 : 0;
}

/** Delete events older than `maxAgeMs` (the transcript stays; events are a live view). */
export async function pruneEvents(db: Db, maxAgeMs: number): Promise<number> {
  const r = await db.query("DELETE FROM events WHERE created_at < now() - ($1::bigint * interval '1 millisecond')", [
    maxAgeMs,
  ]);
  return r.rowCount ?? 0;
}
