/**
 * What a scanning rule is, and the helpers the rule files build their patterns with. Every
 * pattern runs on the normalised text (injection-text.ts: lower case, one space between words).
 */

export const IO = 'instruction_override';
export const RH = 'role_hijack';
export const PL = 'prompt_leak';
export const HH = 'hidden_html';
export const EX = 'exfiltration';
export const CR = 'credential_read';

export interface Guards {
  /** Only as an order (the verb opens a clause, or follows "please", "now", "you must"…). */
  imperative?: true;
  /** Quoted exactly (for command fragments with nowhere to send anything: `env | curl`). */
  quoted?: true;
  /** Reported ("phrases such as …", "attackers write …"); void when the text activates it. */
  mention?: true;
  /** Negated by the verb's own negator ("never reveal …"). */
  negation?: true;
  /** Described as something a person or program can do; void when activated. */
  modal?: true;
  /** A set-up branch for the reader ("if you installed with Homebrew, …"); void when activated. */
  condition?: true;
}

export interface Rule {
  family: string;
  pattern: string;
  description: string;
  /** Global; matched against the normalised text. */
  re: RegExp;
  guards?: Guards;
  /** The same phrase on letters only, tried when `re` found nothing that counts. */
  compact?: RegExp;
  /**
   * When true the guards other than negation do not apply: the match is an order however it is
   * framed (a secret sent to a real host is not an example, whatever the text calls it).
   */
  unguardedIf?: (m: RegExpExecArray, text: string) => boolean;
  /** A closer look at a match (false: not an injection after all). */
  accept?: (m: RegExpExecArray, text: string) => boolean;
  /** Something the text must contain for `re` to match at all, tried first because it is far cheaper. */
  needs?: RegExp;
  /** True when the text cannot hold a match (a passage row missing one of its concepts). */
  skip?: (text: string) => boolean;
  /** `accept` judges the whole line, so a rejected match settles it (else a long line is re-read per match). */
  perLine?: true;
}

/**
 * Between the words of a phrase: spaces, markdown emphasis, quotes, brackets, hyphens — but not a
 * hyphen or underscore alone, which joins words into an identifier (`--append-system-prompt`).
 */
export const SEP = String.raw`(?:[\s*_~\x60'"()\[\]|-]{0,6}[\s*~\x60'"()\[\]|][\s*_~\x60'"()\[\]|-]{0,6})`;
/** A phrase: each space stands for SEP (so no literal space may appear elsewhere in the source). */
export const rx = (source: string, flags = 'gm'): RegExp => new RegExp(source.replace(/ /g, SEP), flags);
/** Up to n filler words: letters and digits (one apostrophe), so a word cannot also be read as a separator. */
export const fill = (n: number): string => String.raw`(?:[a-z0-9]+(?:'[a-z]+)? ){0,${n}}`;
/** Up to n characters within one sentence (a dot inside `~/.ssh` or `evil.io` does not end it). */
export const within = (n: number): string => String.raw`(?:[^\n.!?]|[.!?](?=[^\s]))*?`.replace('*?', `{0,${n}}?`);
/** Alternatives, longest first, with regex characters escaped. */
export const alt = (words: readonly string[]): string =>
  `(?:${[...words]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|')})`;

export const PROSE = { mention: true, negation: true } as const;
export const PROSE_MODAL = { mention: true, negation: true, modal: true } as const;
