/**
 * The client's half of the stop side channel (activities/events/stop-notices.ts): after the `stop`
 * signal is accepted, a `NOTIFY herald_stops` lets the worker abort the model request at once
 * instead of on its next heartbeat reply. One lazily opened connection per client, opened while
 * the signal is on its way; best-effort: without it a stop only takes longer.
 */
import pg from 'pg';
import type { StopNotice } from '../activities/events/stop-notices.js';
import { sendStopNotice } from '../activities/events/stop-notices.js';

const TIMEOUT_MS = 2000;

export class StopNotifier {
  private client: Promise<pg.Client> | undefined;

  constructor(private readonly databaseUrl: string) {}

  /** Open the connection now (a later `send` then costs one round trip). */
  ready(): Promise<pg.Client> {
    this.client ??= (async () => {
      const c = new pg.Client({
        connectionString: this.databaseUrl,
        connectionTimeoutMillis: TIMEOUT_MS,
        query_timeout: TIMEOUT_MS,
      });
      c.on('error', () => {
        if (this.client) this.client = undefined;
      });
      await c.connect();
      return c;
    })();
    const pending = this.client;
    pending.catch(() => {
      if (this.client === pending) this.client = undefined;
    });
    return pending;
  }

  /** Send a notice; a failure is swallowed (the signal already carries the stop). */
  async send(notice: StopNotice): Promise<boolean> {
    try {
      await sendStopNotice(await this.ready(), notice);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    await c?.then((x) => x.end()).catch(() => {});
  }
}
