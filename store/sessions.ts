/** Session rows: one per session id; compression and delegation link sessions by parent id. */
import { randomBytes } from 'node:crypto';
import type { Usage } from '../common/messages.js';
import type { ProviderRef } from '../common/providers.js';
import type { Db } from './db.js';
import { withTransaction } from './db.js';

export interface SessionRow {
  id: string;
  parent_id: string | null;
  conversation_id: string;
  workflow_id: string | null;
  title: string | null;
  source: string;
  provider: string | null;
  model: string | null;
  system_prompt: string | null;
  cwd: string | null;
  started_at: Date;
  ended_at: Date | null;
  end_reason: string | null;
  api_calls: number;
  input_tokens: string;
  output_tokens: string;
  estimated_cost_usd: string;
  /** Marks Herald's own notes in this session (shared/markers.ts); null for sessions made before it existed. */
  marker_nonce: string | null;
}

export interface NewSession {
  id: string;
  conversationId: string;
  workflowId: string;
  source: string;
  provider: ProviderRef;
  systemPrompt: string;
  cwd: string;
  markerNonce?: string | undefined;
  title?: string | undefined;
  parentId?: string | undefined;
  /** Messages to seed a new session with; written with the session row, atomically. */
  history?: Array<{ role: 'user' | 'assistant'; content: string }> | undefined;
}

/** Create the session row if it does not exist; an existing row (a resumed session) is kept. */
export async function ensureSession(db: Db, s: NewSession): Promise<SessionRow> {
  await withTransaction(db, async (client) => {
    const inserted = await client.query(
      `INSERT INTO sessions (id, parent_id, conversation_id, workflow_id, title, source, provider, model, api_mode, base_url, system_prompt, cwd, marker_nonce)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (id) DO NOTHING`,
      [
        s.id,
        s.parentId ?? null,
        s.conversationId,
        s.workflowId,
        s.title ?? null,
        s.source,
        s.provider.provider,
        s.provider.model,
        s.provider.apiMode,
        s.provider.baseUrl,
        s.systemPrompt,
        s.cwd,
        s.markerNonce ?? null,
      ],
    );
    if (inserted.rowCount !== 1) return;
    for (const [seq, m] of (s.history ?? []).entries()) {
      await client.query('INSERT INTO messages (session_id, seq, role, content) VALUES ($1, $2, $3, $4)', [
        s.id,
        seq,
        m.role,
        m.content,
      ]);
    }
  });
  const row = await getSession(db, s.id);
  if (!row) throw new Error(`session ${s.id} vanished right after it was written`);
  return row;
}

/** A new random marker nonce (16 hex digits). */
export const newMarkerNonce = () => randomBytes(8).toString('hex');

/** What every model request of a session starts with: its system prompt and marker nonce. */
export interface SessionPrompt {
  systemPrompt: string;
  nonce: string;
}

/**
 * Per database (a pool is one database), the sessions' prompts already read: every model call
 * needs both, and at 200 conversations the two reads were a round trip each per call. Never
 * stale: a session's system prompt is written once, with its row (a compression makes a new
 * session, never an UPDATE), and its nonce is set once (first writer wins) and never changed; no
 * session row is deleted. Bounded in entries and in characters (a prompt can be tens of KB),
 * the least recently used going first.
 */
const promptCaches = new WeakMap<Db, Map<string, SessionPrompt>>();
const PROMPT_CACHE_MAX_ENTRIES = 2_000;
const PROMPT_CACHE_MAX_CHARS = 16_000_000;
const promptCacheChars = new WeakMap<Map<string, SessionPrompt>, number>();

function promptCache(db: Db): Map<string, SessionPrompt> {
  let cache = promptCaches.get(db);
  if (!cache) {
    cache = new Map();
    promptCaches.set(db, cache);
    promptCacheChars.set(cache, 0);
  }
  return cache;
}

