/**
 * Text as Postgres can store it. A NUL character is refused by `text` columns and `\u0000` by
 * `jsonb`; an unpaired UTF-16 surrogate is refused by `jsonb` (and silently mangled elsewhere). A
 * model's reply or reasoning, a tool's arguments or output can hold any of them, and a write that
 * fails is retried with the same text: forever. So every string written is made storable first —
 * NUL and lone surrogates become U+FFFD, the replacement character — and the failure cannot occur.
 * Pure.
 */

const REPLACEMENT = '\uFFFD';
/** NUL, a high surrogate not followed by a low one, a low surrogate not preceded by a high one (UTF-16 code units). */
// eslint-disable-next-line no-control-regex -- NUL is what this looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A string with no NUL and no unpaired surrogate. */
export function storableText(s: string): string {
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(s) ? s.replace(UNSTORABLE, REPLACEMENT) : s;
}

/** `\u0000` and unpaired `\uD800`-`\uDFFF` escapes in JSON text (an escaped backslash before them is kept). */
const BAD_JSON_ESCAPE =
  /(?<!\\)((?:\\\\)*)\\u(?:0000|[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})|[dD][c-fC-F][0-9a-fA-F]{2})/g;
const HIGH_THEN_LOW = /\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}/g;

/**
 * JSON text (a `jsonb` parameter) with the escapes `jsonb` refuses replaced by `\uFFFD`. Only
 * applied to strings that parse as JSON, so ordinary text that mentions `\u0000` is left alone.
 */
export function storableJson(s: string): string {
  if (!s.includes('\\u')) return s;
  if (!/\\u(?:0000|[dD][89a-fA-F])/.test(s)) return s;
  const first = s.trimStart()[0];
  if (first !== '{' && first !== '[' && first !== '"') return s;
  try {
    JSON.parse(s);
  } catch {
    return s;
  }
  // Protect valid pairs, fix the rest, restore the pairs.
  const pairs: string[] = [];
  const held = s.replace(HIGH_THEN_LOW, (m) => `\u0001${pairs.push(m) - 1}\u0001`);
  const fixed = held.replace(BAD_JSON_ESCAPE, (_m, slashes: string) => `${slashes}\\ufffd`);
  // eslint-disable-next-line no-control-regex -- the placeholder put in above
  return fixed.replace(/\u0001(\d+)\u0001/g, (_m, i: string) => pairs[Number(i)]!);
}

/** A query parameter made storable: strings (JSON ones too) and the strings inside objects. */
export function storableParam(v: unknown): unknown {
  if (typeof v === 'string') return storableJson(storableText(v));
  if (Array.isArray(v)) return v.map(storableParam);
  if (v !== null && typeof v === 'object' && !(v instanceof Date) && !(v instanceof Uint8Array)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[storableText(k)] = storableParam(x);
    return out;
  }
  return v;
}
