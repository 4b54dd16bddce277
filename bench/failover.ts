/**
 * Failover after a worker death (goal < 5 s for model calls, docs/reliability.md): a worker process
 * runs a model call that streams slowly, a second worker process starts, the first is killed with
 * SIGKILL, and the figure is the time from the kill to the call's re-run reaching the provider
 * from the second worker. What sets it: the model call's heartbeat timeout (3 s) after its last
 * heartbeat, the retry's first interval (500 ms), then the new attempt loading its transcript.
 * Each sample kills the worker that took the previous sample's call over; one process stays.
 */
import { dirname } from 'node:path';
import type { HeraldProcess } from '../test/support/processes.js';
import { spawnHerald } from '../test/support/processes.js';
import type { TestStack } from '../test/support/stack.js';
import { createTestStack } from '../test/support/stack.js';

async function worker(stack: TestStack): Promise<HeraldProcess> {
  const p = spawnHerald(['worker'], stack.workerEnv());
  await p.waitFor('worker polling', 120_000);
  return p;
}

/** Kill-to-re-run times in ms, one per sample, on a stack of its own (no in-process worker). */
export async function measureFailover(samples: number, cwd: string): Promise<number[]> {
  // The workspace belongs to the caller's stack: this one's workers must accept its root too.
  const stack = await createTestStack({ worker: false, workspaceRoots: [dirname(cwd)] });
  const processes: HeraldProcess[] = [];
  try {
    let live = await worker(stack);
    processes.push(live);
    const out: number[] = [];
    for (let i = 0; i < samples; i++) {
      // Chunks 250 ms apart, then silence until the kill (the second worker may take seconds to
      // start); the re-run answers at once.
      stack.fake
        .reset()
        .script([
          { text: 'a slow reply '.repeat(40).trim(), chunkDelayMs: 250, hangAfterChunks: 20 },
          { text: 'the re-run answered' },
        ]);
      const conv = stack.herald.conversation(`bench-failover-${i}`);
      const pending = conv.send('stream slowly', { start: { cwd } });
      await stack.fake.waitForRequests(1);
      const next = await worker(stack);
      processes.push(next);
      // Somewhere in the heartbeat cycle, not right at the call's start.
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 1000));
      const killedAt = Date.now();
      live.kill('SIGKILL');
      await live.exited;
      const rerun = await stack.fake.waitForRequests(2, 60_000);
      out.push(rerun.receivedAt - killedAt);
      const r = await pending;
      if (r.final_response !== 'the re-run answered') throw new Error(`unexpected reply: ${r.final_response}`);
      live = next;
    }
    return out;
  } finally {
    for (const p of processes) p.kill('SIGKILL');
    await Promise.all(processes.map((p) => p.exited));
    await stack.close();
  }
}
