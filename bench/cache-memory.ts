/**
 * `npm run bench:memory`: the heap one cached conversation takes on a worker (README "Capacity
 * and tuning"). An in-process worker runs its workflows on the main thread (so the heap is
 * measurable), N conversations each run three turns of model call → read_file → answer and stay
 * cached; the heap after a full GC, minus the heap before them, divided by N. Run with
 * `--expose-gc` (the npm script does). Numbers, not assertions.
 *
 *   npm run bench:memory -- --n=100
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { startWorker } from '../workers/worker.js';
import { createTestStack, stopSharedInfra } from '../test/support/stack.js';
import { SCALE_FILE, scaleMessage, scaleResponder } from './scale-support.js';

const n = Number(process.argv.find((a) => a.startsWith('--n='))?.slice(4) ?? 100);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:memory does)');

async function settledHeapMb(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await sleep(200);
  }
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

const stack = await createTestStack({ worker: false });
try {
  stack.fake.respond(scaleResponder);
  const ws = join(stack.workspaces, 'ws');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, SCALE_FILE), 'hello\n');
  const config = loadConfig({ PATH: process.env.PATH ?? '', ...(stack.workerEnv() as Record<string, string>) });
  const worker = await startWorker({
    config,
    log: createLogger('warn'),
    env: stack.workerEnv(),
    workflowsOnMainThread: true,
  });
  try {
    const converse = async (id: string) => {
      const conv = stack.herald.conversation(id);
      for (let t = 1; t <= 3; t++) await conv.send(scaleMessage(t, 0), { start: { cwd: ws } });
    };
    // Warm-up: the bundle's shared modules, connections, caches.
    for (let i = 0; i < 5; i++) await converse(`mem-warm-${i}`);
    const before = await settledHeapMb();
    for (let i = 0; i < n; i += 10)
      await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, j) => converse(`mem-${i + j}`)));
    const after = await settledHeapMb();
    console.log(
      `${n} cached conversations (3 turns each): heap ${before.toFixed(1)} → ${after.toFixed(1)} MB, ${((after - before) / n).toFixed(2)} MB per cached conversation`,
    );
  } finally {
    await worker.shutdown();
  }
} finally {
  await stack.close();
  await stopSharedInfra();
}
