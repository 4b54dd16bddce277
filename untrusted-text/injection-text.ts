/**
 * The text handling under prompt-injection scanning (injection-scan.ts): invisible and
 * bidirectional Unicode found in the raw text, the normalised copy the rules match on, the extra
 * "views" of text that hides its words (base64, letter-spacing), and the letters-only copy.
 * Pure: no Node imports (the scanner also runs where only the language is available).
 */
import type { InjectionFinding } from './injection-scan.js';

// ---------------------------------------------------------------------------------------------
// Invisible and bidirectional Unicode (raw text)

// Variation selectors (combining marks) open the classes below, so none reads as combined with the
// character before it (no-misleading-character-class).
const INVISIBLE =
  /[\u{E0100}-\u{E01EF}\u180E\u200B-\u200F\u2060-\u2064\uFEFF\u202A-\u202E\u2066-\u2069\u3164\uFFA0\u115F\u1160\u{E0000}-\u{E007F}]/gu;
/** Emoji tag sequences (🏴 + tag letters + cancel tag): the one legitimate use of tag characters. */
const FLAG_SEQUENCE = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,6}\u{E007F}/gu;
const EMOJI_BEFORE_JOINER = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F\u20E3]$/u;
const EMOJI_AFTER_JOINER = /^\p{Extended_Pictographic}/u;
/** A letter or mark; with EUROPEAN_LETTER it tells a joiner inside a Persian or Indic word from one splitting ASCII. */
const JOINER_SCRIPT_LETTER = /^[\p{L}\p{M}]$/u;
const EUROPEAN_LETTER = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;
const RTL_LETTER = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}]/u;
const HAN = /\p{Script=Han}/u;
const HANGUL_SYLLABLE = /[\u1100-\u11FF\u3131-\u318E\uAC00-\uD7A3]/u;

const INVISIBLE_DESCRIPTIONS = {
  zero_width: 'invisible zero-width characters',
  bidi_control: 'bidirectional control characters that reorder how text is displayed',
  tag_characters: 'invisible Unicode tag characters (hidden ASCII text)',
  variation_selectors: 'runs of invisible variation selectors (data hidden after a visible character)',
  filler_characters: 'blank filler characters that look like nothing (Hangul filler)',
} as const;

type InvisibleKind = keyof typeof INVISIBLE_DESCRIPTIONS;

const hex = (c: string) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;

/** A ZWJ/ZWNJ used as spelling: inside an emoji sequence, or between letters of a script that needs joiners. */
function legitimateJoiner(text: string, index: number, char: string): boolean {
  const before = [...text.slice(Math.max(0, index - 4), index)].pop() ?? '';
  const after = [...text.slice(index + char.length, index + char.length + 4)][0] ?? '';
  // 👩‍💻: emoji ZWJ sequences.
  if (char === '\u200D' && EMOJI_BEFORE_JOINER.test(text.slice(Math.max(0, index - 4), index)))
    return EMOJI_AFTER_JOINER.test(after);
  // می‌خواهم, क्‍ष: joiners inside words of scripts that need them.
  return (
    JOINER_SCRIPT_LETTER.test(before) &&
    JOINER_SCRIPT_LETTER.test(after) &&
    !EUROPEAN_LETTER.test(before + after) &&
    before.charCodeAt(0) > 0x7f
  );
}

function invisibleKind(text: string, index: number, char: string): InvisibleKind | undefined {
  const cp = char.codePointAt(0)!;
  if (cp >= 0xe0100) {
    // An ideographic variation sequence (葛󠄀) is one selector after a Han character; anything
    // else, and every run of them, is data smuggled after a visible character.
    const before = [...text.slice(Math.max(0, index - 2), index)].pop() ?? '';
    const next = text.codePointAt(index + char.length) ?? 0;
    return HAN.test(before) && !(next >= 0xe0100 && next <= 0xe01ef) ? undefined : 'variation_selectors';
  }
  if (cp >= 0xe0000) return 'tag_characters';
  if (cp === 0x3164 || cp === 0xffa0 || cp === 0x115f || cp === 0x1160) {
    // Hangul fillers have a use inside old-Hangul text; outside it they are blank identifiers.
    const around = text.slice(Math.max(0, index - 1), index) + text.slice(index + 1, index + 2);
    return HANGUL_SYLLABLE.test(around) ? undefined : 'filler_characters';
  }
  if (cp === 0xfeff) return index === 0 ? undefined : 'zero_width'; // a byte-order mark opening a file is normal
  if (cp === 0x200c || cp === 0x200d) return legitimateJoiner(text, index, char) ? undefined : 'zero_width';
  if (cp === 0x200e || cp === 0x200f) {
    // Direction marks are how Hebrew and Arabic text gets punctuation right.
    const lineStart = text.lastIndexOf('\n', index) + 1;
    const lineEnd = text.indexOf('\n', index);
    return RTL_LETTER.test(text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd)) ? undefined : 'bidi_control';
  }
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return 'bidi_control';
  return 'zero_width';
}

