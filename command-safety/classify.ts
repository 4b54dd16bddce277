/**
 * The approval gate's classifier (docs/command-safety.md): every simple command anywhere in the command line is
 * found (shell.ts), its runners peeled off (runners.ts), its redirections and environment checked,
 * and the rules of its group applied (rules/). Strings handed to another shell — `sh -c`, `eval`,
 * `su -c`, `ssh host cmd`, `watch`, a literal script piped into `sh` — are read the same way,
 * recursively; when they cannot be known, that alone makes the command dangerous. So does a
 * command word that is not literal, and syntax the parser cannot read: the gate fails closed.
 */
import type { Invocation, NestedOptions, Report, RuleContext } from './invocation.js';
import { RUNNERS, SUBCOMMAND_RUNNERS, unwrapRunner } from './runners.js';
import type { ParsedScript, SimpleCommand, Word } from './shell.js';
import { loadShellParser, parseShell, shellParserReady } from './shell.js';
import { globSource } from './paths.js';
import type { CommandVerdict, Finding } from './verdict.js';
import { verdictOf } from './verdict.js';
import { checkAssignments, checkRedirects } from './rules/environment.js';
import { interactiveShell } from './rules/code.js';
import { diskFloods, forkBombs, processFloods } from './rules/floods.js';
import { GENERIC_RULES, ROOT_RUNNERS, knowsTool, ruleFor, runnerFindings, unknownRunner } from './rules/index.js';
import { RUN_TARGETS } from './rules/unknown-runner.js';
import { evaluatedVariables } from './rules/environment.js';
import { xargsLiteralInput, xargsWithoutSubcommand } from './rules/xargs.js';
import { unknownTool } from './rules/unknown-tools.js';
import { emptiesUnknownFile } from './rules/destinations.js';
import { RULE_TABLE, ruleExampleErrors } from './table/index.js';

/** Scripts inside scripts: deeper than this, the gate stops reading and asks. */
const MAX_DEPTH = 6;
/** Longer command lines are read only up to here; the rest makes the command dangerous. */
const MAX_CHARS = 200_000;

/** A command substitution that runs a decoder (`$(… | base64 -d)`, `` `xxd -r -p <<< …` ``). */
const DECODED_SUBSTITUTION = /(?:\$\(|`)[^)`]*\b(?:base64|basenc|base32|xxd|openssl|rev|tr)\b/;

let examplesChecked = false;

/**
 * Load the shell parser and prove the rule table: every row's `match` example must report the row's
 * id and no `notMatch` one may (table/index.ts). A table that fails its own examples throws here, so
 * the worker and the CLI refuse to start on it.
 */
export async function loadCommandSafety(o: { proveExamples?: boolean } = {}): Promise<void> {
  await loadShellParser();
  // The CLI's one-shot `check-command` skips the proof (a second or more on a cold start); the
  // worker, the activities and the tests run it.
  if (examplesChecked || o.proveExamples === false) return;
  const errors = ruleExampleErrors(RULE_TABLE.rows, classifyCommand);
  if (errors.length) throw new Error(`command-safety table examples fail:\n${errors.join('\n')}`);
  examplesChecked = true;
}

export function commandSafetyReady(): boolean {
  return shellParserReady();
}

/** A command's name: the last path component, without a Windows `.exe` (`shutdown.exe` under WSL). */
const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1).replace(/\.exe$/i, '');

/**
 * What a nested script inherits from the command that runs it. The classifier sets all three on every
 * invocation (false rather than absent) and builds invocations property by property: on Node 20's V8,
 * an object spread followed by a property the source lacks gives each result a hidden class of its
 * own, and every rule reading such objects then takes the slow, megamorphic path.
 */
type Inherited = Required<Pick<Invocation, 'asRoot' | 'spawned' | 'elsewhere'>>;

class Classifier implements RuleContext {
  findings: Finding[] = [];
  facts = new Map<string, Set<string>>();
  written = new Map<string, string | null>();
  aliases = new Map<string, Word>();
  /** How many calls of each function of the line were read with their arguments. */
  private calls = new Map<string, number>();
  /** Where nested text sits in the top-level command, so every finding points into what the user sees. */
  private readonly spans: Array<{ start: number; end: number } | undefined> = [];
  /** What the commands of a nested script inherit (root, started by a program, elsewhere), by depth. */
  private readonly context: Array<Inherited | undefined> = [];
  /** The variables each level's script assigns (what a trap or `eval` at that level sees). */
  private readonly vars: Array<ReadonlyMap<string, Array<string | null>> | undefined> = [];
  /** Aliases being expanded (an alias naming itself is expanded once, as bash does). */
  private readonly expanding = new Set<string>();