function remember(cache: Map<string, SessionPrompt>, id: string, entry: SessionPrompt): void {
  let chars = promptCacheChars.get(cache)! + entry.systemPrompt.length;
  cache.set(id, entry);
  for (const [oldId, old] of cache) {
    if (cache.size <= PROMPT_CACHE_MAX_ENTRIES && chars <= PROMPT_CACHE_MAX_CHARS) break;
    if (oldId === id) break;
    cache.delete(oldId);
    chars -= old.systemPrompt.length;
  }
  promptCacheChars.set(cache, chars);
}

/**
 * The session's system prompt and marker nonce; a session made before nonces existed gets one now
 * (the first writer wins, so concurrent activities agree). Cached per database (see above).
 */
export async function sessionPrompt(db: Db, id: string): Promise<SessionPrompt> {
  const cache = promptCache(db);
  const cached = cache.get(id);
  if (cached) {
    cache.delete(id);
    cache.set(id, cached);
    return cached;
  }
  const r = await db.query<{ marker_nonce: string; system_prompt: string | null }>(
    'UPDATE sessions SET marker_nonce = COALESCE(marker_nonce, $2) WHERE id = $1 RETURNING marker_nonce, system_prompt',
    [id, newMarkerNonce()],
  );
  const row = r.rows[0];
  if (!row?.marker_nonce) throw new Error(`session ${id} does not exist`);
  const entry = { systemPrompt: row.system_prompt ?? '', nonce: row.marker_nonce };
  if (!cache.has(id)) remember(cache, id, entry);
  return cache.get(id) ?? entry;
}

/** The session's marker nonce (see sessionPrompt). */
export async function sessionMarkerNonce(db: Db, id: string): Promise<string> {
  return (await sessionPrompt(db, id)).nonce;
}

/**
 * The newest session of a conversation's compression lineage (`<id>.1`, `<id>.2`, …) when the
 * session being resumed has compressed; undefined when it never did.
 */
export async function latestInLineage(
  db: Db,
  conversationId: string,
  sessionId: string,
): Promise<{ sessionId: string; compressions: number } | undefined> {
  if (sessionId !== conversationId) return undefined;
  const r = await db.query<{ id: string }>('SELECT id FROM sessions WHERE conversation_id = $1', [conversationId]);
  let best: { sessionId: string; compressions: number } | undefined;
  for (const { id } of r.rows) {
    if (!id.startsWith(`${conversationId}.`)) continue;
    const n = Number(id.slice(conversationId.length + 1));
    if (Number.isInteger(n) && n > 0 && n > (best?.compressions ?? 0)) best = { sessionId: id, compressions: n };
  }
  return best;
}

/**
 * What a conversation reopened in a new run goes on from: the session totals its last run wrote
 * (absolute values, so the new run must start from them, not from zero) and its last turn number
 * (so turn ids do not repeat).
 */
export async function resumeTotals(
  db: Db,
  conversationId: string,
  sessionId: string,
): Promise<{ usage: Usage; apiCalls: number; turn: number }> {
  const s = await db.query<Record<string, string | number | null>>(
    `SELECT api_calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
            estimated_cost_usd FROM sessions WHERE id = $1`,
    [sessionId],
  );
  const t = await db.query<{ turn: number | null }>(
    `SELECT max(substring(turn_id from ':([0-9]+)$')::int) AS turn FROM turn_results WHERE conversation_id = $1`,
    [conversationId],
  );
  const row = s.rows[0] ?? {};
  const n = (k: string) => Number(row[k] ?? 0) || 0;
  const usage: Usage = {
    input_tokens: n('input_tokens'),
    output_tokens: n('output_tokens'),
    cache_read_tokens: n('cache_read_tokens'),
    cache_write_tokens: n('cache_write_tokens'),
    reasoning_tokens: n('reasoning_tokens'),
    total_tokens: 0,
    cost_usd: n('estimated_cost_usd'),
  };
  usage.total_tokens = usage.input_tokens + usage.output_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
  return { usage, apiCalls: n('api_calls'), turn: t.rows[0]?.turn ?? 0 };
}

