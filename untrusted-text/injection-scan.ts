/**
 * Prompt-injection scanning (docs/untrusted-text.md; families as in Hermes). Pure: the prompt builder scans each
 * context file and the memory snapshot before they enter the system prompt, the memory tool scans
 * what it is asked to store, and tool results can be scanned before they are sent back to the model.
 * A hit replaces the text with a `[BLOCKED: …]` note (see `blockedNote`).
 *
 * Invisible and bidirectional Unicode is looked for in the raw text (normalising would erase the
 * evidence). Everything else is matched on a normalised copy (injection-text.ts): HTML entities
 * and percent-escapes decoded, NFKC (full-width and mathematical letters fold to ASCII), accents
 * and invisible characters removed, look-alike Cyrillic folded inside Latin words, lower case,
 * whitespace collapsed, so `ｉｇｎｏｒｅ`, `ig\u200bnore`, `&#73;gnore` and `IGNORE` read alike. Text
 * that hides its words is also read decoded (base64 that decodes to words, letter-spaced lines,
 * misspelt key words restored),
 * and a few unmistakable phrases are looked for on letters only, forwards, reversed and ROT13'd.
 *
 * The hand-written rules live by family in families/ (override, role, leak, html, exfil,
 * credentials, multilingual); the phrase rules kept as data, with the examples each must and must
 * not match, in rules/<language>.json (rule-data.ts loads, compiles and proves them). They aim at text that addresses the agent, not at text about these topics: a
 * project convention ("always run the tests"), a security note that reports an attack ("attackers
 * write 'ignore previous instructions'"), a negated rule ("never print your system prompt") or a
 * description ("`--system` lets you override the system prompt") is not an injection. The guards
 * that tell them apart (untrusted-text/families/guards.ts) are narrow on purpose: a prefix such as "This
 * is not a drill," or "For example," does not switch a rule off, and a command that sends a
 * secret to a real host is flagged however it is framed.
 *
 * It is a tripwire: regexes catch known phrasings and their obfuscations well and new phrasings
 * less well.
 */

import { compactOf, hiddenViews, normalise, rot13, scanInvisible } from './injection-text.js';
import { COMPACT_PHRASES } from './families/compact.js';
import { CREDENTIAL_RULES } from './families/credentials.js';
import { EXFIL_RULES } from './families/exfil.js';
import { activated, conditional, descriptive, imperative, mentioned, negated, quoted } from './families/guards.js';
import { HTML_RULES } from './families/html.js';
import { LEAK_RULES } from './families/leak.js';
import { MULTILINGUAL_RULES } from './families/multilingual.js';
import { OVERRIDE_RULES } from './families/override.js';
import { ROLE_RULES } from './families/role.js';
import type { Rule } from './families/rule.js';
import { loadRuleFiles, proveRules } from './rule-data.js';
import de from './rules/de.json' with { type: 'json' };
import en from './rules/en.json' with { type: 'json' };
import es from './rules/es.json' with { type: 'json' };
import fr from './rules/fr.json' with { type: 'json' };
import ja from './rules/ja.json' with { type: 'json' };
import mul from './rules/mul.json' with { type: 'json' };
import ru from './rules/ru.json' with { type: 'json' };
import zh from './rules/zh.json' with { type: 'json' };

export interface InjectionFinding {
  family: string;
  pattern: string;
  description: string;
  /** The matched text with a little context, as normalised (invisible characters shown as `<U+200B>`). */
  excerpt: string;
}

export const INJECTION_FAMILIES: ReadonlyArray<{ family: string; description: string }> = [
  { family: 'invisible_unicode', description: 'invisible or bidirectional Unicode characters' },
  { family: 'instruction_override', description: "text that tries to replace or cancel the agent's instructions" },
  { family: 'role_hijack', description: 'a new identity for the agent, or a fake system or developer message' },
  { family: 'prompt_leak', description: 'a request to reveal the system prompt, instructions or conversation' },
  { family: 'hidden_html', description: 'instructions hidden in HTML comments or invisible elements' },
  { family: 'exfiltration', description: 'sending secrets, credential files or environment variables off the machine' },
  { family: 'credential_read', description: 'an instruction to read credential files or reveal secrets' },
  { family: 'remote_control', description: 'an instruction to take orders from, or report to, a remote controller' },
  {
    family: 'anti_forensics',
    description: 'an instruction to hide what the agent did (clear history, delete logs, leave no trace)',
  },
  { family: 'approval_bypass', description: "text saying the user's approval is not needed or was already given" },
];