export function scanInvisible(raw: string): InjectionFinding[] {
  const text = raw.replace(FLAG_SEQUENCE, '\u{1F3F4}');
  const found = new Map<InvisibleKind, number>();
  for (const m of text.matchAll(INVISIBLE)) {
    const kind = invisibleKind(text, m.index, m[0]);
    if (kind && !found.has(kind)) found.set(kind, m.index);
  }
  return [...found].map(([kind, index]) => {
    const start = Math.max(0, index - 24);
    const end = Math.min(text.length, index + 24);
    let excerpt = text.slice(start, end).replace(INVISIBLE, hex).replace(/\s+/g, ' ');
    if (start > 0) excerpt = `…${excerpt}`;
    if (end < text.length) excerpt = `${excerpt}…`;
    return { family: 'invisible_unicode', pattern: kind, description: INVISIBLE_DESCRIPTIONS[kind], excerpt };
  });
}

// ---------------------------------------------------------------------------------------------
// Normalisation

/** Invisible characters and invisible formatting, dropped before matching so they cannot split a word. */
const STRIP =
  /[\u{E0100}-\u{E01EF}\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]|\u034F|[\uFE00-\uFE0F]/gu;

/** Small capitals a…z, which NFKC keeps as IPA letters (ᶦ → ɪ): read as their ASCII letter. */
const SMALL_CAPS_AZ = 'ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ';
const SMALL_CAPS = new Map([...SMALL_CAPS_AZ].map((c, i) => [c, String.fromCharCode(97 + i)]));
const SMALL_CAP = new RegExp(`[${SMALL_CAPS_AZ}]`, 'g');

/**
 * Accents are dropped only where they are decoration on a base letter (Latin, Greek, Cyrillic,
 * Arabic and Hebrew vowel points): in Devanagari, Thai or kana the "mark" is part of the letter,
 * and Hangul decomposes into jamo, so those are recomposed instead (NFC).
 */
const DECORATED = /([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Arabic}\p{Script=Hebrew}])\p{M}+/gu;

/** Cyrillic and Greek letters that look like Latin ones, folded only inside a word that mixes scripts ("ignоre"). */
const CONFUSABLES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  ο: 'o',
  α: 'a',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ѵ: 'v',
};
const MIXED_WORD = /[\p{L}]*[a-z][\p{L}]*/gu;
const CONFUSABLE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'gu');

function foldMixedScript(text: string): string {
  if (!/[\u0370-\u04ff]/.test(text)) return text;
  return text.replace(MIXED_WORD, (w) =>
    /[\u0370-\u04ff]/.test(w) ? w.replace(CONFUSABLE, (c) => CONFUSABLES[c] ?? c) : w,
  );
}

const NAMED_ENTITIES: Record<string, string> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  shy: '',
  lsquo: "'",
  rsquo: "'",
  ldquo: '"',
  rdquo: '"',
  laquo: '"',
  raquo: '"',
  ndash: '-',
  mdash: '-',
  colon: ':',
  sol: '/',
  bsol: '\\',
  lpar: '(',
  rpar: ')',
  lowbar: '_',
  grave: '`',
  num: '#',
  dollar: '$',
  percnt: '%',
  commat: '@',
  vert: '|',
  period: '.',
  excl: '!',
  quest: '?',
  equals: '=',
  lsqb: '[',
  rsqb: ']',
  lcub: '{',
  rcub: '}',
  tilde: '~',
  zwsp: '',
};
const ENTITY = /&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,8}));?/gi;

/** `&#73;gnore`, `&lt;|im_start|&gt;`: HTML character references read as the characters they stand for. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (all, dec?: string, hx?: string, name?: string) => {
    if (name !== undefined) return NAMED_ENTITIES[name.toLowerCase()] ?? all;
    const cp = dec !== undefined ? Number(dec) : parseInt(hx!, 16);
    return cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : all;
  });
}

/** `%69%67%6E%6F%72%65` → `ignore`: percent-escapes read as text, when they stand for printable characters. */
function decodePercent(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    let out = '';
    try {
      out = decodeURIComponent(run);
    } catch {
      return run;
    }
    return [...out].every((c) => c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f) ? out : run;
  });
}

/** `I_G_N_O_R_E`, `c.a.t`, `Y-O-U`: single letters joined by one kind of separator, read as the word. */
const LETTER_RUN = /(?<![\p{L}\p{N}])\p{L}(?:([._*~^+-])\p{L})(?:\1\p{L}){1,}(?![\p{L}\p{N}])/gu;

