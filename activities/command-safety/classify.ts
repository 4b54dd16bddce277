/**
 * The approval gate's classifier (SPEC §7.5): every simple command anywhere in the command line is
 * found (shell.ts), its runners peeled off (runners.ts), its redirections and environment checked,
 * and the rules of its group applied (rules/). Strings handed to another shell — `sh -c`, `eval`,
 * `su -c`, `ssh host cmd`, `watch`, a literal script piped into `sh` — are read the same way,
 * recursively; when they cannot be known, that alone makes the command dangerous. So does a
 * command word that is not literal, and syntax the parser cannot read: the gate fails closed.
 */
import type { Invocation, Report, RuleContext } from './invocation.js';
import { RUNNERS, SUBCOMMAND_RUNNERS, unwrapRunner } from './runners.js';
import type { ParsedScript, SimpleCommand, Word } from './shell.js';
import { loadShellParser, parseShell, shellParserReady } from './shell.js';
import type { CommandVerdict, Finding } from './verdict.js';
import { verdictOf } from './verdict.js';
import { checkAssignments, checkRedirects } from './rules/environment.js';
import { forkBombs } from './rules/code.js';
import { GENERIC_RULES, ruleFor, runnerFindings, unknownRunner } from './rules/index.js';

/** Scripts inside scripts: deeper than this, the gate stops reading and asks. */
const MAX_DEPTH = 6;
/** Longer command lines are read only up to here; the rest makes the command dangerous. */
const MAX_CHARS = 200_000;

export { loadShellParser as loadCommandSafety };

export function commandSafetyReady(): boolean {
  return shellParserReady();
}

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

class Classifier implements RuleContext {
  findings: Finding[] = [];
  facts = new Map<string, Set<string>>();
  /** Where nested text sits in the top-level command, so every finding points into what the user sees. */
  private readonly spans: Array<{ start: number; end: number } | undefined> = [];

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
    });
  }

  /** A string another shell will run. */
  script(inv: Invocation, text: Word, why: string): void {
    if (text.value === null) {
      this.add(inv, {
        group: 'indirection',
        rule: 'dynamic_script',
        reason: `${why}, built at run time: cannot tell what it runs`,
        at: [inv.word, text],
      });
      return;
    }
    if (inv.depth + 1 > MAX_DEPTH) {
      this.add(inv, {
        group: 'indirection',
        rule: 'nested_too_deep',
        reason: 'shell commands nested too deep to read',
        at: [inv.word, text],
      });
      return;
    }
    this.spans[inv.depth + 1] = this.spans[inv.depth] ?? { start: text.start, end: text.end };
    this.run(text.value, inv.depth + 1);
  }

  nested(inv: Invocation, argv: Word[], o: { operandsFromStdin?: boolean } = {}): void {
    const first = argv[0];
    if (!first) return;
    if (first.value === null || first.glob) {
      this.add(inv, {
        group: 'indirection',
        rule: 'dynamic_command',
        reason: 'the command to run is only known at run time',
        at: [first],
      });
      return;
    }
    this.dispatch({
      name: basename(first.value),
      path: first.value,
      word: first,
      args: argv.slice(1),
      cmd: inv.cmd,
      operandsFromStdin: o.operandsFromStdin ?? false,
      env: [],
      depth: inv.depth,
    });
  }

  run(text: string, depth: number): void {
    let parsed: ParsedScript;
    const cut = text.length > MAX_CHARS;
    try {
      parsed = parseShell(cut ? text.slice(0, MAX_CHARS) : text);
    } catch {
      parsed = { source: text, commands: [], errors: [{ start: 0, end: text.length }], functions: new Map() };
    }
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
    const base: Invocation = {
      name: first?.value ? basename(first.value) : '',
      path: first?.value ?? '',
      word: first ?? { value: '', raw: '', start: cmd.start, end: cmd.end, glob: false },
      args: cmd.words.slice(1),
      cmd,
      operandsFromStdin: false,
      env: cmd.assignments,
      depth,
    };
    checkRedirects(base, this);
    checkAssignments(base, this);
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
      return;
    }
    // A function the script defines runs its own body (already read); a call is not a command.
    if (parsed.functions.has(first.value)) return;
    this.dispatch(base);
  }

  dispatch(inv: Invocation): void {
    if (RUNNERS[inv.name]) {
      runnerFindings(inv, this);
      ruleFor(inv.name)?.(inv, this);
      for (const g of GENERIC_RULES) g(inv, this);
      const u = unwrapRunner(inv.name, inv.args);
      if (u.assignments?.length) checkAssignments({ ...inv, env: u.assignments }, this);
      if (u.script) this.script(inv, u.script, `${inv.name} runs a command string`);
      else if (u.argv?.length) {
        const first = u.argv[0]!;
        if (first.value === null || first.glob) {
          this.add(inv, {
            group: 'indirection',
            rule: 'dynamic_command',
            reason: `${inv.name} runs a command only known at run time`,
            at: [first],
          });
          return;
        }
        this.dispatch({
          ...inv,
          name: basename(first.value),
          path: first.value,
          word: first,
          args: u.argv.slice(1),
          operandsFromStdin: inv.operandsFromStdin || (u.operandsFromStdin ?? false),
          env: [...inv.env, ...(u.assignments ?? [])],
        });
      }
      return;
    }
    const sub = SUBCOMMAND_RUNNERS[inv.name];
    if (sub) {
      const at = inv.args.findIndex((w) => w.value !== null && !w.value.startsWith('-'));
      if (at >= 0 && sub.includes(inv.args[at]!.value!)) {
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
    if (!rule) unknownRunner(inv, this);
  }
}

/** The verdict on a command line. The parser must be loaded (`await loadCommandSafety()`). */
export function classifyCommand(command: string): CommandVerdict {
  const c = new Classifier(command);
  c.run(command, 0);
  return verdictOf(c.findings);
}
