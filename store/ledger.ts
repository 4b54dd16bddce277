/**
 * The usage ledger: one row per HTTP attempt of a model call, failed and cancelled ones included,
 * the agent loop's (`turn`) and the auxiliary model's (compression summaries, `smart` approvals).
 *
 * A row is keyed by the activity attempt that made the request (workflow run id, activity id,
 * Temporal attempt): a retry is another attempt, a whole-call retry or a fallback at the same step
 * is another activity, so none of them collide; a re-delivered attempt writes the same key, a no-op.
 * An auxiliary activity may make several requests in one attempt (a summary by the auxiliary model,
 * then by the main one): each adds its number within the attempt (activities/model/auxiliary-calls.ts).
 */
import type { TurnAttempts } from '../common/attempts.js';
import { usageOf } from '../common/attempts.js';
import type { Usage } from '../common/messages.js';
import type { Db } from './db.js';

/**
 * `started`: the request was sent and its attempt has not ended (yet). `lost`: its attempt died
 * (the worker was killed) before it could say how the request ended; it is counted as a request
 * made, with the size and time it was sent and no usage (none was reported to anyone alive).
 */
export type LedgerOutcome = 'ok' | 'error' | 'cancelled' | 'started' | 'lost';

/**
 * How long a `started` row may wait for its attempt: a model-call attempt's start-to-close timeout
 * (workflows/activities.ts, 15 minutes) and a minute's margin. An older one is lost.
 */
export const STARTED_ROW_MAX_AGE_MS = 16 * 60_000;

/**
 * What a request was for: the agent loop's model call, or an auxiliary one. Only `turn` requests
 * count in `api_calls` (Hermes counts the agent loop's); every request counts in usage and cost.
 */
export type CallPurpose = 'turn' | 'compression' | 'approval';

export interface LedgerEntry {
  callKey: string;
  sessionId: string;
  conversationId: string;
  turnId: string;
  seq: number;
  /** The turn's step (model call number) the attempt was for; none for an auxiliary request. */
  step: number | null;
  /** Absent: `turn`. */
  purpose?: CallPurpose;
  /** Temporal's attempt number of this activity (1 for the first HTTP request of each activity). */
  attempt: number;
  workflowRunId: string;
  activityId: string;
  provider: string;
  model: string;
  apiMode: string;
  outcome: LedgerOutcome;
  errorType?: string | undefined;
  usage: Usage;
  durationMs: number;
  /** The request's size as sent (JSON bytes of Herald's request); rows written before it was measured have none. */
  requestBytes?: number | undefined;
}

/** The activity attempt's identity: unique per HTTP attempt, stable across re-deliveries of it. */
export function attemptKey(workflowRunId: string, activityId: string, attempt: number): string {
  return `run:${workflowRunId}:${activityId}:${attempt}`;
}

/** A turn's totals: `attempts` are the agent loop's requests (its `api_calls`), usage is every request's. */
const SUMS = `count(*) FILTER (WHERE purpose = 'turn')::text AS attempts,
            coalesce(sum(input_tokens), 0)::text AS input_tokens,
            coalesce(sum(output_tokens), 0)::text AS output_tokens,
            coalesce(sum(cache_read_tokens), 0)::text AS cache_read_tokens,
            coalesce(sum(cache_write_tokens), 0)::text AS cache_write_tokens,
            coalesce(sum(reasoning_tokens), 0)::text AS reasoning_tokens,
            coalesce(sum(cost_usd), 0)::text AS cost_usd`;

type SumsRow = Record<'attempts' | Exclude<keyof Usage, 'total_tokens'>, string>;

function turnAttemptsFrom(row: SumsRow | undefined): TurnAttempts {
  const n = (k: keyof SumsRow) => Number(row?.[k] ?? 0);
  return {
    attempts: n('attempts'),
    usage: usageOf({
      input_tokens: n('input_tokens'),
      output_tokens: n('output_tokens'),
      cache_read_tokens: n('cache_read_tokens'),
      cache_write_tokens: n('cache_write_tokens'),
      reasoning_tokens: n('reasoning_tokens'),
      cost_usd: n('cost_usd'),
    }),
  };
}

