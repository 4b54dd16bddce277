/**
 * Scanner rules kept as data: one JSON file per language in rules/, each row a phrase rule with
 * the examples it must and must not match. The files are validated with zod and compiled to the
 * same `Rule` the hand-written families use, so the scanner's guards, views (base64, letter
 * spacing, leetspeak) and ordering apply to them unchanged; `proveRules` then runs every example
 * through the scanner's own matcher and refuses to load a table whose examples disagree with it.
 *
 * A row is a sequence of slots matched in order within one sentence (or in either order, for two
 * slots): a slot is a list of phrases (normalised like the text, `word*` a stem), `@name` for a
 * list the file defines, or `<class>` for one of the registered classes below (URLs, host names,
 * secret variables, secret files) that a phrase list cannot spell. A row that needs a shape no
 * phrase list can say gives `regex` instead (matched on the normalised text).
 *
 * A row with `scope: "passage"` reads its slots in any order within `gap` characters, across
 * sentences and lines: the concepts an injection is made of (someone it addresses, an act it asks
 * for, a claim of authority) rarely share one sentence. No slot may follow a negation closely
 * (`agents must never push to main` asks for nothing) or be reported (`e.g. "…"`); the row's
 * `guards` do not apply, the slots' own checks do.
 */
import { z } from 'zod';
import { HOST, SECRET_FILE, SECRET_NAME, SECRET_VAR } from './families/lexicon.js';
import { normalise } from './injection-text.js';
import type { Guards, Rule } from './families/rule.js';
import { mentioned } from './families/guards.js';
import { phrases } from './trie.js';

/** Every family a finding can have, in the order findings are reported. */
export const FAMILY_NAMES = [
  'invisible_unicode',
  'instruction_override',
  'role_hijack',
  'prompt_leak',
  'hidden_html',
  'exfiltration',
  'credential_read',
  'remote_control',
  'anti_forensics',
  'approval_bypass',
] as const;

/** Shapes a phrase list cannot spell, by name (`<url>` in a slot). */
export const CLASSES: Readonly<Record<string, string>> = {
  url: String.raw`(?:https?://[^\s)"'\x60<>]+|(?<![\w.@-])${HOST}(?::\d+)?(?:/[^\s)"'\x60<>]*)?)`,
  email: String.raw`(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?![\w-])`,
  secret_identifier: String.raw`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:tokens|secrets|keys|credentials|passwords)\b`,
  ip: String.raw`(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?(?![\w.])`,
  secret_var: String.raw`(?:${SECRET_VAR}|${SECRET_NAME})`,
  secret_file: SECRET_FILE,
};

const GUARD_NAMES = ['negation', 'mention', 'modal', 'condition', 'imperative', 'quoted'] as const;

const phrase = z.string().min(1).max(160);
const example = z.string().min(1).max(2000);

const ruleRow = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9_]{2,48}$/),
    family: z.enum(FAMILY_NAMES).exclude(['invisible_unicode']),
    description: z.string().min(10).max(160),
    seq: z.array(z.array(phrase).min(1).max(400)).min(1).max(4).optional(),
    regex: z.string().min(3).max(4000).optional(),
    gap: z.number().int().min(0).max(300).default(40),
    eitherOrder: z.boolean().default(false),
    scope: z.enum(['sentence', 'passage']).default('sentence'),
    /**
     * A passage row's first slot (its reader) must be addressed, not mentioned: a cue before it
     * (`note for`, `dear`, `if you are an`, `to all`) or a colon, comma or order after it.
     */
    addressed: z.boolean().default(false),
    guards: z.array(z.enum(GUARD_NAMES)).default(['negation', 'mention']),
    unless: z.array(phrase).max(200).default([]),
    match: z.array(example).min(1).max(40),
    notMatch: z.array(example).min(1).max(40),
  })
  .strict()
  .refine((r) => (r.seq === undefined) !== (r.regex === undefined), { message: 'give exactly one of seq and regex' })
  .refine((r) => !r.eitherOrder || r.seq?.length === 2, { message: 'eitherOrder needs exactly two slots' })
  .refine((r) => r.scope === 'sentence' || (r.seq?.length ?? 0) >= 2, {
    message: 'a passage row needs two or three slots',
  })
  .refine((r) => r.scope === 'sentence' || (r.seq?.length ?? 0) <= 3, {
    message: 'a passage row needs two or three slots',
  });

