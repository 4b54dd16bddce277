/**
 * `herald watch <session>`: a conversation as it happens, in one stream (stdout) and in order —
 * the user's messages (`› …`), the reply, tool lines and status lines — so a piped or recorded
 * watch reads like the chat. Without `--from` it starts at the current turn (the last one when
 * idle); `--from 0` replays the whole history. An unknown session is an error naming it; an ended
 * one is replayed and the watch exits, as it does when the conversation ends while watched.
 */
import pc from 'picocolors';
import { createDb } from '../store/db.js';
import { beforeLastTurnSeq } from '../store/events.js';
import type { HeraldClient } from './client.js';
import type { StoredEvent } from './events.js';
import { EventRenderer } from './render.js';
import { endedSummary, findSession } from './session-ref.js';

export interface WatchOptions {
  /** Deliver events after this sequence number; undefined: from the start of the current/last turn. */
  from?: number | undefined;
  json?: boolean;
}

/** The conversation ended: Herald's closing status event. */
const isEnd = (e: StoredEvent) => e.kind === 'status' && e.payload.kind === 'ended';

async function defaultStart(databaseUrl: string, conversationId: string): Promise<number> {
  const db = createDb(databaseUrl, 1);
  try {
    return await beforeLastTurnSeq(db, conversationId);
  } finally {
    await db.end();
  }
}

/** Follow `sessionId` until the conversation ends or SIGINT/SIGTERM. */
export async function runWatch(client: HeraldClient, sessionId: string, o: WatchOptions): Promise<void> {
  const found = await findSession(client, sessionId);
  const url = client.settings.databaseUrl;
  if (!url) throw new Error('watching events needs the database: set DATABASE_URL (or run `herald dev`)');
  const conv = found.conversation;
  const from = o.from ?? (await defaultStart(url, conv.sessionId));
  const renderer = new EventRenderer({ reasoning: true, spinner: false, userMessages: true, oneStream: true });
  let ended = !found.running;
  let wake: () => void = () => {};
  const done = new Promise<void>((resolve) => (wake = resolve));
  const watch = await conv.watch((e) => {
    if (o.json) process.stdout.write(`${JSON.stringify(e)}\n`);
    else renderer.render(e);
    if (isEnd(e)) {
      ended = true;
      wake();
    }
  }, from);
  // watchEvents has delivered everything stored so far: a closed conversation has nothing more.
  if (!ended) {
    const onSignal = () => wake();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    await done;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  await watch.stop();
  if (!found.running && !o.json) process.stdout.write(`${pc.dim(`(${endedSummary(found)})`)}\n`);
}
