/**
 * The checkpoint store's size and pruning (docs/checkpoints.md): shadow repositories untouched for
 * `retentionDays` are removed, then, while the store is over `maxStoreMb`, the least recently used
 * ones. A repository's age is its `HEAD`'s modification time (every snapshot and rewind moves it).
 * The diffs in Postgres stay. Run at worker start and then hourly, with the events' pruning.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { HeraldConfig } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import { checkpointStore } from './paths.js';

export interface StoreRepo {
  path: string;
  bytes: number;
  usedAt: number;
}

function sizeOf(dir: string, budget = { left: 1_000_000 }): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (budget.left-- <= 0) break;
    const p = join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    total += st.isDirectory() ? sizeOf(p, budget) : st.blocks * 512;
  }
  return total;
}

/** Every shadow repository of the store with its size and last use. */
export function listStore(store: string): StoreRepo[] {
  let names: string[];
  try {
    names = readdirSync(store);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.git'))
    .map((n) => {
      const path = join(store, n);
      const head = statSync(join(path, 'HEAD'), { throwIfNoEntry: false });
      return { path, bytes: sizeOf(path), usedAt: head?.mtimeMs ?? 0 };
    });
}

export function storeSize(store: string): { repos: number; bytes: number } {
  const repos = listStore(store);
  return { repos: repos.length, bytes: repos.reduce((n, r) => n + r.bytes, 0) };
}

/** Remove what is past the limits; returns how many repositories went and the bytes freed. */
export function pruneStore(
  store: string,
  limits: { retentionDays: number; maxStoreMb: number },
  now = Date.now(),
): { removed: number; bytes: number } {
  const repos = listStore(store).sort((a, b) => a.usedAt - b.usedAt);
  let total = repos.reduce((n, r) => n + r.bytes, 0);
  const cutoff = now - limits.retentionDays * 86_400_000;
  const max = limits.maxStoreMb * 1024 * 1024;
  let removed = 0;
  let freed = 0;
  for (const r of repos) {
    if (r.usedAt >= cutoff && total <= max) break;
    rmSync(r.path, { recursive: true, force: true });
    removed += 1;
    freed += r.bytes;
    total -= r.bytes;
  }
  return { removed, bytes: freed };
}

/** The worker's pruning pass: never fails the caller (a failure is logged). */
export function pruneCheckpoints(config: HeraldConfig, log: Logger): void {
  try {
    const r = pruneStore(checkpointStore(config.home), config.file.checkpoints);
    if (r.removed) log.info(r, 'checkpoints: removed shadow repositories past the retention limits');
  } catch (err) {
    log.warn({ err: String(err) }, 'checkpoint pruning failed');
  }
}