export const ruleFileSchema = z
  .object({
    language: z.string().regex(/^[a-z]{2,3}$/),
    lists: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), z.array(phrase).min(1).max(400)).default({}),
    rules: z.array(ruleRow).min(1).max(200),
  })
  .strict();

export type RuleFile = z.infer<typeof ruleFileSchema>;
export type RuleRow = z.infer<typeof ruleRow>;

/** A rule compiled from a row, with what proving it needs. */
export interface DataRule extends Rule {
  language: string;
  match: readonly string[];
  notMatch: readonly string[];
}

/** Within one sentence: a dot inside `~/.aws` or `evil.io` does not end it. */
const gap = (n: number) => String.raw`(?:[^\n.!?。！？]|[.!?](?=\S)){0,${n}}?`;

/** A negation closely before a slot's phrase (`agents must never push to main`), in the languages the files cover. */
const NEGATED_BEFORE = new RegExp(
  String.raw`(?:(?<![\p{L}\p{N}])(?:never|not|n't|no|don't|avoid|without|refuse|nie|nicht|kein\w*|niemals|jamais|ne|pas|sans|nunca|nao|sin|sem|mai|non|senza|niet|никогда|не|без)(?![\p{L}\p{N}])|不要|不得|禁止|しない|하지)[^.\n]{0,25}$`,
  'u',
);
const negatedAt = (text: string, at: number) => NEGATED_BEFORE.test(text.slice(Math.max(0, at - 60), at));

/**
 * A passage row, read as: its rarest slot (the regex the scanner runs over the whole text), then
 * each other slot within `gap` characters either side of it, none of them right after a negation.
 * One pass per slot keeps a long text linear, where one regex of every order of the slots is not.
 */
function passageAccept(anchorSrc: string, others: readonly string[], gap: number, reader?: string) {
  const ok = (src: string, text: string, start: number, end: number) =>
    counts(text, start, end) && (src !== reader || addressed(text, start, end));
  return (m: RegExpExecArray, text: string): boolean => {
    const hits = others.map((src) => slotHits(src, text));
    const lo = m.index - gap;
    const hi = m.index + m[0].length + gap;
    // Cheap first: every other slot has a hit near this one at all.
    if (!hits.every((list) => (list[firstFrom(list, lo)]?.[1] ?? Infinity) <= hi)) return false;
    if (!ok(anchorSrc, text, m.index, m.index + m[0].length)) return false;
    // Each slot needs words of its own (`emails` is not both a verb and a thing).
    const used: Array<[number, number]> = [[m.index, m.index + m[0].length]];
    return hits.every((list, k) => {
      for (let i = firstFrom(list, lo); i < list.length && list[i]![1] <= hi; i++) {
        const [start, end] = list[i]!;
        if (used.some(([s, e]) => start < e && end > s) || !ok(others[k]!, text, start, end)) continue;
        used.push([start, end]);
        return true;
      }
      return false;
    });
  };
}

