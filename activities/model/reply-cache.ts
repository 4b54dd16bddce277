/**
 * Replies received but not yet saved, by call slot. When saving a paid reply fails for a moment
 * (the database restarting), the activity's retry takes the reply from here instead of calling the
 * provider again. In memory, per worker, small and short-lived: a retry on another worker pays
 * again, which is the rare case.
 */
import type { ModelResponse } from './types.js';

const TTL_MS = 10 * 60_000;
const MAX_ENTRIES = 32;

const replies = new Map<string, { response: ModelResponse; until: number }>();

export function keepReply(key: string, response: ModelResponse): void {
  const now = Date.now();
  for (const [k, v] of replies) if (v.until < now) replies.delete(k);
  while (replies.size >= MAX_ENTRIES) replies.delete(replies.keys().next().value!);
  replies.set(key, { response, until: now + TTL_MS });
}

/** The reply kept for this slot, once (it is removed). */
export function takeReply(key: string): ModelResponse | undefined {
  const hit = replies.get(key);
  replies.delete(key);
  return hit && hit.until >= Date.now() ? hit.response : undefined;
}