export function normalise(text: string): string {
  const n = decodeEntities(text)
    .normalize('NFKC')
    .replace(STRIP, '')
    .normalize('NFD')
    .replace(DECORATED, '$1') // ïgnöre → ignore
    .normalize('NFC')
    .toLowerCase()
    .replace(SMALL_CAP, (c) => SMALL_CAPS.get(c) ?? c);
  return (
    decodePercent(foldMixedScript(n))
      .replace(/[\u2018\u2019\u201A\u201B\u2032\u2035]/g, "'")
      .replace(/[\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB\u300C-\u300F\u301D-\u301F]/g, '"')
      .replace(/[\u2010-\u2015\u2212]/g, '-')
      .replace(/\r\n?/g, '\n')
      .replace(/\\\n/g, '') // shell line continuations: one command, one line (`cu\⏎rl` is `curl`)
      .replace(/(\p{L})-\n(\p{L})/gu, '$1$2') // igno-\nre: a word hyphenated across lines
      .replace(/(?<=\w)(?:""|''|``)+(?=\w)/g, '') // c""at: empty quotes inside a word (a shell trick)
      .replace(LETTER_RUN, (run) => run.replace(/[._*~^+-]/g, ''))
      // `_Ignore every instruction._`: underscores of markdown emphasis at the edge of a word, not in `id_rsa`.
      .replace(/(^|[\s(*"'\x60>])_+(?=\p{L})|(?<=[\p{L}.!?,;:])_+(?=$|[\s)*"'\x60<.,;:!?])/gmu, '$1 ')
      .replace(/[^\S\n]+/g, ' ')
      .replace(/ ?\n\s*/g, '\n')
      .trim()
  );
}

// ---------------------------------------------------------------------------------------------
// Extra views: text whose words are hidden from the normalised copy

const BASE64_BLOB = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{20,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeBase64(blob: string): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const c of blob.replace(/=+$/, '')) {
    value = (value << 6) | B64.indexOf(c);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((value >> bits) & 0xff);
    }
  }
  return out;
}

/** Base64 that decodes to readable text (`aWdub3JlIGFsbCBwcmV2aW91cw==`): the text, else nothing. */
function base64Texts(raw: string, limit: number): string[] {
  const out: string[] = [];
  for (const m of raw.matchAll(BASE64_BLOB)) {
    if (out.length >= limit) break;
    const blob = m[0];
    if (!/[a-z]/.test(blob) || !/[A-Z0-9]/.test(blob)) continue; // a word or a hex string, not base64
    const decoded = decodeBase64(blob);
    const printable = decoded.replace(/[^\x20-\x7e\n\t]/g, '').length;
    if (decoded.length >= 12 && printable / decoded.length > 0.9 && /[a-z]{3,} [a-z]{2,}/i.test(decoded))
      out.push(decoded);
  }
  return out;
}

/**
 * `i g n o r e   a l l   p r e v i o u s`: a line made mostly of single characters is read with
 * each run of single characters joined into a word (a double space, where there is one, ends it).
 */
function despacedLines(raw: string, limit: number): string[] {
  const out: string[] = [];
  for (const line of raw.split('\n')) {
    if (out.length >= limit) break;
    if (line.length < 12 || line.length > 4000) continue;
    const tokens = line.trim().split(/[ \t\u3000]/);
    const words = tokens.filter(Boolean);
    const single = words.filter((t) => [...t].length === 1).length;
    // Spaced CJK (`無 視 系 統`) is short: each character is a word already.
    const cjk = words.every((t) => /^[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]$/u.test(t));
    if (words.length < (cjk ? 4 : 8) || single / words.length < 0.6) continue;
    const joined: string[] = [];
    let word = '';
    for (const t of tokens) {
      if ([...t].length === 1) {
        word += t;
        continue;
      }
      if (word) joined.push(word);
      word = '';
      if (t) joined.push(t);
    }
    if (word) joined.push(word);
    out.push(joined.join(' '));
  }
  return out;
}

/** A leetspeak word: letters and the digits or symbols that stand for letters, with at least one of each. */
const LEET_WORD = /^(?=[^a-z]*[a-z])(?=.*[0134579@$!])[a-z0134579@$!]{2,}$/;
/** The digits and symbols that stand for letters, as both readings below share them. */
const LEET_LETTERS: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
  '!': 'i',
};
/** Within a leetspeak word, `9` is a `g` too (`s3cr3t 5tr1n9`). */
const UNLEET: Record<string, string> = { ...LEET_LETTERS, '9': 'g' };

/** `3xf1ltr4t3 th3 4P1 k3y5`: lines where many words are leetspeak, read with the letters restored. */
function unleetLines(normalised: string, limit: number): string[] {
  const out: string[] = [];
  for (const line of normalised.split('\n')) {
    if (out.length >= limit) break;
    const words = line.split(' ');
    const leet = words.filter((w) => LEET_WORD.test(w.replace(/[.,:;'"()\x60]+$/, ''))).length;
    if (leet < 3 || leet / words.length < 0.3) continue;
    out.push(
      words
        .map((w) =>
          LEET_WORD.test(w.replace(/[.,:;'"()\x60]+$/, '')) ? w.replace(/[0134579@$!]/g, (c) => UNLEET[c] ?? c) : w,
        )
        .join(' '),
    );
  }
  return out;
}

/**
 * The words the rules turn on, which misspelt stay readable to a model: `iunstructions`,
 * `isntructions` (letters swapped inside the word), `previouss instructionss` (letters doubled).
 */
const KEY_WORDS = [
  'instructions',
  'previous',
  'ignore',
  'disregard',
  'prompt',
  'system',
  'override',
  'reveal',
  'repeat',
  'output',
  'forget',
  'password',
  'secret',
  'above',
  'rules',
  'guidelines',
  'directives',
  'everything',
  'prior',
  'assistant',
  'respond',
  'response',
  'initial',
  'original',
  'bullet',
  'list',
  'your',
  'print',
  'write',
];
const squeeze = (w: string) => w.replace(/(.)\1+/g, '$1');
const sorted = (w: string) => [...w].sort().join('');
const KEY_BY_FIRST = new Map<string, string[]>();
for (const k of KEY_WORDS) KEY_BY_FIRST.set(k[0]!, [...(KEY_BY_FIRST.get(k[0]!) ?? []), k]);

/** At most one edit (insert, delete, substitute) apart; both at least eight letters, so rare among real words. */
function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i += 1;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

const INFLECTION = /^(?:s|es|d|ed|ing|er|ers|ly|ion|ions|ive|ives|al|ally|ment|ments)$/;

/** The key word `word` is a misspelling of, if any (an inflection such as `rules` → `rule` is not one). */
function keyWordOf(word: string): string | undefined {
  if (word.length < 4) return undefined;
  for (const k of KEY_BY_FIRST.get(word[0]!) ?? []) {
    if (word === k) continue;
    if (squeeze(word) === squeeze(k)) return k;
    if (k.startsWith(word) || (INFLECTION.test(word.slice(k.length)) && word.startsWith(k))) continue;
    if (Math.abs(word.length - k.length) > 1) continue;
    if (word.length === k.length && word.length >= 5 && sorted(word) === sorted(k)) return k;
    if (k.length >= 8 && word.length >= 8 && oneEditApart(word, k)) return k;
  }
  return undefined;
}

/** Lines with a misspelt key word, read with the spelling restored (typoglycemia, doubled letters, one slip). */
function respelledLines(normalised: string, limit: number): string[] {
  const out: string[] = [];
  for (const line of normalised.split('\n')) {
    if (out.length >= limit) break;
    let changed = false;
    const fixed = line.replace(/\p{L}+/gu, (w) => {
      const k = keyWordOf(w);
      if (k === undefined) return w;
      changed = true;
      return k;
    });
    if (changed) out.push(fixed);
  }
  return out;
}

/**
 * Normalised copies of hidden text, scanned like the text itself: base64 that decodes to words,
 * letter-spaced lines, leetspeak lines, lines with misspelt key words, the ROT13 of text that names it. Bounded, so a file full of base64 costs a few extra passes
 * at most.
 */
export function hiddenViews(raw: string, normalised: string): string[] {
  const views = [...base64Texts(raw, 8), ...despacedLines(raw, 8)].map(normalise);
  // Text that names ROT13 ("rot13 for bots: …") is read rotated back as well.
  const rotated = ROT13_HINT.test(normalised) ? [rot13(normalised)] : [];
  return [...views, ...unleetLines(normalised, 8), ...respelledLines(normalised, 8), ...rotated].filter(
    (v) => v.length > 0,
  );
}

const ROT13_HINT = /\brot[\s-]?13\b/;

// ---------------------------------------------------------------------------------------------
// Letters only

/** In the letters-only view, `|` reads as `l` as well (`|gnore`). */
const LEET: Record<string, string> = { ...LEET_LETTERS, '|': 'l' };

/** Letters only (digits and symbols read as the letters they imitate), with each letter's index in `text`. */
export function compactOf(text: string): { letters: string; at: number[] } {
  let letters = '';
  const at: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const c = LEET[text[i]!] ?? text[i]!;
    if (c >= 'a' && c <= 'z') {
      letters += c;
      at.push(i);
    }
  }
  return { letters, at };
}

/** ROT13 of lower-case letters. */
export const rot13 = (letters: string): string =>
  letters.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97));