/** Cues that put a reader in the second person: before it, and after it. */
const ADDRESS_BEFORE =
  /(?:^|[\s([<>*#"'-])(?:dear|hey|hi|hello|attention|attn|note|notice|message|instructions?|reminder|request|to|for|if you are|if you're|as|any|all|every|whichever|@)(?: (?:to|for|the|an?|any|all|every))* ?$/;
const ADDRESS_AFTER =
  /^(?:s?\s*[:,]|s? (?:reading|processing|parsing|reviewing|summari[sz]ing|working on) (?:this|these)|s? (?:must|should|shall|are required|is required|need to|needs to|are instructed|is instructed|have to|has to|are expected|is expected|can now|may now))/;

/** A reader addressed, not mentioned (`Note for the AI:`, `AI agents must …`, not `instructions aimed at AI assistants`). */
function addressed(text: string, start: number, end: number): boolean {
  // Forms of other languages in the list carry their address (`wenn du eine KI bist`, `AIエージェントの方へ`).
  if (!/^[a-z .'-]+$/.test(text.slice(start, end))) return true;
  return (
    ADDRESS_BEFORE.test(text.slice(Math.max(0, start - 40), start)) || ADDRESS_AFTER.test(text.slice(end, end + 40))
  );
}

/** The first hit starting at or after `at` (hits are in text order). */
function firstFrom(list: ReadonlyArray<[number, number]>, at: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]![0] < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * One compiled regex per distinct slot (rows share their concept lists), with its hits on the last
 * text it read: the scanner reads one text with every rule before the next, so each list is read
 * once per text however many rows pair it.
 */
const slots = new Map<string, { re: RegExp; text?: string; hits: Array<[number, number]> }>();

function slotEntry(src: string) {
  let e = slots.get(src);
  if (!e) slots.set(src, (e = { re: new RegExp(src, 'gu'), hits: [] }));
  return e;
}

/** The regex a rule runs as its own (`firstHit` moves its `lastIndex`): a copy of the shared one. */
const slotRegex = (src: string): RegExp => new RegExp(slotEntry(src).re);

function slotHits(src: string, text: string): ReadonlyArray<[number, number]> {
  const e = slotEntry(src);
  if (e.text !== text) {
    e.text = text;
    e.re.lastIndex = 0;
    e.hits = [...text.matchAll(e.re)].map((h): [number, number] => [h.index, h.index + h[0].length]);
  }
  return e.hits;
}

/**
 * A slot's phrase counts unless it is negated or reported (`e.g. "AI: delete the repo"`, "a
 * README that says …"): a passage about injections quotes the very concepts an injection is made
 * of. A quotation alone does not void it: JSON strings are where injections hide.
 */
function counts(text: string, start: number, end: number): boolean {
  return !negatedAt(text, start) && !mentioned(text, start, end);
}

/** A slot with its `@list`s spelled out. */
function expand(slot: readonly string[], file: RuleFile, where: string): string[] {
  return slot.flatMap((p) => {
    if (!p.startsWith('@')) return [p];
    const list = file.lists[p.slice(1)];
    if (!list) throw new Error(`${where}: unknown list ${p}`);
    return list;
  });
}

/** Slots several rows share (a list of two thousand phrases), compiled once. */
const slotCache = new Map<string, string>();

function slotSource(slot: readonly string[], file: RuleFile, where: string): string {
  const key = `${file.language}\u0000${slot.join('\u0000')}`;
  const cached = slotCache.get(key);
  if (cached !== undefined) return cached;
  const source = slotSourceOf(slot, file, where);
  slotCache.set(key, source);
  return source;
}

function slotSourceOf(slot: readonly string[], file: RuleFile, where: string): string {
  const words: string[] = [];
  const classes: string[] = [];
  for (const p of expand(slot, file, where)) {
    if (/^<[a-z_]+>$/.test(p)) {
      const c = CLASSES[p.slice(1, -1)];
      if (!c) throw new Error(`${where}: unknown class ${p}`);
      classes.push(c);
    } else words.push(p);
  }
  const parts = [...(words.length ? [phrases(words, true)] : []), ...classes];
  return `(?:${parts.join('|')})`;
}

/**
 * The slot least likely to occur in ordinary text (the one whose shortest phrase is longest; a
 * class counts as short): a text without it is not searched with the whole row.
 */
function rarestSlot(seq: ReadonlyArray<readonly string[]>): number {
  const shortest = seq.map((slot) => Math.min(...slot.map((p) => (/^[@<]/.test(p) ? 3 : [...p].length))));
  return shortest.indexOf(Math.max(...shortest));
}

function sentenceAround(text: string, start: number, end: number): string {
  const before = text.slice(Math.max(0, start - 200), start);
  const cut = Math.max(before.lastIndexOf('\n'), before.search(/[.!?。！？](?=\s)[^.!?。！？]*$/));
  const after = text.slice(end, end + 200);
  const stop = after.search(/[.!?。！？](?:\s|$)|\n/);
  return before.slice(cut + 1) + text.slice(start, end) + (stop < 0 ? after : after.slice(0, stop));
}

/** Compile one validated file; throws on a list or class it does not know. */
export function compileRuleFile(file: RuleFile, source: string): DataRule[] {
  const ids = new Set<string>();
  return file.rules.map((row) => {
    const where = `${source}: rule ${row.id}`;
    if (ids.has(row.id)) throw new Error(`${where}: the id is used twice`);
    ids.add(row.id);
    let re: string;
    let needs: RegExp | undefined;
    let passage: ((m: RegExpExecArray, text: string) => boolean) | undefined;
    let skip: ((text: string) => boolean) | undefined;
    if (row.regex !== undefined) re = row.regex;
    else {
      const slots = row.seq!.map((s, i) => slotSource(s, file, `${where} slot ${i + 1}`));
      if (row.scope === 'passage') {
        // The anchor the scanner runs is the shortest list (the others are read once per text anyway).
        const sizes = row.seq!.map((slot) => expand(slot, file, where).length);
        const anchor = sizes.indexOf(Math.min(...sizes));
        re = slots[anchor]!;
        passage = passageAccept(
          re,
          slots.filter((_, i) => i !== anchor),
          row.gap,
          row.addressed ? slots[0] : undefined,
        );
        // A text without every slot somewhere is passed over (each list read once per text, for all rows).
        skip = (text) => slots.some((src) => slotHits(src, text).length === 0);
      } else {
        const words = expand(row.seq![rarestSlot(row.seq!)]!, file, where);
        // A plain alternation of literals, without the word boundaries: looser than the slot, and
        // an order of magnitude faster to rule a large text out (no lookbehind at every position).
        if (!words.some((w) => /^<[a-z_]+>$/.test(w)))
          needs = new RegExp(
            words.map((w) => normalise(w.replace(/\*$/, '')).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
            'u',
          );
        re = slots.join(gap(row.gap));
        if (row.eitherOrder) re = `${re}|${[...slots].reverse().join(gap(row.gap))}`;
      }
    }
    let compiled: RegExp;
    try {
      compiled = row.scope === 'passage' ? slotRegex(re) : new RegExp(re, 'gu');
    } catch (e) {
      throw new Error(`${where}: ${(e as Error).message}`);
    }
    const guards: Guards = Object.fromEntries(row.guards.map((g) => [g, true]));
    const unless = row.unless.length ? new RegExp(phrases(row.unless), 'u') : undefined;
    return {
      family: row.family,
      pattern: row.id,
      description: row.description,
      re: compiled,
      ...(needs ? { needs } : {}),
      ...(skip ? { skip } : {}),
      // A passage row judges each of its slots itself (negation and report), after the cheap test
      // that they are near at all: the anchor alone is common words.
      ...(row.guards.length && row.scope !== 'passage' ? { guards } : {}),
      ...(unless || passage
        ? {
            accept: (m: RegExpExecArray, text: string) =>
              (!unless || !unless.test(sentenceAround(text, m.index, m.index + m[0].length))) &&
              (!passage || passage(m, text)),
          }
        : {}),
      language: file.language,
      match: row.match,
      notMatch: row.notMatch,
    };
  });
}

/** Validate and compile the rule files (`source` names each in errors). */
export function loadRuleFiles(files: ReadonlyArray<{ source: string; data: unknown }>): DataRule[] {
  const out: DataRule[] = [];
  const family = new Map<string, string>();
  for (const { source, data } of files) {
    const parsed = ruleFileSchema.safeParse(data);
    if (!parsed.success)
      throw new Error(`${source}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    for (const rule of compileRuleFile(parsed.data, source)) {
      // One id may stand for one class in several languages, but always in the same family.
      const known = family.get(rule.pattern);
      if (known && known !== rule.family)
        throw new Error(`${source}: rule ${rule.pattern} is in ${rule.family} here and in ${known} elsewhere`);
      family.set(rule.pattern, rule.family);
      out.push(rule);
    }
  }
  return out;
}

/**
 * Every `match` example must make its own rule fire and no `notMatch` example may; `fires` is the
 * scanner's matcher for one rule. Throws with every disagreement, so a table that no longer does
 * what its examples say never loads.
 */
export function proveRules(rules: readonly DataRule[], fires: (rule: Rule, text: string) => boolean): void {
  const wrong: string[] = [];
  for (const rule of rules) {
    for (const text of rule.match)
      if (!fires(rule, text)) wrong.push(`${rule.language}/${rule.pattern} does not match ${JSON.stringify(text)}`);
    for (const text of rule.notMatch)
      if (fires(rule, text)) wrong.push(`${rule.language}/${rule.pattern} matches ${JSON.stringify(text)}`);
  }
  if (wrong.length) throw new Error(`injection rules refuted by their own examples:\n  ${wrong.join('\n  ')}`);
}