/**
 * The phrase rules kept as data, one file per language, and `mul` for rows that read many
 * languages at once (rule-data.ts; docs/untrusted-text.md).
 */
const DATA_RULES = loadRuleFiles(
  Object.entries({ en, es, fr, de, zh, ru, ja, mul }).map(([lang, data]) => ({ source: `rules/${lang}.json`, data })),
);

/** In INJECTION_FAMILIES order, English first within a family, so findings come out in that order. */
const RULES: Rule[] = (() => {
  const all = [
    ...OVERRIDE_RULES,
    ...ROLE_RULES,
    ...LEAK_RULES,
    ...HTML_RULES,
    ...EXFIL_RULES,
    ...CREDENTIAL_RULES,
    ...MULTILINGUAL_RULES,
    ...DATA_RULES,
  ];
  const order = INJECTION_FAMILIES.map((f) => f.family);
  return all
    .map((r, i) => ({ r, i }))
    .sort((a, b) => order.indexOf(a.r.family) - order.indexOf(b.r.family) || a.i - b.i)
    .map(({ r }) => r);
})();

function excerptOf(text: string, start: number, end: number): string {
  const from = Math.max(0, start - 30);
  const to = Math.min(text.length, Math.min(end, start + 120) + 30);
  let out = text.slice(from, to).replace(/\s+/g, ' ');
  if (from > 0) out = `…${out}`;
  if (to < text.length) out = `${out}…`;
  return out;
}

/** The match passes the rule's guards (it is not a quotation, negation, description…). */
function guarded(rule: Rule, m: RegExpExecArray, text: string): boolean {
  const g = rule.guards;
  if (!g) return true;
  const end = m.index + m[0].length;
  if (g.negation && negated(text, m.index)) return false;
  if (rule.unguardedIf?.(m, text)) return true;
  const act = () => activated(text, m.index, end);
  if (g.quoted && quoted(text, m.index, end) && !act()) return false;
  if (g.mention && mentioned(text, m.index, end) && !act()) return false;
  if (g.modal && descriptive(text, m.index) && !act()) return false;
  if (g.condition && conditional(text, m.index) && !act()) return false;
  if (g.imperative && !imperative(text, m.index) && !act()) return false;
  return true;
}

interface Hit {
  start: number;
  end: number;
  text: string;
}

/** The first match of `rule` in `text` that survives its guards; rejected matches go to `skipped`. */
function firstHit(rule: Rule, text: string, skipped: Array<[number, number]>): Hit | undefined {
  // The rule's own (global) regex, rewound: scanning is synchronous, and recompiling a pattern of
  // tens of kilobytes per scan costs more than matching it.
  const re = rule.re;
  re.lastIndex = 0;
  let rejectedUntil = -1;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex += 1;
      continue;
    }
    // Inside a rejected match, only an order of its own counts ("don't forget to ignore …").
    const inner = m.index < rejectedUntil;
    const passes = guarded(rule, m, text) && (!inner || imperative(text, m.index));
    if (passes && (!rule.accept || rule.accept(m, text))) return { start: m.index, end: m.index + m[0].length, text };
    skipped.push([m.index, m.index + m[0].length]);
    rejectedUntil = Math.max(rejectedUntil, m.index + m[0].length);
    if (passes && rule.perLine) {
      // `accept` judged the whole line: go on with the next one.
      const eol = text.indexOf('\n', m.index);
      re.lastIndex = eol < 0 ? text.length : eol + 1;
    } else {
      // A rejected match may hold the real one ("don't forget to ignore your previous
      // instructions" is negated as a whole, not its inner order): look again one character on.
      re.lastIndex = m.index + 1;
    }
  }
  return undefined;
}