  constructor(private readonly topLevel: string) {}

  add(inv: Invocation, r: Report): void {
    const at = (r.at ?? [inv.word, ...inv.args]).filter((w): w is Word => w !== undefined);
    const outer = this.spans[inv.depth];
    const start = outer ? outer.start : Math.min(...at.map((w) => w.start), inv.cmd.start);
    const end = outer ? outer.end : Math.max(...at.map((w) => w.end), inv.cmd.start);
    this.findings.push({
      level: r.level ?? 'dangerous',
      group: r.group,
      rule: r.rule,
      reason: r.reason,
      words: outer
        ? this.topLevel.slice(start, end)
        : at.map((w) => w.raw).join(' ') || this.topLevel.slice(start, end),
      start,
      end,
      at: outer
        ? [{ text: this.topLevel.slice(start, end), start, end }]
        : at.map((w) => ({ text: w.raw, start: w.start, end: w.end })),
    });
  }

  /** A string another shell will run. */
  script(inv: Invocation, text: Word, why: string, o: NestedOptions = {}): void {
    if (text.value === null) {
      this.add(inv, {
        group: 'indirection',
        rule: 'dynamic_script',
        reason: `${why}, built at run time: cannot tell what it runs`,
        at: [inv.word, text],
      });
      return;
    }
    // `eval "$(echo cm0g… | base64 -d)"`: the script is read as what it decodes to, and decoding
    // text into a shell asks by itself, as when it is piped in.
    if (DECODED_SUBSTITUTION.test(text.raw))
      this.add(inv, {
        group: 'indirection',
        rule: 'decoded_to_shell',
        reason: `${why}: decoded or transformed text`,
        at: [inv.word, text],
      });
    if (inv.depth + 1 > MAX_DEPTH) {
      this.add(inv, {
        group: 'indirection',
        rule: 'nested_too_deep',
        reason: 'shell commands nested too deep to read',
        at: [inv.word, text],
      });
      return;
    }
    this.runWithin(
      text.value,
      inv.depth + 1,
      text,
      {
        asRoot: inv.asRoot === true,
        spawned: inv.spawned === true,
        elsewhere: inv.elsewhere === true || o.elsewhere === true,
      },
      o.sameShell ? this.vars[inv.depth] : undefined,
    );
  }

  /**
   * Text read as a script one level down: its findings point at `span` of the command line (or at
   * the span the level above already points at), and its commands inherit `context`.
   */
  private runWithin(
    text: string,
    depth: number,
    span: { start: number; end: number },
    context: Inherited | undefined,
    vars?: ReadonlyMap<string, Array<string | null>>,
  ): void {
    this.spans[depth] = this.spans[depth - 1] ?? { start: span.start, end: span.end };
    const saved = this.context[depth];
    const savedVars = this.vars[depth];
    this.context[depth] = context;
    this.run(text, depth, vars);
    this.context[depth] = saved;
    this.vars[depth] = savedVars;
  }

