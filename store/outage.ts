/**
 * Waiting out a database restart inside one activity attempt. A tool activity has few attempts
 * (a tool may have side effects), and a Postgres restart of a few seconds used to spend them all
 * on "the database system is starting up" before the tool ran — or, after it ran, made the retry
 * run it again — and the turn failed (found by `npm run chaos`). Its database steps now retry a
 * transient failure (store/failures.ts) here, with backoff, while the activity keeps
 * heartbeating; a refusal, a cancellation or an outage longer than the bound still fails the attempt.
 */
import { isTransientDbError } from './failures.js';

export interface OutageOptions {
  /** Stop waiting when this aborts (the activity was cancelled). */
  signal?: AbortSignal;
  /** The longest wait for the database, in all (default 60 s). */
  maxMs?: number;
}

export async function untilDbAnswers<T>(fn: () => Promise<T>, o: OutageOptions = {}): Promise<T> {
  const deadline = Date.now() + (o.maxMs ?? 60_000);
  for (let delay = 250; ; delay = Math.min(2000, delay * 2)) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransientDbError(err) || o.signal?.aborted || Date.now() + delay > deadline) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