const COLUMNS = `call_key, session_id, conversation_id, turn_id, seq, attempt, provider, model, api_mode, outcome, error_type,
                 input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, duration_ms,
                 step, workflow_run_id, activity_id, purpose, request_bytes`;
const VALUES = `$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23`;

function params(e: LedgerEntry): unknown[] {
  return [
    e.callKey,
    e.sessionId,
    e.conversationId,
    e.turnId,
    e.seq,
    e.attempt,
    e.provider,
    e.model,
    e.apiMode,
    e.outcome,
    e.errorType ?? null,
    e.usage.input_tokens,
    e.usage.output_tokens,
    e.usage.cache_read_tokens,
    e.usage.cache_write_tokens,
    e.usage.reasoning_tokens,
    e.usage.cost_usd,
    Math.round(e.durationMs),
    e.step,
    e.workflowRunId,
    e.activityId,
    e.purpose ?? 'turn',
    e.requestBytes ?? null,
  ];
}

/**
 * Put an attempt on the ledger before its request is sent (outcome `started`), and mark the
 * earlier attempts of the same activity that never ended theirs `lost`: Temporal starts the next
 * attempt only once the previous one is over, so one still `started` died with its worker. A
 * re-delivered attempt finds its row there and writes nothing.
 */
export async function startModelCall(db: Db, e: LedgerEntry): Promise<void> {
  await db.query(
    `WITH lost AS (
       UPDATE model_calls SET outcome = 'lost'
        WHERE conversation_id = $3 AND turn_id = $4 AND workflow_run_id = $20 AND activity_id = $21
          AND attempt < $6 AND outcome = 'started'
     )
     INSERT INTO model_calls (${COLUMNS}, started_at) VALUES (${VALUES}, now())
     ON CONFLICT (call_key) DO NOTHING`,
    params({ ...e, outcome: 'started' }),
  );
}

/** Mark `started` rows older than `maxAgeMs` lost (their attempts cannot still be running); returns how many. */
export async function sweepLostAttempts(db: Db, maxAgeMs = STARTED_ROW_MAX_AGE_MS): Promise<number> {
  const r = await db.query(
    `UPDATE model_calls SET outcome = 'lost'
      WHERE outcome = 'started' AND created_at < now() - make_interval(secs => $1)`,
    [maxAgeMs / 1000],
  );
  return r.rowCount ?? 0;
}

/**
 * Complete one attempt's row (or write it, for a request that was not started on the ledger) and
 * return its turn's totals, this attempt included (common/attempts.ts: what the workflow counts),
 * in one round trip. A row already completed stays as it is (a re-delivered attempt); a row marked
 * lost is completed after all (its attempt was slow, not dead). The sums read the table as it was
 * before the statement (a statement does not see its own WITH's writes), so the written row is
 * taken from RETURNING and its older version left out.
 */
export async function recordModelCall(db: Db, e: LedgerEntry): Promise<TurnAttempts> {
  const r = await db.query<SumsRow>(
    `WITH ins AS (
       INSERT INTO model_calls (${COLUMNS}) VALUES (${VALUES})
       ON CONFLICT (call_key) DO UPDATE SET
         model = EXCLUDED.model, outcome = EXCLUDED.outcome, error_type = EXCLUDED.error_type,
         input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
         cache_read_tokens = EXCLUDED.cache_read_tokens, cache_write_tokens = EXCLUDED.cache_write_tokens,
         reasoning_tokens = EXCLUDED.reasoning_tokens, cost_usd = EXCLUDED.cost_usd, duration_ms = EXCLUDED.duration_ms,
         request_bytes = coalesce(model_calls.request_bytes, EXCLUDED.request_bytes)
       WHERE model_calls.outcome IN ('started', 'lost')
       RETURNING call_key, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, purpose
     ), turn_rows AS (
       SELECT input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, purpose
         FROM model_calls WHERE conversation_id = $3 AND turn_id = $4 AND call_key NOT IN (SELECT call_key FROM ins)
       UNION ALL SELECT input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, purpose FROM ins
     )
     SELECT ${SUMS} FROM turn_rows`,
    params(e),
  );
  return turnAttemptsFrom(r.rows[0]);
}

