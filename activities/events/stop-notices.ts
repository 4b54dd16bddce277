/**
 * The stop side channel (docs/architecture.md). A `stop` signal reaches a running model call only on
 * a heartbeat reply (hundreds of milliseconds: the worker's heartbeat throttle, then the server's
 * answer). So a client that stops a turn also says so through Postgres, `NOTIFY herald_stops`
 * with the conversation id (and the turn id when it knows it); every worker LISTENs on one
 * connection of its own and aborts the HTTP requests of that conversation's running model calls
 * at once. The notice only saves the provider's time: it never ends the activity. Temporal's
 * cancellation (the signal → the workflow → the activity) still decides; see call-model.ts for
 * what an aborted call does while it waits for it.
 */
import pg from 'pg';
import { SESSION_ID_PATTERN } from '../../common/contract.js';

export const STOPS_CHANNEL = 'herald_stops';

/** Turn ids are the client's own (or random hex); longer ones are not a turn the notice can name. */
const MAX_TURN_ID = 128;

export interface StopNotice {
  conversationId: string;
  /** The turn being stopped, when the client knows it: a call of another turn is left alone. */
  turnId?: string | undefined;
}

/** The NOTIFY payload (well under Postgres's 8,000-byte cap: both ids are bounded). */
export function stopNoticePayload(n: StopNotice): string {
  if (!SESSION_ID_PATTERN.test(n.conversationId)) throw new Error(`not a conversation id: ${n.conversationId}`);
  const turn = n.turnId && n.turnId.length <= MAX_TURN_ID ? n.turnId : undefined;
  return JSON.stringify(turn ? { c: n.conversationId, t: turn } : { c: n.conversationId });
}

export function parseStopNotice(payload: string | undefined): StopNotice | undefined {
  if (!payload || payload.length > 1000) return undefined;
  try {
    const v = JSON.parse(payload) as { c?: unknown; t?: unknown };
    if (typeof v.c !== 'string' || !SESSION_ID_PATTERN.test(v.c)) return undefined;
    return { conversationId: v.c, turnId: typeof v.t === 'string' ? v.t : undefined };
  } catch {
    return undefined;
  }
}

/** Send a stop notice on any connection (a pool or a client). */
export async function sendStopNotice(
  db: { query(sql: string, params: unknown[]): Promise<unknown> },
  n: StopNotice,
): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [STOPS_CHANNEL, stopNoticePayload(n)]);
}

interface RunningCall {
  turnId: string;
  controller: AbortController;
}

/** The worker-local registry of running model calls, by conversation. */
export class RunningCalls {
  private readonly byConversation = new Map<string, Set<RunningCall>>();

  /** Track a call's HTTP request; the returned function forgets it (call it when the request is done). */
  register(conversationId: string, turnId: string, controller: AbortController): () => void {
    const call = { turnId, controller };
    let set = this.byConversation.get(conversationId);
    if (!set) this.byConversation.set(conversationId, (set = new Set()));
    set.add(call);
    return () => {
      set.delete(call);
      if (set.size === 0 && this.byConversation.get(conversationId) === set) this.byConversation.delete(conversationId);
    };
  }

  /** Abort the calls a notice names; returns how many were aborted. */
  abort(n: StopNotice): number {
    let aborted = 0;
    for (const call of this.byConversation.get(n.conversationId) ?? []) {
      if (n.turnId !== undefined && n.turnId !== call.turnId) continue;
      if (call.controller.signal.aborted) continue;
      call.controller.abort(new Error('stop requested (side channel)'));
      aborted += 1;
    }
    return aborted;
  }

  get size(): number {
    let n = 0;
    for (const s of this.byConversation.values()) n += s.size;
    return n;
  }
}

export interface StopListenerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface StopListener {
  close(): Promise<void>;
}

const RECONNECT_MS = [250, 1000, 5000];

/**
 * One LISTEN connection for the worker. A lost connection is reconnected with backoff; meanwhile
 * stops take the heartbeat path (slower, never wrong), so a listener failure is only logged.
 */
export async function listenForStops(
  databaseUrl: string,
  calls: RunningCalls,
  log: StopListenerLog,
): Promise<StopListener> {
  let closed = false;
  let client: pg.Client | undefined;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    if (closed) return;
    const c = new pg.Client({ connectionString: databaseUrl });
    client = c;
    const retry = (err: unknown) => {
      if (closed || client !== c) return;
      client = undefined;
      void c.end().catch(() => {});
      const delay = RECONNECT_MS[Math.min(failures, RECONNECT_MS.length - 1)]!;
      failures += 1;
      if (failures <= 3) log.warn({ err: String(err), retryInMs: delay }, 'stop listener lost its connection');
      timer = setTimeout(() => void connect(), delay);
      timer.unref();
    };
    c.on('error', retry);
    c.on('end', () => retry(new Error('connection ended')));
    c.on('notification', (m) => {
      if (m.channel !== STOPS_CHANNEL) return;
      const notice = parseStopNotice(m.payload);
      if (!notice) return;
      const aborted = calls.abort(notice);
      if (aborted) log.info({ conversationId: notice.conversationId, aborted }, 'stop notice: model request aborted');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${STOPS_CHANNEL}`);
      failures = 0;
    } catch (err) {
      retry(err);
    }
  };
  // The first attempt is awaited: a worker that says it started already hears stops.
  await connect();

  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
