/**
 * A pool of Herald worker processes on one task queue (the real `herald worker` command), kept at
 * its size: a worker killed by the chaos run is replaced at once, and so is one that died on its
 * own or could not start (a replacement started while Temporal or Postgres is down exits with
 * its reason and is tried again). A worker that dies without being killed is reported: a server
 * restart must never take a worker down.
 */
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { HeraldProcess } from '../processes.js';
import { spawnHerald } from '../processes.js';

export interface WorkerEvent {
  at: number;
  what: 'started' | 'killed' | 'died' | 'start-failed';
  worker: number;
  pid: number | undefined;
  detail?: string;
}

interface Slot {
  n: number;
  p: HeraldProcess;
  ready: boolean;
  killed: boolean;
}

export class WorkerPool {
  readonly events: WorkerEvent[] = [];
  private readonly slots: Slot[] = [];
  private count = 0;
  private closing = false;
  private readonly logs: WriteStream;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly size: number,
    dir: string,
    private readonly t0: () => number,
  ) {
    this.logs = createWriteStream(join(dir, 'workers.log'));
  }

  /** Start the pool; resolves when every worker polls. */
  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.size }, () => this.spawn()));
  }

  /** Workers polling now. */
  get ready(): number {
    return this.slots.filter((s) => s.ready).length;
  }

  /** Kill one polling worker (SIGKILL), chosen by `pick` in [0, 1); its replacement starts at once. */
  kill(pick: number): WorkerEvent | undefined {
    const ready = this.slots.filter((s) => s.ready && !s.killed);
    const victim = ready[Math.floor(pick * ready.length)];
    if (!victim) return undefined;
    victim.killed = true;
    victim.ready = false;
    victim.p.kill('SIGKILL');
    return this.note('killed', victim);
  }

  /** Resolves once `count` workers poll (after faults), or rejects after `timeoutMs`. */
  async settled(timeoutMs: number, count = this.size): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.ready < count) {
      if (Date.now() > deadline)
        throw new Error(`only ${this.ready} of ${this.size} workers poll after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async stop(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.slots.map(async (s) => {
        s.p.kill('SIGTERM');
        const t = setTimeout(() => s.p.kill('SIGKILL'), 10_000);
        await s.p.exited;
        clearTimeout(t);
      }),
    );
    await new Promise<void>((r) => this.logs.end(() => r()));
  }

  private note(what: WorkerEvent['what'], s: Slot, detail?: string): WorkerEvent {
    const e: WorkerEvent = { at: this.t0(), what, worker: s.n, pid: s.p.child.pid, ...(detail ? { detail } : {}) };
    this.events.push(e);
    this.logs.write(
      `${(e.at / 1000).toFixed(1)}s worker ${s.n} (pid ${e.pid}) ${what}${detail ? `: ${detail}` : ''}\n`,
    );
    return e;
  }

  private async spawn(): Promise<void> {
    if (this.closing) return;
    const p = spawnHerald(['worker'], this.env);
    const slot: Slot = { n: ++this.count, p, ready: false, killed: false };
    this.slots.push(slot);
    p.child.stdout?.on('data', (c: Buffer) => this.logs.write(`[w${slot.n}] ${c.toString('utf8')}`));
    p.child.stderr?.on('data', (c: Buffer) => this.logs.write(`[w${slot.n}] ${c.toString('utf8')}`));
    void p.exited.then(() => {
      this.slots.splice(this.slots.indexOf(slot), 1);
      if (this.closing) return;
      if (!slot.killed) {
        const tail = p.output().trim().split('\n').slice(-3).join(' | ').slice(-400);
        this.note(slot.ready ? 'died' : 'start-failed', slot, tail);
      }
      // Replace it; a start that failed (a server is down) is tried again a moment later.
      setTimeout(() => void this.spawn().catch(() => {}), slot.ready || slot.killed ? 0 : 1000);
    });
    await p.waitFor('worker polling', 120_000);
    if (slot.killed) return;
    slot.ready = true;
    this.note('started', slot);
  }
}