/** A resumed session is live again. */
export async function reopenSession(db: Db, id: string): Promise<void> {
  await db.query('UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = $1 AND ended_at IS NOT NULL', [id]);
}

export async function getSession(db: Db, id: string): Promise<SessionRow | undefined> {
  const r = await db.query<SessionRow>('SELECT * FROM sessions WHERE id = $1', [id]);
  return r.rows[0];
}

/** Totals are absolute values from the workflow, so writing them twice changes nothing. */
export async function setSessionTotals(db: Db, id: string, usage: Usage, apiCalls: number): Promise<void> {
  await db.query(
    `UPDATE sessions SET api_calls = $2, input_tokens = $3, output_tokens = $4, cache_read_tokens = $5,
            cache_write_tokens = $6, reasoning_tokens = $7, estimated_cost_usd = $8
      WHERE id = $1`,
    [
      id,
      apiCalls,
      usage.input_tokens,
      usage.output_tokens,
      usage.cache_read_tokens,
      usage.cache_write_tokens,
      usage.reasoning_tokens,
      usage.cost_usd,
    ],
  );
}

/** The session's model after a `setModel` (what `herald sessions` shows). */
export async function setSessionModel(db: Db, id: string, ref: ProviderRef): Promise<void> {
  await db.query('UPDATE sessions SET provider = $2, model = $3, api_mode = $4, base_url = $5 WHERE id = $1', [
    id,
    ref.provider,
    ref.model,
    ref.apiMode,
    ref.baseUrl,
  ]);
}

export async function setTitleIfMissing(db: Db, id: string, title: string): Promise<void> {
  await db.query('UPDATE sessions SET title = $2 WHERE id = $1 AND title IS NULL', [id, title]);
}

export async function endSession(db: Db, id: string, reason: string): Promise<void> {
  await db.query(
    'UPDATE sessions SET ended_at = coalesce(ended_at, now()), end_reason = coalesce(end_reason, $2) WHERE id = $1',
    [id, reason],
  );
}

/** One conversation for `herald sessions`: its first session's title and start, its current session's model and size. */
export interface ConversationListItem {
  /** The conversation id: what every `herald` command takes. */
  id: string;
  workflow_id: string | null;
  /** The session of the current context (`<id>.<n>` after n compressions). */
  current_session: string;
  compressions: number;
  title: string | null;
  source: string;
  model: string | null;
  started_at: Date;
  ended_at: Date | null;
  parent_id: string | null;
  /** Messages in the current context. */
  messages: number;
  /**
   * The conversation's totals as its last turn wrote them (the current session's row): every
   * model-call attempt, failed and cancelled ones included, and its child agents' usage.
   */
  api_calls: number;
  total_tokens: number;
  cost_usd: number;
}

/** Recent conversations, newest first; a compression lineage is one row. */
export async function listConversations(db: Db, limit = 20): Promise<ConversationListItem[]> {
  const r = await db.query<ConversationListItem>(
    `SELECT r.id, r.workflow_id, cur.id AS current_session, r.title, r.source, cur.model, r.started_at,
            cur.ended_at, r.parent_id, cur.api_calls, cur.total_tokens, cur.cost_usd,
            (SELECT count(*)::int - 1 FROM sessions l WHERE l.conversation_id = r.conversation_id) AS compressions,
            (SELECT count(*)::int FROM messages m WHERE m.session_id = cur.id) AS messages
       FROM sessions r
       CROSS JOIN LATERAL (SELECT s.id, s.model, s.ended_at, s.api_calls,
                                  (s.input_tokens + s.output_tokens + s.cache_read_tokens + s.cache_write_tokens)::float8 AS total_tokens,
                                  s.estimated_cost_usd::float8 AS cost_usd
                             FROM sessions s
                            WHERE s.conversation_id = r.conversation_id
                            ORDER BY s.started_at DESC, s.id DESC LIMIT 1) cur
      WHERE r.id = r.conversation_id
      ORDER BY r.started_at DESC LIMIT $1`,
    [limit],
  );
  return r.rows;
}
