/**
 * The fault injector: from a seeded PRNG, at random moments of the fault window, one of the
 * enabled faults — a worker killed with SIGKILL, the Temporal dev server restarted, Postgres
 * restarted — one at a time (a restart is complete before the next fault). The first faults go
 * through every enabled kind once, in a random order, so even a short run injects each kind.
 */
import { prng } from '../prng.js';
import type { ChaosServers } from './servers.js';
import type { WorkerPool } from './workers.js';

export const FAULT_KINDS = ['kill-worker', 'restart-temporal', 'restart-postgres'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRecord {
  kind: FaultKind;
  /** Milliseconds since the chaos phase began. */
  at: number;
  /** How long the fault took to inject and recover from (a restart's down time included). */
  ms: number;
  detail: string;
  error?: string;
}

export interface FaultPlan {
  seed: number;
  kinds: readonly FaultKind[];
  /** Mean pause between faults (uniform in [0.5, 1.5] × mean). */
  meanIntervalMs: number;
  /** How long a restarted server stays down: uniform in [min, max]. */
  downMs: [number, number];
}

export class FaultInjector {
  readonly records: FaultRecord[] = [];
  private stopped = false;
  private wake: () => void = () => {};
  private loop: Promise<void> | undefined;

  constructor(
    private readonly plan: FaultPlan,
    private readonly servers: ChaosServers,
    private readonly workers: WorkerPool,
    private readonly t0: () => number,
    private readonly log: (line: string) => void,
  ) {}

  /** Inject faults until stop() or `untilMs` (since the chaos phase began). */
  start(untilMs: number): void {
    this.loop = this.run(untilMs);
  }

  /** Stop injecting; resolves when a fault in progress has recovered. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
  }

  private async run(untilMs: number): Promise<void> {
    const random = prng(this.plan.seed ^ 0xfa17);
    const order = [...this.plan.kinds];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (let n = 0; ; n++) {
      const pause = this.plan.meanIntervalMs * (0.5 + random());
      // The first round (each kind once) is not cut short by the window: only stop() ends it.
      if (n >= order.length && this.t0() + pause >= untilMs) return;
      await new Promise<void>((r) => {
        const t = setTimeout(r, pause);
        this.wake = () => {
          clearTimeout(t);
          r();
        };
      });
      if (this.stopped) return;
      const kind = n < order.length ? order[n]! : this.plan.kinds[Math.floor(random() * this.plan.kinds.length)]!;
      const [lo, hi] = this.plan.downMs;
      await this.inject(kind, lo + Math.floor(random() * (hi - lo + 1)), random());
    }
  }

  private async inject(kind: FaultKind, downMs: number, pick: number): Promise<void> {
    const at = this.t0();
    const rec: FaultRecord = { kind, at, ms: 0, detail: '' };
    try {
      if (kind === 'kill-worker') {
        // Right after a kill or a restart the replacement may still be starting: wait for one that polls.
        await this.workers.settled(60_000, 1);
        const e = this.workers.kill(pick);
        rec.detail = e ? `SIGKILL worker ${e.worker} (pid ${e.pid})` : 'no worker polling: nothing killed';
      } else if (kind === 'restart-temporal') {
        rec.detail = `SIGKILL, down ${(downMs / 1000).toFixed(1)} s, started again on the same port and history file`;
        await this.servers.restartTemporal(downMs);
      } else {
        rec.detail = `immediate shutdown, down ${(downMs / 1000).toFixed(1)} s, started again on the same port and data`;
        await this.servers.restartPostgres(downMs);
      }
    } catch (err) {
      rec.error = err instanceof Error ? err.message : String(err);
    }
    rec.ms = this.t0() - at;
    this.records.push(rec);
    this.log(
      `  fault at ${(at / 1000).toFixed(1)} s: ${kind}: ${rec.detail} (${(rec.ms / 1000).toFixed(1)} s)${rec.error ? ` FAILED: ${rec.error}` : ''}`,
    );
  }
}
