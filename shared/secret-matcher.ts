/**
 * Finds known secret values in text, however they are dressed (docs/redaction.md). Text and
 * secrets are both reduced to a skeleton — ASCII letters lower-cased, digits kept, every other
 * ASCII character, whitespace and invisible formatting character dropped; fullwidth letters and
 * Unicode tag characters read as the ASCII they imitate — so case, spacing, newlines every few
 * characters, zero-width characters, JSON or shell quoting, `%`/`=` escapes and the base64
 * alphabet's variants all vanish. Every run of `window` skeleton characters of every form of a
 * secret (shared/secret-variants.ts) is indexed once, when the worker starts; a text is then
 * scanned with a rolling hash, one pass per window length, so the cost grows with the text, not
 * with the number of secrets.
 */
import type { VariantKind } from './secret-variants.js';
import { secretVariants } from './secret-variants.js';

/** Values (and forms) shorter than this, in skeleton characters, are never looked for: they would match everywhere. */
export const MIN_SECRET_LENGTH = 8;
/** A run of this many characters of a secret is the secret (in the value's own characters). */
export const SECRET_RUN = 12;
/** The shortest run of a value's skeleton that counts as the value (see runOf). */
const MIN_TEXT_RUN = 10;

/**
 * Per form: the run that identifies it, in skeleton characters (≈ 12 characters of the value; the
 * text forms use runOf(value), fewer when punctuation is dropped), and the shortest whole form
 * looked for when the value is too short for a run.
 */
const WINDOWS: Record<VariantKind, { run: number; min: number }> = {
  plain: { run: SECRET_RUN, min: MIN_SECRET_LENGTH },
  percent: { run: SECRET_RUN, min: MIN_SECRET_LENGTH },
  html: { run: SECRET_RUN, min: MIN_SECRET_LENGTH },
  reversed: { run: SECRET_RUN, min: SECRET_RUN },
  hex: { run: 2 * SECRET_RUN, min: 2 * MIN_SECRET_LENGTH },
  base64: { run: 16, min: 11 },
};
/** A run with fewer distinct characters (`000000000000`, `abababababab`) identifies nothing. */
const MIN_DISTINCT = 4;

const BASE = 257;

export interface Skeleton {
  text: string;
  /** The skeleton's characters as UTF-16 units (what the scan reads). */
  codes: Uint16Array;
  /** Where each skeleton character starts and ends in the original text. */
  start: Int32Array;
  end: Int32Array;
}

/** The skeleton character of each ASCII unit, or -1 when it is dropped. */
const ASCII = new Int16Array(128).map((_, c) =>
  c >= 0x61 && c <= 0x7a ? c : c >= 0x30 && c <= 0x39 ? c : c >= 0x41 && c <= 0x5a ? c + 32 : -1,
);

/** The skeleton character a UTF-16 unit reads as, or -1 when it is dropped. */
function skeletonCode(c: number): number {
  if (c < 0x80) return ASCII[c]!;
  // Fullwidth forms of ASCII letters and digits.
  if (c >= 0xff10 && c <= 0xff19) return c - 0xfee0;
  if (c >= 0xff21 && c <= 0xff3a) return c - 0xfee0 + 32;
  if (c >= 0xff41 && c <= 0xff5a) return c - 0xfee0;
  // C1 controls and no-break space, soft hyphen, joiners, spaces, bidi and invisible operators.
  if (c <= 0xa0 || c === 0xad || c === 0x34f || c === 0x61c || c === 0x115f || c === 0x1160 || c === 0x1680) return -1;
  if (c === 0x180e || (c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202f) || (c >= 0x205f && c <= 0x206f))
    return -1;
  if (c === 0x3000 || c === 0x3164 || (c >= 0xfe00 && c <= 0xfe0f) || c === 0xfeff || c === 0xffa0) return -1;
  return c;
}

export function skeleton(text: string): Skeleton {
  const codes = new Uint16Array(text.length);
  const start = new Int32Array(text.length);
  const end = new Int32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let k: number;
    let width = 1;
    if (c < 0x80) k = ASCII[c]!;
    else if (c === 0xdb40 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xff80) === 0xdc00) {
      // Unicode tag characters (U+E0000–E007F) spell ASCII invisibly: read them as that ASCII.
      k = ASCII[text.charCodeAt(i + 1) - 0xdc00]!;
      width = 2;
    } else k = skeletonCode(c);
    if (k >= 0) {
      codes[n] = k;
      start[n] = i;
      end[n] = i + width;
      n += 1;
    }
    i += width - 1;
  }
  let s = '';
  for (let i = 0; i < n; i += 8192)
    s += String.fromCharCode.apply(null, codes.subarray(i, Math.min(n, i + 8192)) as unknown as number[]);
  return { text: s, codes: codes.subarray(0, n), start: start.subarray(0, n), end: end.subarray(0, n) };
}

function hashOf(codes: ArrayLike<number>, from: number, length: number): number {
  let h = 0;
  for (let i = from; i < from + length; i++) h = (Math.imul(h, BASE) + codes[i]!) | 0;
  return h;
}

/** Bits of the quick test: one bit per (run length, hash) slot, a few false hits per 100 KB. */
const FILTER_BITS = 1 << 21;

function slotOf(h: number, length: number): number {
  return (Math.imul(h ^ length, 0x9e3779b1) >>> 11) & (FILTER_BITS - 1);
}

