/**
 * The table engine: rows compiled once into matchers indexed by program name, applied to an
 * invocation after the classifier peeled its runners. A row fires when any of its patterns holds;
 * every field of a pattern must hold. What fired, on which words, goes into the finding.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { stdoutTargets } from '../invocation.js';
import { hasOption, operands } from '../options.js';
import type { Word } from '../shell.js';
import { CHECKS } from './checks.js';
import { isOfClass } from './operand-classes.js';
import { writtenWords } from './destinations.js';
import { GLOBAL_VALUED, SUBCOMMAND_AT } from './global-options.js';
import type { CheckLine } from './checks.js';
import type { Pattern, Row } from './schema.js';

/** `/…/flags` is an expression; anything else a literal. */
function textMatcher(t: string): (v: string) => boolean {
  const m = /^\/(.*)\/([a-z]*)$/s.exec(t);
  if (m) {
    const re = new RegExp(m[1]!, m[2]);
    return (v) => re.test(v);
  }
  return t === '*' ? () => true : (v) => v === t;
}

interface Compiled {
  row: Row;
  pattern: Pattern;
  program: Array<(v: string) => boolean>;
  path: Array<Array<(v: string) => boolean>>;
  word?: RegExp[];
  notWord?: RegExp;
  notEnv?: RegExp;
}

const toRe = (t: string) => {
  const m = /^\/(.*)\/([a-z]*)$/s.exec(t);
  return m ? new RegExp(m[1]!, m[2]) : new RegExp(t);
};

/** The subcommand words: the first operands, skipping the values of `valued` options. */
function pathWords(args: readonly Word[], n: number, valued: readonly string[] | undefined): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < args.length && out.length < n; i++) {
    const v = args[i]!.value;
    if (v !== null && v.startsWith('-') && v !== '-') {
      if (v === '--') continue;
      if (valued?.includes(v)) i++;
      continue;
    }
    out.push(args[i]!);
  }
  return out;
}

export interface Hit {
  row: Row;
  /** The words that made it fire: the command word, the subcommand path, an option, an operand. */
  at: Word[];
  reason: string;
}

/** The first operands of an invocation, read once for all the patterns tried on it. */
type PathCache = Map<string, Word[]>;

/** Whether the pattern's subcommand path holds from `words[start]` on. */
function pathFits(c: Compiled, words: readonly Word[], start: number): boolean {
  return c.path.every((alts, i) => {
    const v = start + i < words.length ? words[start + i]!.value : '';
    return v !== null && !(v === '' && c.pattern.subcommand![i]!.includes('*')) && alts.some((m) => m(v));
  });
}

/**
 * A dry run (`helm uninstall web --dry-run`, `kubectl delete ns x --dry-run=client`, `aws s3 rm
 * --dryrun`): the tool reports what it would do. A tool without the option refuses it and does
 * nothing; hardline rows still fire (a tool that ignores unknown options would go on).
 */
const DRY_RUN = /^--(?:dry-?run|what-?if|simulate|noop)(?:=(?!false$|none$|0$)\S*)?$/i;

function tryPattern(c: Compiled, inv: Invocation, line: CheckLine, cache: PathCache, writes?: Word[]): Hit | undefined {
  const p = c.pattern;
  if (writes && !p.writes) return undefined;
  if (c.row.level !== 'hardline' && c.row.group !== 'exfiltrate' && inv.args.some((w) => DRY_RUN.test(w.value ?? '')))
    return undefined;
  if (p.asRoot && !inv.asRoot) return undefined;
  const at: Word[] = [inv.word];
  let path: Word[] = [];
  if (c.path.length) {
    const n = c.path.length + (p.skip ?? 0);
    const valued = p.valued ?? GLOBAL_VALUED[inv.name];
    const key = `${n}\u0000${valued?.join(' ') ?? ''}`;
    let words = cache.get(key);
    if (!words) cache.set(key, (words = pathWords(inv.args, n, valued)));
    let start = 0;
    while (!pathFits(c, words, start)) if (++start > (p.skip ?? 0) || start >= words.length) return undefined;
    path = words.slice(start, start + c.path.length);
    at.push(...path);
  }
  if (p.flags) {
    if (!hasOption(inv.args, p.flags)) return undefined;
    const flag = inv.args.find((w) => w.value?.startsWith('-') && hasOption([w], p.flags!));
    if (flag) at.push(flag);
  }
  if (p.notFlags && hasOption(inv.args, p.notFlags)) return undefined;
  let word: Word | undefined;
  for (const re of c.word ?? []) {
    const w = inv.args.find((a) => a.value !== null && re.test(a.value));
    if (!w) return undefined;
    word ??= w;
    at.push(w);
  }
  if (c.notWord && inv.args.some((w) => w.value !== null && c.notWord!.test(w.value))) return undefined;
  if (
    c.notEnv &&
    (inv.env.some((e) => e.value.value !== null && c.notEnv!.test(`${e.name}=${e.value.value}`)) ||
      inv.args.some((w) => w.value !== null && c.notEnv!.test(w.value)))
  )
    return undefined;
  if (p.operand) {
    const rest = operands(inv.args).filter((w) => !path.includes(w));
    const o = rest.find((w) => p.operand!.some((cls) => isOfClass(w, cls, inv.cmd.cwd)));
    if (!o) return undefined;
    word ??= o;
    at.push(o);
  }
  if (p.writes) {
    let dests = writes ?? cache.get('writes');
    if (!dests) cache.set('writes', (dests = writtenWords(inv)));
    // A program's own rows also read where its standard output goes (`yes > /tmp/fill`); the
    // any-program rows get redirections from the redirection check (`writes`).
    if (!writes && !c.pattern.program.includes('*')) {
      let withStdout = cache.get('writes+stdout');
      if (!withStdout) cache.set('writes+stdout', (withStdout = [...dests, ...stdoutTargets(inv.cmd)]));
      dests = withStdout;
    }
    const o = dests.find((w) => p.writes!.some((cls) => isOfClass(w, cls, inv.cmd.cwd)));
    if (!o) return undefined;
    word ??= o;
    at.push(o);
  }
  let detail = '';
  if (p.check) {
    const got = CHECKS[p.check]!(inv, line);
    if (!got) return undefined;
    const words = 'detail' in got ? got.at : got;
    if ('detail' in got) detail = got.detail;
    for (const w of words) if (w) at.push(w);
  }
  const reason = (p.reason ?? c.row.reason)
    .replaceAll('{program}', inv.name)
    .replaceAll('{subcommand}', path.map((w) => w.value).join(' '))
    .replaceAll('{word}', word?.value ?? word?.raw ?? '')
    .replaceAll('{detail}', detail);
  return { row: c.row, at: [...new Set(at)], reason };
}

