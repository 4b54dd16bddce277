/**
 * Publishes a model call's or tool's events to the side channel. Deltas are batched (a fast
 * stream must not become one row per token) and written in order by a single chain. Publishing is
 * best-effort: the transcript is the truth, so an event write failure is logged, never fatal.
 * The batching is a throttle with a leading edge: a delta that finds no delta write in the last
 * 40 ms (the call's first, or the first after a pause) is written at once, so the first token
 * reaches a client in a few milliseconds; the deltas after it wait for the rest of the interval.
 * That keeps one delta write per interval at most, as before (event publishing is most of Postgres's
 * statements), and adds one write per stream burst.
 * Writes coalesce: what is queued within one tick (a tool's `tool.started` and `status`, a call's
 * last delta and its `step`) goes out as one statement on a microtask, and whatever queues while a
 * write is in flight goes out in one statement after it — never one statement per event (measured:
 * event publishing was three quarters of Postgres's statements). A microtask is not a delay: the
 * first delta still reaches Postgres in the same turn of the event loop.
 * Deltas pass a stream redactor first: a secret split across two batches is held back until it is
 * whole, so it is redacted like any other (docs/tool-sandbox.md).
 */
import { StreamRedactor } from '../../shared/redaction.js';
import { redactor } from '../../runtime/secrets.js';
import type { Db } from '../../store/db.js';
import type { EventKind, NewEvent } from '../../store/events.js';
import { appendEvents } from '../../store/events.js';

const FLUSH_INTERVAL_MS = 40;
const MAX_BUFFERED_CHARS = 4000;

export interface PublisherLog {
  warn(obj: object, msg: string): void;
}

export class EventPublisher {
  private chain: Promise<void> = Promise.resolve();
  private pending: NewEvent[] = [];
  private text = '';
  private reasoning = '';
  private timer: NodeJS.Timeout | undefined;
  /** A write is due on a microtask (coalescing what this tick queues). */
  private tickQueued = false;
  /** A write chained behind the one in flight and not yet started: it takes whatever is pending then. */
  private waitingWrite = false;
  private failures = 0;
  /** When deltas were last written (0: never); the throttle's leading edge. */
  private lastDeltaWriteAt = 0;
  private readonly textStream = new StreamRedactor(redactor());
  private readonly reasoningStream = new StreamRedactor(redactor());

  constructor(
    private readonly db: Db,
    private readonly conversationId: string,
    private readonly turnId: string,
    private readonly log: PublisherLog,
    /** Fields added to every delta event (e.g. which call produced it). */
    private readonly deltaTags: Record<string, unknown> = {},
  ) {}

  /** Queue a discrete event (flushes pending deltas first to keep order). */
  emit(kind: EventKind, payload: Record<string, unknown> = {}): void {
    this.moveDeltas(true);
    this.pending.push({ kind, turnId: this.turnId, payload });
    this.schedule(0);
  }

  textDelta(delta: string): void {
    if (this.reasoning) this.moveDeltas(true);
    this.text += this.textStream.push(delta);
    this.schedule(this.text.length >= MAX_BUFFERED_CHARS ? 0 : this.deltaDelay());
  }

  reasoningDelta(delta: string): void {
    if (this.text) this.moveDeltas(true);
    this.reasoning += this.reasoningStream.push(delta);
    this.schedule(this.reasoning.length >= MAX_BUFFERED_CHARS ? 0 : this.deltaDelay());
  }

  /** How long a new delta waits: none after a quiet interval, else the interval's rest. */
  private deltaDelay(): number {
    if (this.timer) return FLUSH_INTERVAL_MS; // a write is already due
    return Math.max(0, this.lastDeltaWriteAt + FLUSH_INTERVAL_MS - Date.now());
  }

  /** Write everything queued so far; resolves when it is in the database (or has failed). */
  flush(): Promise<void> {
    return this.write(true);
  }

  /** A timer's write keeps back what may be the start of a secret; an explicit flush releases it. */
  private async write(final: boolean): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.moveDeltas(final)) this.lastDeltaWriteAt = Date.now();
    if (this.pending.length && !this.waitingWrite) {
      this.waitingWrite = true;
      this.chain = this.chain.then(() => {
        this.waitingWrite = false;
        const batch = this.pending;
        this.pending = [];
        return appendEvents(this.db, this.conversationId, batch).then(
          () => undefined,
          (err: unknown) => {
            this.failures += 1;
            if (this.failures <= 3) this.log.warn({ err: String(err), events: batch.length }, 'event publish failed');
          },
        );
      });
    }
    await this.chain;
  }

  /** Queue the buffered deltas as events; says whether there were any. */
  private moveDeltas(final: boolean): boolean {
    if (final) {
      this.text += this.textStream.flush();
      this.reasoning += this.reasoningStream.flush();
    }
    if (this.text)
      this.pending.push({ kind: 'text.delta', turnId: this.turnId, payload: { ...this.deltaTags, text: this.text } });
    if (this.reasoning)
      this.pending.push({
        kind: 'reasoning.delta',
        turnId: this.turnId,
        payload: { ...this.deltaTags, text: this.reasoning },
      });
    const moved = this.text !== '' || this.reasoning !== '';
    this.text = '';
    this.reasoning = '';
    return moved;
  }

  private schedule(delayMs: number): void {
    if (delayMs === 0) {
      if (this.tickQueued) return;
      this.tickQueued = true;
      queueMicrotask(() => {
        this.tickQueued = false;
        void this.write(false);
      });
      return;
    }
    this.timer ??= setTimeout(() => void this.write(false), delayMs);
  }
}
