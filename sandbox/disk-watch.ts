/**
 * Watches a running command's disk use: the file size cap alone bounds each file, not how many a
 * command writes. Ten times a second the filesystem's used space is read (cheap); when it grew by
 * more than the room left, and at least once a second anyway, the workspace is measured, and a
 * command that took it over the cap is killed.
 */
import { statfsSync } from 'node:fs';
import { walkWorkspace } from './workspace-walk.js';

export class DiskWatch {
  stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly workspace: string,
    private readonly cap: number,
    private readonly usedBefore: number,
    private readonly skip: readonly string[],
  ) {}

  private fsUsed(): number | undefined {
    try {
      const st = statfsSync(this.workspace);
      return (st.blocks - st.bfree) * st.bsize;
    } catch {
      return undefined;
    }
  }

  start(kill: () => void): void {
    const base = this.fsUsed() ?? 0;
    const room = this.cap - this.usedBefore;
    let lastWalk = Date.now();
    this.timer = setInterval(() => {
      if (this.busy || this.stopped) return;
      const now = this.fsUsed();
      // The filesystem's numbers are shared with everything else on it (another process freeing
      // space hides this command's growth): the workspace itself is also measured every few seconds.
      const grew = now !== undefined && now - base > room;
      if (!grew && Date.now() - lastWalk < DISK_WALK_EVERY_MS) return;
      lastWalk = Date.now();
      this.busy = true;
      walkWorkspace(this.workspace, { skip: this.skip })
        .then((r) => {
          if (r.bytes > this.cap && this.timer) {
            this.stopped = true;
            kill();
          }
        })
        .catch(() => {})
        .finally(() => (this.busy = false));
    }, DISK_WATCH_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

const DISK_WATCH_MS = 100;
const DISK_WALK_EVERY_MS = 1_000;