export class RuleTable {
  private readonly byName = new Map<string, Compiled[]>();
  private readonly byPattern: Compiled[] = [];
  /** Patterns for any program (`program: ['*']`): what any command writes. */
  private readonly anyProgram: Compiled[] = [];
  private readonly rules = new Map<string, Rule | undefined>();
  private readonly candidates = new Map<string, Compiled[]>();

  constructor(
    readonly rows: readonly Row[],
    /** Programs whose rows describe the whole tool (otherwise its verbs and options are also read generically). */
    private readonly wholePrograms: ReadonlySet<string> = new Set(),
  ) {
    for (const row of rows)
      for (const pattern of row.when) {
        const c: Compiled = {
          row,
          pattern,
          program: pattern.program.map(textMatcher),
          path: (pattern.subcommand ?? []).map((alts) => alts.map(textMatcher)),
          ...(pattern.word ? { word: pattern.word.map(toRe) } : {}),
          ...(pattern.notWord ? { notWord: toRe(pattern.notWord) } : {}),
          ...(pattern.notEnv ? { notEnv: toRe(pattern.notEnv) } : {}),
        };
        for (const name of pattern.program) {
          if (name === '*') this.anyProgram.push(c);
          else if (name.startsWith('/')) {
            if (!this.byPattern.includes(c)) this.byPattern.push(c);
          } else {
            const list = this.byName.get(name) ?? [];
            list.push(c);
            this.byName.set(name, list);
          }
        }
      }
  }

  /** Every row that fires on this invocation (one hit per row). */
  hits(whole: Invocation, facts: CheckLine['facts'] = new Map(), written: CheckLine['written'] = new Map()): Hit[] {
    // `git -C dir push`: the rows read from the subcommand on.
    const at = SUBCOMMAND_AT[whole.name]?.(whole.args);
    const inv = at ? { ...whole, args: whole.args.slice(at) } : whole;
    const line: CheckLine = { whole, facts, written };
    return this.first(this.candidatesFor(inv.name), inv, line);
  }

  /** The patterns that name a program, literally or by expression (remembered; bounded). */
  private candidatesFor(name: string): Compiled[] {
    let list = this.candidates.get(name);
    if (!list) {
      if (this.candidates.size >= 4096) this.candidates.clear();
      list = [...(this.byName.get(name) ?? []), ...this.byPattern.filter((c) => c.program.some((m) => m(name)))];
      this.candidates.set(name, list);
    }
    return list;
  }

  /** Hits of the any-program patterns: on what `inv` writes, or on `writes` when given (a redirection's target). */
  anyHits(inv: Invocation, facts: CheckLine['facts'], written: CheckLine['written'], writes?: Word[]): Hit[] {
    return this.first(this.anyProgram, inv, { whole: inv, facts, written }, writes);
  }

  private first(candidates: Compiled[], inv: Invocation, line: CheckLine, writes?: Word[]): Hit[] {
    const cache: PathCache = new Map();
    const out: Hit[] = [];
    for (const c of candidates) {
      if (out.some((h) => h.row === c.row)) continue;
      const h = tryPattern(c, inv, line, cache, writes);
      if (h) out.push(h);
    }
    return out;
  }

  /** Reports the any-program rows' hits (see anyHits). */
  reportAny(inv: Invocation, ctx: RuleContext, writes?: Word[]): void {
    for (const h of this.anyHits(inv, ctx.facts, ctx.written, writes))
      ctx.add(inv, { level: h.row.level, group: h.row.group, rule: h.row.id, reason: h.reason, at: h.at });
  }

  /** Whether rows describe this program as a whole tool. */
  describesTool(name: string): boolean {
    return this.wholePrograms.has(name);
  }

  /** Whether a row of this group names this program. */
  namesIn(name: string, group: string): boolean {
    return (this.byName.get(name) ?? []).some((c) => c.row.group === group);
  }

  /** Whether any row names this program. */
  names(name: string): boolean {
    return this.byName.has(name) || this.byPattern.some((c) => c.program.some((m) => m(name)));
  }

  /** The table as a rule for one command name (undefined when no row names it). */
  ruleFor(name: string): Rule | undefined {
    if (this.rules.has(name)) return this.rules.get(name);
    const rule: Rule | undefined = this.names(name)
      ? (inv: Invocation, ctx: RuleContext) => {
          for (const h of this.hits(inv, ctx.facts, ctx.written))
            ctx.add(inv, { level: h.row.level, group: h.row.group, rule: h.row.id, reason: h.reason, at: h.at });
        }
      : undefined;
    this.rules.set(name, rule);
    return rule;
  }
}
