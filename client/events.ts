/**
 * Following a conversation's events (docs/cli.md): replay from an offset, then live through
 * LISTEN/NOTIFY, with a slow poll as a safety net for a dropped notification or connection.
 */
import pg from 'pg';
import type { StoredEvent } from '../store/events.js';
import { EVENTS_CHANNEL, readEvents } from '../store/events.js';
import { createDb } from '../store/db.js';

export type { StoredEvent };

export interface EventWatch {
  /** Sequence number of the last event delivered. */
  readonly lastSeq: number;
  stop(): Promise<void>;
}

const SAFETY_POLL_MS = 1000;

/** Deliver every event of `conversationId` after `fromSeq`, in order, until stopped. */
export async function watchEvents(
  databaseUrl: string,
  conversationId: string,
  fromSeq: number,
  onEvent: (e: StoredEvent) => void,
): Promise<EventWatch> {
  const db = createDb(databaseUrl, 2);
  const listener = new pg.Client({ connectionString: databaseUrl });
  listener.on('error', () => {});
  let lastSeq = fromSeq;
  let stopped = false;
  let draining: Promise<void> | undefined;
  let again = false;

  const drain = async (): Promise<void> => {
    if (draining) {
      again = true;
      return await draining;
    }
    draining = (async () => {
      do {
        again = false;
        for (;;) {
          const batch = await readEvents(db, conversationId, lastSeq).catch(() => []);
          for (const e of batch) {
            if (stopped) return;
            lastSeq = e.seq;
            onEvent(e);
          }
          if (batch.length < 500) break;
        }
      } while (again && !stopped);
    })();
    try {
      await draining;
    } finally {
      draining = undefined;
    }
  };

  await listener.connect();
  listener.on('notification', (n) => {
    if (n.channel !== EVENTS_CHANNEL || !n.payload) return;
    try {
      const { c } = JSON.parse(n.payload) as { c: string };
      if (c === conversationId) void drain();
    } catch {
      // not ours
    }
  });
  await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
  await drain();
  const poll = setInterval(() => void drain(), SAFETY_POLL_MS);

  return {
    get lastSeq() {
      return lastSeq;
    },
    async stop() {
      stopped = true;
      clearInterval(poll);
      await draining?.catch(() => {});
      await listener.end().catch(() => {});
      await db.end().catch(() => {});
    },
  };
}
