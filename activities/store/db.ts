/**
 * The Postgres connection pool. Every worker and client shares one database (SPEC §11): Postgres
 * is the single source of truth for transcripts, usage, events and memory.
 */
import pg from 'pg';

export type Db = pg.Pool;

export function createDb(connectionString: string, max = 10): Db {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection (database restart) must not crash the process: the next
  // query gets a fresh connection, and activities retry.
  pool.on('error', () => {});
  return pool;
}

/** Run `fn` in a transaction on one client. */
export async function withTransaction<T>(db: Db, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
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
