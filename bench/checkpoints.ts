/**
 * The cost of one checkpoint snapshot (docs/checkpoints.md): a workspace of `files` files in 20
 * folders, snapshotted once (the first snapshot stores everything), then `rounds` times with three
 * files changed before each: stage, tree, commit and refs, as a turn's snapshot runs them.
 * `npx tsx bench/checkpoints.ts` runs it alone; `npm run bench` prints it with the rest.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { takeSnapshot, turnRef } from '../checkpoints/snapshot.js';

export interface SnapshotCost {
  files: number;
  firstMs: number;
  p50Ms: number;
  p95Ms: number;
}

export async function measureSnapshots(files: number, rounds: number): Promise<SnapshotCost> {
  const root = mkdtempSync(join(tmpdir(), 'herald-bench-checkpoints-'));
  const ws = join(root, 'ws');
  try {
    for (let i = 0; i < files; i++) {
      const dir = join(ws, `dir${i % 20}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `file${i}.ts`), `export const value${i} = ${i};\n`.repeat(20));
    }
    const repo = { gitDir: join(root, 'shadow.git'), workTree: ws };
    let t0 = performance.now();
    await takeSnapshot(repo, turnRef(0, 'after'), 'first');
    const firstMs = performance.now() - t0;
    const times: number[] = [];
    for (let r = 1; r <= rounds; r++) {
      for (let k = 0; k < 3; k++) writeFileSync(join(ws, `dir${k}`, `file${k}.ts`), `export const changed = ${r};\n`);
      t0 = performance.now();
      await takeSnapshot(repo, turnRef(r, 'before'), `round ${r}`);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;
    return { files, firstMs, p50Ms: at(50), p95Ms: at(95) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function describeSnapshotCost(c: SnapshotCost): string {
  return `checkpoint snapshot, ${c.files.toLocaleString('en')} files, 3 changed: p50 ${c.p50Ms.toFixed(1)} ms, p95 ${c.p95Ms.toFixed(1)} ms (first snapshot ${c.firstMs.toFixed(0)} ms; goal ≤ 50 ms p50)`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const n of [200, 2000]) console.log(describeSnapshotCost(await measureSnapshots(n, 20)));
}