  /** `/???/r? -rf /etc`: a glob command word is read as each program an unknown wrapper may run that it may name. */
  private globbed(inv: Invocation): void {
    if (!inv.word.glob || inv.word.value === null) return;
    // A pattern with no letter of its own (`*`, `/???/??`, a crontab's `* * * * *`) names anything: asking is all.
    const pattern = basename(inv.word.value);
    if (!/[^*?]/.test(pattern.replace(/\[[^\]]*\]/g, ''))) return;
    const name = new RegExp(`^${globSource(pattern)}$`);
    for (const program of RUN_TARGETS) if (name.test(program)) this.dispatch({ ...inv, name: program });
  }

  nested(inv: Invocation, argv: Word[], o: NestedOptions = {}): void {
    const first = argv[0];
    if (!first) return;
    const next: Invocation = {
      name: first.value === null ? '' : basename(first.value),
      path: first.value ?? '',
      word: first,
      args: argv.slice(1),
      cmd: inv.cmd,
      operandsFromStdin: o.operandsFromStdin ?? false,
      // A child process inherits the environment (`RAILS_ENV=test bundle exec rake …`), unless it runs elsewhere.
      env: o.elsewhere || inv.elsewhere ? [] : inv.env,
      depth: inv.depth,
      asRoot: inv.asRoot === true,
      spawned: true,
      elsewhere: inv.elsewhere === true || o.elsewhere === true,
    };
    if (first.value === null || first.glob) {
      this.add(inv, {
        group: 'indirection',
        rule: 'dynamic_command',
        reason: 'the command to run is only known at run time',
        at: [first],
      });
      this.globbed(next);
      return;
    }
    this.dispatch(next);
  }

  run(text: string, depth: number, vars?: ReadonlyMap<string, Array<string | null>>): void {
    let parsed: ParsedScript;
    const cut = text.length > MAX_CHARS;
    try {
      parsed = parseShell(cut ? text.slice(0, MAX_CHARS) : text, vars ? { vars } : {});
    } catch {
      parsed = { source: text, commands: [], errors: [{ start: 0, end: text.length }], functions: new Map() };
    }
    this.vars[depth] = parsed.vars;
    const here = (start: number, end: number): Invocation => ({
      name: '',
      path: '',
      word: { value: '', raw: text.slice(start, end), start, end, glob: false },
      args: [],
      cmd: {
        words: [],
        assignments: [],
        redirects: [],
        stdin: undefined,
        inFunction: undefined,
        background: false,
        pipedOut: false,
        cwd: '.',
        start,
        end,
      },
      operandsFromStdin: false,
      env: [],
      depth,
    });
    if (cut)
      this.add(here(MAX_CHARS, text.length), {
        group: 'indirection',
        rule: 'too_long',
        reason: `the command is longer than ${MAX_CHARS} characters`,
      });
    for (const e of parsed.errors.slice(0, 3))
      this.add(here(e.start, e.end), {
        group: 'indirection',
        rule: 'unparseable',
        reason: 'shell syntax the gate cannot read',
      });
    for (const cmd of parsed.commands) this.simple(cmd, depth, parsed);
    // Text the parser misread, read again on its own; findings point at the misread span.
    for (const r of parsed.rereads ?? [])
      if (depth + 1 <= MAX_DEPTH) this.runWithin(r.text, depth + 1, r, this.context[depth]);
    // `a[$(cmd)]` anywhere in the text: bash runs the substitution when the text is read as
    // arithmetic or a variable name (`let`, `declare -i`, `((…))`, `${s:x}`, `test -v`, `printf -v`,
    // `read`, `unset`, an integer variable) — wherever the string ends up, it is code.
    // `rm${IFS}-rf${IFS}dist`: words split by `$IFS` are spelled to dodge a reader.
    const ifs = /\$\{?IFS\b/.exec(text);
    if (ifs)
      this.add(here(ifs.index, ifs.index + ifs[0].length), {
        group: 'indirection',
        rule: 'obfuscated_command',
        reason: 'words split with $IFS',
      });
    const sub = subscriptCode(text);
    if (sub)
      this.add(here(sub.index, sub.index + sub.length), {
        group: 'indirection',
        rule: 'subscript_code',
        reason: 'a subscript with a command substitution: bash runs it wherever the text is evaluated as arithmetic',
      });
    evaluatedVariables(parsed, here(0, text.length), this);
    for (const flood of processFloods(parsed.endlessLoops ?? []))
      this.add(here(flood.start, flood.end), {
        level: 'hardline',
        group: 'system',
        rule: 'fork_bomb',
        reason:
          'an endless loop that starts background processes without waiting (they pile up until the machine stops)',
      });
    for (const flood of diskFloods(parsed.endlessLoops ?? []))
      this.add(here(flood.start, flood.end), {
        group: 'system',
        rule: 'resource_exhaustion',
        reason: 'an endless loop that writes files without pausing (it fills the disk)',
      });
    for (const bomb of forkBombs(parsed.functions, parsed.commands))
      this.add(here(bomb.start, bomb.end), {
        level: 'hardline',
        group: 'system',
        rule: 'fork_bomb',
        reason: 'a fork bomb (a function that spawns copies of itself)',
      });
  }

  private simple(cmd: SimpleCommand, depth: number, parsed: ParsedScript): void {
    const first = cmd.words[0];
    const from = this.context[depth];
    const base: Invocation = {
      name: first?.value ? basename(first.value) : '',
      path: first?.value ?? '',
      word: first ?? { value: '', raw: '', start: cmd.start, end: cmd.end, glob: false },
      args: cmd.words.slice(1),
      cmd,
      operandsFromStdin: false,
      env: cmd.assignments,
      depth,
      asRoot: from?.asRoot ?? false,
      spawned: from?.spawned ?? false,
      elsewhere: from?.elsewhere ?? false,
    };
    checkRedirects(base, this);
    checkAssignments(base, this);
    emptiesUnknownFile(base, this);
    if (!first) return;
    if (/^"?\$\{?0\}?"?$/.test(first.raw) && (cmd.background || cmd.pipedOut || cmd.stdin?.kind === 'pipe')) {
      this.add(base, {
        level: 'hardline',
        group: 'system',
        rule: 'fork_bomb',
        reason: 'a fork bomb (the shell starting copies of itself)',
        at: [first],
      });
      return;
    }
    if (first.value === null || first.glob) {
      this.add(base, {
        group: 'indirection',
        rule: 'dynamic_command',
        reason: first.glob
          ? 'the command word is a glob pattern: cannot tell what runs'
          : 'the command word is only known at run time: cannot tell what runs',
        at: [first],
      });
      this.globbed(base);
      return;
    }
    // A function the script defines runs its own body (already read); a call is not a command.
    if (parsed.functions.has(first.value)) return this.call(base, parsed.functionTexts?.get(first.value));
    this.dispatch(base);
  }

  /**
   * `wipe(){ rm -rf "$1"; }; wipe /`: a call with literal arguments runs the body with them as its
   * positional parameters, so the body is read again as `set -- '/'` followed by it (the first
   * reading only knew `$1` as unknown).
   */
  private call(inv: Invocation, body: string | undefined): void {
    const last = inv.args[inv.args.length - 1];
    if (body === undefined || !last || inv.args.some((w) => w.value === null)) return;
    // Bounded: a line of many calls re-reads a body a few times, not once per call.
    const calls = (this.calls.get(inv.name) ?? 0) + 1;
    this.calls.set(inv.name, calls);
    if (calls > MAX_CALLS_READ) return;
    const text = `set -- ${inv.args.map((w) => quote(w.value!)).join(' ')}\n${body}`;
    this.script(inv, { value: text, raw: text, start: inv.word.start, end: last.end, glob: false }, 'a function', {
      sameShell: true,
    });
  }

  dispatch(inv: Invocation): void {
    // `r''m`, `""rm`, `\rm`, `$'\x72m'`, `r"m"`: a command word spelled to dodge a reader asks,
    // even when its value is known (a quoted path such as `"./my tool"` is plain) — also after a runner.
    if (obfuscatedWord(inv.word.raw))
      this.add(inv, {
        group: 'indirection',
        rule: 'obfuscated_command',
        reason: 'the command word is spelled with quotes, escapes or expansions inside it',
        at: [inv.word],
      });
    const alias = this.aliases.get(inv.name);
    if (alias && !this.expanding.has(inv.name)) return this.expandAlias(inv, alias);
    if (RUNNERS[inv.name]) {
      runnerFindings(inv, this);
      ruleFor(inv.name)?.(inv, this);
      for (const g of GENERIC_RULES) g(inv, this);
      const u = unwrapRunner(inv.name, inv.args);
      if (u.assignments?.length) checkAssignments({ ...inv, env: u.assignments }, this);
      const child: Inherited = {
        asRoot: inv.asRoot === true || ROOT_RUNNERS.has(inv.name),
        spawned: inv.spawned === true,
        elsewhere: inv.elsewhere === true || u.remote === true,
      };
      // `sudo script -q /dev/null`, `nsenter -t 1 -a`: the runner opens a shell of its own.
      if (u.interactiveShell && !ROOT_RUNNERS.has(inv.name)) interactiveShell({ ...inv, ...child }, this);
      if (u.script)
        this.script({ ...inv, ...child }, u.script, `${inv.name} runs a command string`, {
          ...(u.remote ? { elsewhere: true } : {}),
        });
      else if (u.argv?.length) {
        const first = u.argv[0]!;
        const next: Invocation = {
          ...inv,
          ...child,
          name: first.value === null ? '' : basename(first.value),
          path: first.value ?? '',
          word: first,
          args: u.argv.slice(1),
          operandsFromStdin: inv.operandsFromStdin || (u.operandsFromStdin ?? false),
          env: [...inv.env, ...(u.assignments ?? [])],
        };
        if (first.value === null || first.glob) {
          this.add(inv, {
            group: 'indirection',
            rule: 'dynamic_command',
            reason: `${inv.name} runs a command only known at run time`,
            at: [first],
          });
          this.globbed(next);
          return;
        }
        if (u.operandsFromStdin) {
          // `echo 'reset --hard' | xargs git`: literal input becomes the arguments, as xargs splits it.
          const runs = xargsLiteralInput(inv, this);
          if (runs) {
            for (const extra of runs)
              this.dispatch({ ...next, args: substitute(next.args, extra), operandsFromStdin: false });
            return;
          }
          xargsWithoutSubcommand(next, this);
        }
        this.dispatch(next);
      }
      return;
    }
    const sub = SUBCOMMAND_RUNNERS[inv.name];
    if (sub) {
      const at = inv.args.findIndex((w) => w.value !== null && !w.value.startsWith('-'));
      if (at >= 0 && sub.includes(inv.args[at]!.value!)) {
        // The runner's own rows first: `bun x https://…` fetches the package it runs.
        RULE_TABLE.ruleFor(inv.name)?.(inv, this);
        let rest = inv.args.slice(at + 1);
        while (rest[0]?.value?.startsWith('-')) {
          const opt = rest[0].value;
          rest = rest.slice(/^(-n|--name|-p|--prefix|--with|--from|-e|--env|--package)$/.test(opt) ? 2 : 1);
          if (opt === '--') break;
        }
        if (rest.length) this.nested(inv, rest, { operandsFromStdin: inv.operandsFromStdin });
        return;
      }
    }
    const rule = ruleFor(inv.name);
    rule?.(inv, this);
    for (const g of GENERIC_RULES) g(inv, this);
    if (!knowsTool(inv.name)) {
      if (!rule) unknownRunner(inv, this);
      unknownTool(inv, this);
    }
  }

  /** `alias ls='rm -rf'; ls dist`: the alias's text with the command's arguments, read as a command line. */
  private expandAlias(inv: Invocation, alias: Word): void {
    const args = inv.args.map((w) => (w.value === null ? null : quote(w.value)));
    this.expanding.add(inv.name);
    this.script(
      inv,
      {
        ...inv.word,
        value: alias.value === null || args.includes(null) ? null : [alias.value, ...args].join(' '),
      },
      `the alias ${inv.name}`,
    );
    this.expanding.delete(inv.name);
  }
}