function distinct(s: string, atLeast: number): boolean {
  let seen = '';
  for (let i = 0; i < s.length && seen.length < atLeast; i++) if (!seen.includes(s[i]!)) seen += s[i];
  return seen.length >= atLeast;
}

/**
 * The run length, in skeleton characters, that stands for 12 characters of `value`: fewer when its
 * punctuation is dropped (`a-b_c.d…`), never under MIN_TEXT_RUN. (With 8, a value like
 * `qwen2.5-coder-1.5b-instruct` made every `instruct` in a system prompt a secret: a run of 8
 * letters is a common word, not an identifying piece of a key.)
 */
function runOf(value: string): number {
  // Per character of the value: does it stay in the skeleton?
  const kept = [...value].map((ch) => (skeleton(ch).codes.length > 0 ? 1 : 0));
  let run = SECRET_RUN;
  let inWindow = 0;
  for (let i = 0; i < kept.length; i++) {
    inWindow += kept[i]! - (i >= SECRET_RUN ? kept[i - SECRET_RUN]! : 0);
    if (i >= SECRET_RUN - 1) run = Math.min(run, inWindow);
  }
  return Math.max(run, MIN_TEXT_RUN);
}

export interface SecretMatch {
  /** Offsets in the original text. */
  start: number;
  end: number;
  name: string;
}

export class SecretMatcher {
  /** Per run length: window text → the secret's name, and the windows' hashes for the quick test. */
  private readonly byLength = new Map<number, Map<string, string>>();
  private readonly filter = new Uint32Array(FILTER_BITS / 32);
  /** Every form's skeleton, for streams: does a text end in the start of one? */
  private readonly corpus: string;
  /** How many windows are indexed (the cost of memory, reported by the benchmark). */
  readonly size: number;

  constructor(secrets: ReadonlyArray<{ name: string; value: string }>) {
    const forms: string[] = [];
    let size = 0;
    for (const { name, value } of secrets) {
      const textRun = runOf(value);
      for (const v of secretVariants(value)) {
        const { text: sk, codes } = skeleton(v.text);
        const { run: fixed, min } = WINDOWS[v.kind];
        const run = v.kind === 'hex' || v.kind === 'base64' ? fixed : textRun;
        if (sk.length < min) continue;
        forms.push(sk);
        const length = Math.min(run, sk.length);
        let windows = this.byLength.get(length);
        if (!windows) this.byLength.set(length, (windows = new Map<string, string>()));
        let pow = 1;
        for (let i = 1; i < length; i++) pow = Math.imul(pow, BASE);
        let h = hashOf(codes, 0, length);
        for (let i = 0; ; i++) {
          const w = sk.slice(i, i + length);
          if (!windows.has(w) && distinct(w, MIN_DISTINCT)) {
            windows.set(w, name);
            const slot = slotOf(h, length);
            this.filter[slot >>> 5]! |= 1 << (slot & 31);
            size += 1;
          }
          if (i + length >= sk.length) break;
          h = (Math.imul((h - Math.imul(codes[i]!, pow)) | 0, BASE) + codes[i + length]!) | 0;
        }
      }
    }
    this.size = size;
    this.corpus = `\n${forms.join('\n')}\n`;
  }

  get empty(): boolean {
    return this.size === 0;
  }

  /** Where known secrets are in `text` (overlapping finds merged), in order. */
  find(text: string, sk: Skeleton = skeleton(text)): SecretMatch[] {
    if (this.size === 0) return [];
    const { text: s, codes } = sk;
    const filter = this.filter;
    const found: Array<[number, number, string]> = [];
    for (const [length, windows] of this.byLength) {
      if (codes.length < length) continue;
      let pow = 1;
      for (let i = 1; i < length; i++) pow = Math.imul(pow, BASE);
      let h = hashOf(codes, 0, length);
      for (let i = 0; ; i++) {
        const slot = (Math.imul(h ^ length, 0x9e3779b1) >>> 11) & (FILTER_BITS - 1);
        if (filter[slot >>> 5]! & (1 << (slot & 31))) {
          const name = windows.get(s.slice(i, i + length));
          if (name !== undefined) found.push([i, i + length, name]);
        }
        if (i + length >= codes.length) break;
        h = (Math.imul((h - Math.imul(codes[i]!, pow)) | 0, BASE) + codes[i + length]!) | 0;
      }
    }
    if (!found.length) return [];
    found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const merged: Array<[number, number, string]> = [];
    for (const f of found) {
      const last = merged[merged.length - 1];
      if (last && f[0] < last[1]) last[1] = Math.max(last[1], f[1]);
      else merged.push([...f]);
    }
    return merged.map(([a, b, name]) => ({ start: sk.start[a]!, end: sk.end[b - 1]!, name }));
  }

  /**
   * How many characters at the end of `text` may be the start of a secret that the next chunk of a
   * stream completes: the longest tail that is part of some form, once it is `least` skeleton
   * characters long. `before` is what the stream already let through: a secret arriving a few
   * characters per chunk is held from its `least`-th character on, so at most `least - 1` of its
   * characters pass before the rest is held and redacted as a run.
   */
  heldTail(text: string, before = '', least = 4): number {
    if (this.size === 0 || text.length === 0) return 0;
    const tail = (before.slice(-64) + text).slice(-4096);
    const sk = skeleton(tail);
    const s = sk.text;
    let k = 1;
    while (k <= s.length && this.corpus.includes(s.slice(s.length - k))) k++;
    k -= 1;
    if (k < least) return 0;
    return Math.min(text.length, tail.length - sk.start[s.length - k]!);
  }
}
