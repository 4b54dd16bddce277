/** The memory stores (docs/long-conversations.md): ordered entries per store, with a character budget each. */
import type { Db } from './db.js';

export const MEMORY_STORES = ['memory', 'user'] as const;
export type MemoryStore = (typeof MEMORY_STORES)[number];

/** Character budgets (all entries of a store together), as in Hermes. */
export const MEMORY_LIMITS: Record<MemoryStore, number> = { memory: 2200, user: 1375 };

export interface MemoryEntry {
  id: number;
  content: string;
}

export async function listMemory(db: Db, store: MemoryStore): Promise<MemoryEntry[]> {
  const r = await db.query<{ id: string; content: string }>(
    'SELECT id, content FROM memory_entries WHERE store = $1 ORDER BY id',
    [store],
  );
  return r.rows.map((x) => ({ id: Number(x.id), content: x.content }));
}

export function memoryChars(entries: ReadonlyArray<{ content: string }>): number {
  return entries.reduce((n, e) => n + e.content.length, 0);
}

export async function addMemory(db: Db, store: MemoryStore, content: string): Promise<void> {
  await db.query('INSERT INTO memory_entries (store, content) VALUES ($1, $2)', [store, content]);
}

/** Replace the entries of `store` containing `match` (exact substring) with `content`. Returns how many. */
export async function replaceMemory(db: Db, store: MemoryStore, match: string, content: string): Promise<number> {
  const r = await db.query(
    'UPDATE memory_entries SET content = $3, updated_at = now() WHERE store = $1 AND position($2 in content) > 0',
    [store, match, content],
  );
  return r.rowCount ?? 0;
}

export async function removeMemory(db: Db, store: MemoryStore, match: string): Promise<number> {
  const r = await db.query('DELETE FROM memory_entries WHERE store = $1 AND position($2 in content) > 0', [
    store,
    match,
  ]);
  return r.rowCount ?? 0;
}

export async function clearMemory(db: Db, store: MemoryStore): Promise<void> {
  await db.query('DELETE FROM memory_entries WHERE store = $1', [store]);
}

/** Both stores' entries, for the system prompt of a new session. */
export async function memorySnapshot(db: Db): Promise<{ memory: string[]; user: string[] }> {
  const [memory, user] = await Promise.all([listMemory(db, 'memory'), listMemory(db, 'user')]);
  return { memory: memory.map((e) => e.content), user: user.map((e) => e.content) };
}