/** One turn's totals over its attempts (its own conversation's; child agents' turns are their own). */
export async function turnAttempts(db: Db, conversationId: string, turnId: string): Promise<TurnAttempts> {
  const r = await db.query<SumsRow>(`SELECT ${SUMS} FROM model_calls WHERE conversation_id = $1 AND turn_id = $2`, [
    conversationId,
    turnId,
  ]);
  return turnAttemptsFrom(r.rows[0]);
}

/** The attempts one activity made so far (its earlier Temporal attempts), within its turn. */
export async function activityAttempts(
  db: Db,
  conversationId: string,
  turnId: string,
  workflowRunId: string,
  activityId: string,
): Promise<TurnAttempts> {
  const r = await db.query<SumsRow>(
    `SELECT ${SUMS} FROM model_calls
      WHERE conversation_id = $1 AND turn_id = $2 AND workflow_run_id = $3 AND activity_id = $4`,
    [conversationId, turnId, workflowRunId, activityId],
  );
  return turnAttemptsFrom(r.rows[0]);
}

/** One attempt as `herald usage` shows it. */
export interface LedgerRow {
  conversationId: string;
  turnId: string;
  /** The turn's step; rows written before migration 009 and auxiliary requests have none. */
  step: number | null;
  purpose: CallPurpose;
  seq: number;
  provider: string;
  model: string;
  attempt: number;
  outcome: LedgerOutcome;
  errorType: string | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  durationMs: number;
  /** The request's size as sent, when it was measured (every attempt since the ledger took rows before sending). */
  requestBytes: number | null;
  createdAt: Date;
}

/** The most rows `herald usage` reads (the newest); the totals always cover every row. */
export const LEDGER_ROW_LIMIT = 2000;

