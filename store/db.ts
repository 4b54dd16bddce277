/**
 * The Postgres connection pool. Every worker and client shares one database (docs/architecture.md): Postgres
 * is the single source of truth for transcripts, usage, events and memory.
 */
import pg from 'pg';
import { storableParam } from '../shared/storable-text.js';
import { redactor } from '../runtime/secrets.js';

export type Db = pg.Pool;

/**
 * A pool whose every query parameter is made storable (shared/storable-text.ts: no NUL, no lone
 * surrogate — a write that Postgres refuses would be retried forever) and, with `redact`, passes
 * the process's redactor (docs/tool-sandbox.md): nothing a worker writes — messages, tool calls, events,
 * ledger rows, approvals, memory — can hold a credential it knows. Clients of the pool
 * (transactions included) are wrapped as they connect.
 */
export function createDb(connectionString: string, max = 10, o: { redact?: boolean } = {}): Db {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection (database restart) must not crash the process: the next
  // query gets a fresh connection, and activities retry.
  pool.on('error', () => {});
  pool.on('connect', (client) => guardQueries(client, o.redact ?? false));
  return pool;
}

function redactParam(v: unknown): unknown {
  if (typeof v === 'string') return looksLikeJson(v) ? redactJsonText(v) : redactor().redact(v);
  if (v !== null && typeof v === 'object' && !(v instanceof Date) && !Buffer.isBuffer(v))
    return redactor().redactDeep(v);
  return v;
}

function looksLikeJson(v: string): boolean {
  const first = v.trimStart()[0];
  return first === '{' || first === '[';
}

/**
 * A JSON document (an event payload, tool calls) is redacted value by value: a secret matched in its
 * skeleton may span JSON punctuation, and replacing that span in the text would break the document
 * (Postgres then refuses it, and the write is retried forever). Unchanged, it is returned as it came.
 */
function redactJsonText(v: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    return redactor().redact(v);
  }
  const redacted = redactor().redactDeep(parsed);
  const text = JSON.stringify(redacted);
  return text === JSON.stringify(parsed) ? v : text;
}

function guardQueries(client: pg.PoolClient, redact: boolean): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const guard = (v: unknown) => storableParam(redact ? redactParam(v) : v);
  (client as { query: unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
    if (Array.isArray(values)) values = values.map(guard);
    else if (config && typeof config === 'object' && Array.isArray((config as { values?: unknown[] }).values))
      config = { ...config, values: (config as { values: unknown[] }).values.map(guard) };
    return callback === undefined ? query(config, values) : query(config, values, callback);
  };
}

/** Run `fn` in a transaction on one client. */
export async function withTransaction<T>(db: Db, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  // A connection lost while the client is held emits 'error' on it; unheard, that kills the process.
  let lost: Error | undefined;
  const onError = (err: Error) => {
    lost = err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    if (!lost) await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.off('error', onError);
    // A broken connection is destroyed, not returned to the pool.
    client.release(lost);
  }
}

/** Mask the password of a connection string for display. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]+@/, ':***@');
  }
}
