/**
 * Replies received but not yet saved, by call slot. When saving a paid reply fails for a moment
 * (the database restarting), the activity's retry takes the reply from here instead of calling the
 * provider again. In memory, per worker, small and short-lived: a retry on another worker pays
 * again, which is the rare case.
 */
import type { LedgerEntry } from '../../store/ledger.js';
import type { ModelResponse } from '../../model-adapters/types.js';

/** A kept reply, and its ledger row when that could not be written either (the retry writes it). */
export interface KeptReply {
  response: ModelResponse;
  unrecorded?: LedgerEntry | undefined;
}

const TTL_MS = 10 * 60_000;
const MAX_ENTRIES = 32;

const replies = new Map<string, KeptReply & { until: number }>();

export function keepReply(key: string, response: ModelResponse, unrecorded?: LedgerEntry): void {
  const now = Date.now();
  for (const [k, v] of replies) if (v.until < now) replies.delete(k);
  while (replies.size >= MAX_ENTRIES) replies.delete(replies.keys().next().value!);
  replies.set(key, { response, unrecorded, until: now + TTL_MS });
}

/** The reply kept for this slot, once (it is removed). */
export function takeReply(key: string): KeptReply | undefined {
  const hit = replies.get(key);
  replies.delete(key);
  return hit && hit.until >= Date.now() ? { response: hit.response, unrecorded: hit.unrecorded } : undefined;
}
