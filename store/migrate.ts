/**
 * Plain-SQL migrations, applied in file-name order at worker start. An advisory lock makes
 * concurrent workers on a fresh database take turns instead of racing.
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';
import { withTransaction } from './db.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const LOCK_ID = 0x6865726c; // "herl"

export async function migrate(db: Db): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  return await withTransaction(db, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS herald_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await client.query<{ name: string }>('SELECT name FROM herald_migrations')).rows.map((r) => r.name),
    );
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await client.query(await readFile(`${MIGRATIONS_DIR}${file}`, 'utf8'));
      await client.query('INSERT INTO herald_migrations (name) VALUES ($1)', [file]);
      applied.push(file);
    }
    return applied;
  });
}