/**
 * Where a subscript (`name[…]`) holds `$(…)` (not `$((…))`) or a backtick, quoted or escaped: one
 * linear pass with a bracket depth, so a long or padded subscript cannot hide one.
 */
function subscriptCode(text: string): { index: number; length: number } | undefined {
  const opens: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '[' && i > 0 && /[\w}]/.test(text[i - 1]!)) opens.push(i);
    else if (c === ']') opens.pop();
    else if (opens.length && (c === '`' || (c === '$' && text[i + 1] === '(' && text[i + 2] !== '(')))
      return { index: opens[0]! - 1, length: i + 2 - opens[0]! };
  }
  return undefined;
}

/** A command word whose source mixes quoted and unquoted parts, escapes, or `$` expansions. */
function obfuscatedWord(raw: string): boolean {
  // `"./my tool"`, `'/opt/App Name/bin/x'`: a quoted path is plain; a quoted bare name (`"rm"`) is not.
  if (/^'[^']*[/ ][^']*'$/.test(raw) || /^"[^"$`\\]*[/ ][^"$`\\]*"$/.test(raw)) return false;
  // `\ls`, `\rm`: one leading backslash is the idiom that skips an alias (the command is still judged).
  if (/^\\[\w.-]+$/.test(raw)) return false;
  return /['"\\$`]/.test(raw);
}

/** Calls of one function read again with their arguments (`f /; f ~; …`); later ones were read with `$1` unknown. */
const MAX_CALLS_READ = 8;

/** A word quoted for a shell (single quotes). */
const quote = (v: string) => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);

/** xargs' arguments for one run: `-I {}` placeholders replaced, or the input words appended. */
function substitute(args: Word[], extra: { words: Word[]; replace?: string }): Word[] {
  if (extra.replace === undefined) return [...args, ...extra.words];
  const line = extra.words.map((w) => w.value).join(' ');
  return args.map((w) =>
    w.value !== null && w.value.includes(extra.replace!)
      ? { ...w, value: w.value.split(extra.replace!).join(line) }
      : w,
  );
}

/** The verdict on a command line. The parser must be loaded (`await loadCommandSafety()`). */
export function classifyCommand(command: string): CommandVerdict {
  const c = new Classifier(command);
  c.run(command, 0);
  return verdictOf(c.findings);
}
