/**
 * Publishes a model call's or tool's events to the side channel. Deltas are batched (a fast
 * stream must not become one row per token) and written in order by a single chain. Publishing is
 * best-effort: the transcript is the truth, so an event write failure is logged, never fatal.
 */
import type { Db } from '../store/db.js';
import type { EventKind, NewEvent } from '../store/events.js';
import { appendEvents } from '../store/events.js';

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
  private failures = 0;

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
    this.moveDeltas();
    this.pending.push({ kind, turnId: this.turnId, payload });
    this.schedule(0);
  }

  textDelta(delta: string): void {
    if (this.reasoning) this.moveDeltas();
    this.text += delta;
    this.schedule(this.text.length >= MAX_BUFFERED_CHARS ? 0 : FLUSH_INTERVAL_MS);
  }

  reasoningDelta(delta: string): void {
    if (this.text) this.moveDeltas();
    this.reasoning += delta;
    this.schedule(this.reasoning.length >= MAX_BUFFERED_CHARS ? 0 : FLUSH_INTERVAL_MS);
  }

  /** Write everything queued so far; resolves when it is in the database (or has failed). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.moveDeltas();
    const batch = this.pending;
    this.pending = [];
    if (batch.length) {
      this.chain = this.chain.then(() =>
        appendEvents(this.db, this.conversationId, batch).then(
          () => undefined,
          (err: unknown) => {
            this.failures += 1;
            if (this.failures <= 3) this.log.warn({ err: String(err), events: batch.length }, 'event publish failed');
          },
        ),
      );
    }
    await this.chain;
  }

  private moveDeltas(): void {
    if (this.text)
      this.pending.push({ kind: 'text.delta', turnId: this.turnId, payload: { ...this.deltaTags, text: this.text } });
    if (this.reasoning)
      this.pending.push({
        kind: 'reasoning.delta',
        turnId: this.turnId,
        payload: { ...this.deltaTags, text: this.reasoning },
      });
    this.text = '';
    this.reasoning = '';
  }

  private schedule(delayMs: number): void {
    if (delayMs === 0) {
      void this.flush();
      return;
    }
    this.timer ??= setTimeout(() => void this.flush(), delayMs);
  }
}
