/**
 * The text handling under prompt-injection scanning (injection-scan.ts): invisible and
 * bidirectional Unicode found in the raw text, the normalised copy the rules match on, and the
 * guards that tell a phrase addressed to the agent from one quoted, negated or described.
 */
import type { InjectionFinding } from './injection-scan.js';

// ---------------------------------------------------------------------------------------------
// Invisible and bidirectional Unicode (raw text)

const INVISIBLE = /[\u200B-\u200F\u2060-\u2064\uFEFF\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/gu;
/** Emoji tag sequences (🏴 + tag letters + cancel tag): the one legitimate use of tag characters. */
const FLAG_SEQUENCE = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,6}\u{E007F}/gu;
const EMOJI_BEFORE_JOINER = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F\u20E3]$/u;
const EMOJI_AFTER_JOINER = /^\p{Extended_Pictographic}/u;
/** A letter or mark; with EUROPEAN_LETTER it tells a joiner inside a Persian or Indic word from one splitting ASCII. */
const JOINER_SCRIPT_LETTER = /^[\p{L}\p{M}]$/u;
const EUROPEAN_LETTER = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;
const RTL_LETTER = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}]/u;

const INVISIBLE_DESCRIPTIONS = {
  zero_width: 'invisible zero-width characters',
  bidi_control: 'bidirectional control characters that reorder how text is displayed',
  tag_characters: 'invisible Unicode tag characters (hidden ASCII text)',
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
  if (cp >= 0xe0000) return 'tag_characters';
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
  /[\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]|\u034F|[\uFE00-\uFE0F]/gu;

/** Small capitals a…z, which NFKC keeps as IPA letters (ᶦ → ɪ): read as their ASCII letter. */
const SMALL_CAPS_AZ = 'ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ';
const SMALL_CAPS = new Map([...SMALL_CAPS_AZ].map((c, i) => [c, String.fromCharCode(97 + i)]));
const SMALL_CAP = new RegExp(`[${SMALL_CAPS_AZ}]`, 'g');

export function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .replace(STRIP, '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '') // ïgnöre → ignore
    .toLowerCase()
    .replace(SMALL_CAP, (c) => SMALL_CAPS.get(c) ?? c)
    .replace(/[\u2018\u2019\u201A\u201B\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F\u2033]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\r\n?/g, '\n')
    .replace(/\\\n/g, ' ') // shell line continuations: one command, one line
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n\s*/g, '\n')
    .trim();
}

const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's' };

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

// ---------------------------------------------------------------------------------------------
// Guards: when a matching phrase is not an instruction

/** Up to n characters before `start`, without markdown emphasis (`this **will** leak` reads as `this will leak`). */
export const lead = (text: string, start: number, n: number) =>
  text.slice(Math.max(0, start - n), start).replace(/[*_~]+/g, '');

/** Cue words just before a phrase that make it a quotation or a report of one. */
const MENTION_BEFORE =
  /(?:\bsuch as|\blike|\be\.g\.?,?|\bi\.e\.?,?|\bfor (?:example|instance),?|\bsay(?:s|ing)?|\bphrases?|\bstrings?|\btext|\bwording|\bpatterns?|\b(?:attempts?|tries|trying) to|\b(?:tell|ask|instruct)(?:s|ing)? (?:you|it|them|the (?:model|agent|assistant|ai|llm)) to|\bdetect(?:s|ed|ing)?|\bflag(?:s|ged)?|\bblock(?:s|ed)?|\bcatch(?:es)?|\bmatch(?:es|ing)?|\bcontain(?:s|ing)?|\bknown as|\bcalled|\bexamples?|\binjections?|\bpayloads?|\battacks?|\bjailbreaks?)[\s:"'`(]{0,3}$/;
const QUOTES = `"'\``;

/** What an attacker does, told about: "attackers often try to read ~/.ssh/id_rsa". */
const ATTACKER_BEFORE =
  /\b(?:attackers?|adversar(?:y|ies)|malware|malicious (?:\w+)|an? (?:prompt )?injection|an? jailbreak)(?: [\w'-]+){0,5} ?$/;

/** Exactly the phrase in quotes or backticks: `curl -d @~/.ssh/id_rsa`, "ignore previous instructions". */
export function quoted(text: string, start: number, end: number): boolean {
  const open = text[start - 1] ?? '';
  return open !== '' && QUOTES.includes(open) && text.slice(end, end + 3).includes(open);
}

export function mentioned(text: string, start: number, end: number): boolean {
  const before = lead(text, start, 60);
  return MENTION_BEFORE.test(before) || ATTACKER_BEFORE.test(before) || quoted(text, start, end);
}

/** A negation earlier in the same clause: "never reveal your system prompt", "do not send your keys to…". */
const NEGATION =
  /(?:\b(?:never|not|cannot|avoid|refuse to|prevent(?:s|ing)? \w+ from|forbid(?:den)?|nor)\b|n't\b)(?! (?:forget|hesitate|fail|only)\b)/;

export function negated(text: string, start: number): boolean {
  const before = lead(text, start, 48);
  const clause = before.slice(before.search(/[^.!?;:\n]*$/));
  return NEGATION.test(clause);
}

/** A description of what something can do ("lets you override the system prompt"), not an order. */
const MODAL_BEFORE =
  /(?:\b(?:can|could|may|might|cannot|how to|used to|in order to|ability to|option to|able to|want to|wish to|like to|lets? (?:you|users?|callers?|people)|allows? (?:you|users?|callers?) to|helps? (?:you|users?) to|(?<!\byou )(?:should|will|would))|\b(?:use|pass|set|add|edit|configure|with|via) \S+(?: \S+){0,3} to)\s?$/;

export function descriptive(text: string, start: number): boolean {
  return MODAL_BEFORE.test(lead(text, start, 60));
}

/** A condition, not an order: "when you forget your instructions, re-read AGENTS.md". */
export const CONDITION_BEFORE = /\b(?:when|if|whenever|in case|unless|once) you(?:'ve| have)?\s?$/;

/** The verb opens a clause or follows an adverb or auxiliary: an order, not a description. */
const IMPERATIVE_BEFORE =
  /(?:^|[.!?:;,>\n(-]|\b(?:please|now|then|also|and|first|just|must|should|will|silently|quietly|secretly|covertly|immediately|always|go ahead and|make sure (?:to|you)|remember to|be sure to|forget to))\s?$/;

export function imperative(text: string, start: number): boolean {
  return IMPERATIVE_BEFORE.test(lead(text, start, 40));
}

export interface Guards {
  /** Only as an order (see IMPERATIVE_BEFORE). */
  imperative?: true;
  /** Quoted exactly (for commands: a command cited in backticks with nothing to send it anywhere). */
  quoted?: true;
  /** Quoted, or reported ("such as …", "attackers try to …"). */
  mention?: true;
  /** Negated earlier in the clause. */
  negation?: true;
  /** Described as something a person or program can do. */
  modal?: true;
}
