/**
 * One message for a fallback chain that failed as a whole (docs/providers.md): every provider's own
 * error, the primary's first, so a user whose primary is misconfigured does not see only the last
 * fallback's complaint. Pure and bounded (the message reaches the turn result and history).
 */

export interface ChainAttempt {
  provider: string;
  model: string;
  /** The failure reason (`auth`, `timeout`, …; a FailureReason). */
  reason: string;
  /** The error text; a leading "provider/model (HTTP n): " is folded into the entry. */
  message: string;
}

export const MAX_CHAIN_MESSAGE_CHARS = 2000;
const MAX_ENTRY_CHARS = 400;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The attempts in the order they were made → "every provider failed: 1. a/m (primary): auth:
 * …; 2. b/n: timeout: …". An endpoint tried twice (the chain restarts once) keeps its place and
 * its latest error. With a single endpoint: just its entry.
 */
export function chainFailureMessage(attempts: readonly ChainAttempt[], maxChars = MAX_CHAIN_MESSAGE_CHARS): string {
  const byEndpoint = new Map<string, ChainAttempt>();
  for (const a of attempts) byEndpoint.set(`${a.provider}/${a.model}`, a);
  const entries = [...byEndpoint.values()].map((a, i) => {
    const label = `${a.provider}/${a.model}${i === 0 ? ' (primary)' : ''}`;
    return clip(`${label}: ${a.reason}: ${withoutLabel(a)}`, MAX_ENTRY_CHARS);
  });
  if (entries.length === 0) return 'the model call failed';
  if (entries.length === 1) return clip(entries[0]!.replace(' (primary)', ''), maxChars);
  let out = `every provider failed (${entries.length}): `;
  const more = (n: number) => (n > 0 ? `; … and ${n} more` : '');
  for (const [i, entry] of entries.entries()) {
    const piece = `${i ? '; ' : ''}${i + 1}. ${entry}`;
    const after = entries.length - i - 1;
    if (out.length + piece.length + more(after).length <= maxChars) {
      out += piece;
      continue;
    }
    // The primary's error always shows (clipped if it must); later ones are counted instead.
    out +=
      i === 0 ? clip(piece, Math.max(0, maxChars - out.length - more(after).length)) + more(after) : more(after + 1);
    break;
  }
  return clip(out, maxChars);
}

/** "custom/m (HTTP 401): text" → "(HTTP 401) text": the entry's label already names provider and model. */
function withoutLabel(a: ChainAttempt): string {
  const prefix = `${a.provider}/${a.model}`;
  const text = a.message.trim();
  if (!text.startsWith(prefix)) return text;
  const rest = text.slice(prefix.length);
  const m = /^\s*(\(HTTP \d+\))?:\s*/.exec(rest);
  return m ? `${m[1] ? `${m[1]} ` : ''}${rest.slice(m[0].length)}` : text;
}