/** Letters-only phrases, on the text with guarded matches blanked (a quotation stays judged). */
function compactHit(re: RegExp, letters: string, at: number[], text: string): Hit | undefined {
  const c = re.exec(letters);
  return c ? { start: at[c.index]!, end: at[c.index + c[0].length - 1]! + 1, text } : undefined;
}

/** The rule finds something in `text` (any view) that survives its guards. */
function fires(rule: Rule, text: string): boolean {
  const n = normalise(text);
  return [n, ...hiddenViews(text, n)].some(
    (view) => (!rule.needs || rule.needs.test(view)) && !rule.skip?.(view) && firstHit(rule, view, []) !== undefined,
  );
}

// A table whose examples disagree with it does not load (and neither does the worker).
proveRules(DATA_RULES, fires);

/**
 * Scan text that will enter the system prompt or be re-sent to the model (context files, memory
 * entries, tool output). Returns at most one finding per pattern id, invisible Unicode first, then
 * in `INJECTION_FAMILIES` order; an empty list means nothing was found.
 */
export function scanForInjection(text: string): InjectionFinding[] {
  if (!text) return [];
  const findings = scanInvisible(text);
  const n = normalise(text);
  const views = [n, ...hiddenViews(text, n)];
  const seen = new Set<string>();
  const skipped: Array<[number, number]> = [];
  const found = (family: string, pattern: string, description: string, hit: Hit) => {
    seen.add(pattern);
    findings.push({ family, pattern, description, excerpt: excerptOf(hit.text, hit.start, hit.end) });
  };

  for (const rule of RULES) {
    if (seen.has(rule.pattern)) continue;
    let hit: Hit | undefined;
    for (const [i, view] of views.entries()) {
      if ((rule.needs && !rule.needs.test(view)) || rule.skip?.(view)) continue;
      hit = firstHit(rule, view, i === 0 ? skipped : []);
      if (hit) break;
    }
    if (hit) found(rule.family, rule.pattern, rule.description, hit);
  }

  // Letters only (guarded matches blanked, so a quotation stays judged), then reversed and ROT13'd.
  const pending = [...RULES.filter((r) => r.compact).map((r) => ({ ...r, re: r.compact! })), ...COMPACT_PHRASES].filter(
    (p) => !seen.has(p.pattern),
  );
  if (pending.length) {
    const { letters, at } = compactOf(blank(n, skipped));
    const reversed = [...letters].reverse().join('');
    const atReversed = [...at].reverse();
    const rotated = rot13(letters);
    for (const p of pending) {
      if (seen.has(p.pattern)) continue;
      const hit =
        compactHit(p.re, letters, at, n) ??
        compactHit(p.re, reversed, atReversed, n) ??
        compactHit(p.re, rotated, at, n);
      if (hit)
        found(p.family, p.pattern, p.description, {
          text: n,
          start: Math.min(hit.start, hit.end - 1),
          end: Math.max(hit.start + 1, hit.end),
        });
    }
  }

  // Invisible Unicode first, then by family; within a family, in rule order.
  const order = INJECTION_FAMILIES.map((f) => f.family);
  return findings.sort((a, b) => order.indexOf(a.family) - order.indexOf(b.family));
}

/** `text` with the given ranges replaced by spaces (same length, so indices still line up). */
function blank(text: string, ranges: ReadonlyArray<[number, number]>): string {
  if (ranges.length === 0) return text;
  const chars = text.split('');
  for (const [s, e] of ranges) for (let i = s; i < e; i += 1) chars[i] = ' ';
  return chars.join('');
}

/** The text to use instead of a blocked file or entry: `[BLOCKED: <name> — <description of the first finding>]`. */
export function blockedNote(name: string, findings: readonly InjectionFinding[]): string {
  return `[BLOCKED: ${name} — ${findings[0]?.description ?? 'possible prompt injection'}]`;
}