export interface LedgerTotals {
  /** Every request, auxiliary ones included. */
  attempts: number;
  ok: number;
  failed: number;
  cancelled: number;
  /** Requests whose attempt died with its worker: sent (and likely paid for), usage unknown. */
  lost: number;
  /** Requests still running. */
  inFlight: number;
  /** The requests of `attempts` the auxiliary model made (compression summaries, `smart` approvals): not in `api_calls`. */
  auxiliary: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

/**
 * The conversations whose attempts `id` accounts for: the one `id` names (itself, or the conversation
 * of the context session `id`, `demo.2`) and its child agents', recursively (docs/delegation.md: child usage
 * rolls up into the parent's), found through the sessions' parent links.
 */
const CONVERSATION_OF = `coalesce((SELECT conversation_id FROM sessions WHERE id = $1),
                    (SELECT conversation_id FROM model_calls WHERE session_id = $1 LIMIT 1), $1)`;
const CONVERSATIONS_OF = `WITH RECURSIVE convs(id) AS (
    SELECT ${CONVERSATION_OF}
    UNION
    SELECT child.conversation_id FROM sessions child
      JOIN sessions parent ON child.parent_id = parent.id
      JOIN convs ON parent.conversation_id = convs.id
  )`;

/** The conversation id `id` names (a context session `demo.2` names `demo`). */
export async function conversationOf(db: Db, id: string): Promise<string> {
  const r = await db.query<{ id: string }>(`SELECT ${CONVERSATION_OF} AS id`, [id]);
  return r.rows[0]?.id ?? id;
}

/** Every attempt of a conversation and its child agents, oldest first (at most `limit`, the newest ones). */
export async function conversationLedger(db: Db, id: string, limit = LEDGER_ROW_LIMIT): Promise<LedgerRow[]> {
  // Named as LedgerRow names them, the counts as numbers (Postgres sends bigint and numeric as text).
  const r = await db.query<LedgerRow>(
    `${CONVERSATIONS_OF}
     SELECT * FROM (
       SELECT conversation_id AS "conversationId", turn_id AS "turnId", step, purpose, seq, provider, model, attempt,
              outcome, error_type AS "errorType", input_tokens::float8 AS "inputTokens",
              output_tokens::float8 AS "outputTokens", cache_read_tokens::float8 AS "cacheReadTokens",
              cache_write_tokens::float8 AS "cacheWriteTokens", cost_usd::float8 AS "costUsd",
              duration_ms AS "durationMs", request_bytes AS "requestBytes", created_at AS "createdAt"
         FROM model_calls WHERE conversation_id IN (SELECT id FROM convs)
        ORDER BY created_at DESC, call_key DESC LIMIT $2) newest
      ORDER BY "createdAt", seq`,
    [id, limit],
  );
  return r.rows;
}

/** Sums over the attempts a WHERE clause picks (after an optional WITH prelude it may use). */
async function totalsWhere(db: Db, prelude: string, where: string, params: unknown[]): Promise<LedgerTotals> {
  const r = await db.query<Record<keyof LedgerTotals, string>>(
    `${prelude}
     SELECT count(*)::text AS attempts,
            count(*) FILTER (WHERE outcome = 'ok')::text AS ok,
            count(*) FILTER (WHERE outcome = 'error')::text AS failed,
            count(*) FILTER (WHERE outcome = 'cancelled')::text AS cancelled,
            count(*) FILTER (WHERE outcome = 'lost')::text AS lost,
            count(*) FILTER (WHERE outcome = 'started')::text AS "inFlight",
            count(*) FILTER (WHERE purpose <> 'turn')::text AS auxiliary,
            coalesce(sum(input_tokens), 0)::text AS "inputTokens",
            coalesce(sum(output_tokens), 0)::text AS "outputTokens",
            coalesce(sum(cache_read_tokens), 0)::text AS "cacheReadTokens",
            coalesce(sum(cache_write_tokens), 0)::text AS "cacheWriteTokens",
            coalesce(sum(cost_usd), 0)::text AS "costUsd"
       FROM model_calls WHERE ${where}`,
    params,
  );
  const row = r.rows[0];
  const n = (k: keyof LedgerTotals) => Number(row?.[k] ?? 0);
  return {
    attempts: n('attempts'),
    ok: n('ok'),
    failed: n('failed'),
    cancelled: n('cancelled'),
    lost: n('lost'),
    inFlight: n('inFlight'),
    auxiliary: n('auxiliary'),
    inputTokens: n('inputTokens'),
    outputTokens: n('outputTokens'),
    cacheReadTokens: n('cacheReadTokens'),
    cacheWriteTokens: n('cacheWriteTokens'),
    costUsd: n('costUsd'),
  };
}

/** Sums over every attempt of a conversation and its child agents. */
export function conversationTotals(db: Db, id: string): Promise<LedgerTotals> {
  return totalsWhere(db, CONVERSATIONS_OF, 'conversation_id IN (SELECT id FROM convs)', [id]);
}

/** Sums over every attempt of one turn (the REPL's footer for a stopped turn), or over those for one purpose. */
export function turnTotals(
  db: Db,
  conversationId: string,
  turnId: string,
  purpose?: CallPurpose,
): Promise<LedgerTotals> {
  return purpose
    ? totalsWhere(db, '', 'conversation_id = $1 AND turn_id = $2 AND purpose = $3', [conversationId, turnId, purpose])
    : totalsWhere(db, '', 'conversation_id = $1 AND turn_id = $2', [conversationId, turnId]);
}
