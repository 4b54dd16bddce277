/**
 * One command as the rules see it: its name (after every runner was peeled off), its arguments,
 * the simple command it came from (redirects, standard input, directory), and how to report.
 */
import type { Finding, Group } from './verdict.js';
import type { SimpleCommand, Word } from './shell.js';

export interface Invocation {
  /** The command's name: the last path component of its first word (`/bin/rm` → `rm`). */
  name: string;
  /** The first word as written after expansion (`/usr/bin/rm`, `./build.sh`). */
  path: string;
  word: Word;
  args: Word[];
  /** The simple command this came from. */
  cmd: SimpleCommand;
  /** More operands arrive on standard input at run time (`xargs rm`). */
  operandsFromStdin: boolean;
  /** Environment set for it (`FOO=1 cmd`, `env FOO=1 cmd`). */
  env: Array<{ name: string; value: Word }>;
  /** How deep in nested shells and runners this is. */
  depth: number;
  /** Run as root (`sudo`, `doas`, `pkexec`, … anywhere above it). */
  asRoot?: boolean;
  /** Started by another program (`find -exec`, `vim -c '!…'`, `git bisect run`), not typed at a prompt. */
  spawned?: boolean;
  /** Runs inside a container or on another machine (`docker run IMAGE cmd`, `kubectl exec`). */
  elsewhere?: boolean;
}

/** How a nested command is started (see `RuleContext.nested`). */
export interface NestedOptions {
  /** More operands arrive on standard input at run time (`xargs`, `find -exec … {} +`). */
  operandsFromStdin?: boolean;
  /** It runs in a container or on another machine, not here. */
  elsewhere?: boolean;
  /** The same shell runs it (a trap, `eval`, `source`): the variables set before it are its own. */
  sameShell?: boolean;
}

export interface Report {
  level?: 'dangerous' | 'hardline';
  group: Group;
  rule: string;
  reason: string;
  /** The words that triggered it (default: the whole command). */
  at?: ReadonlyArray<Word | undefined>;
}

export interface RuleContext {
  add(inv: Invocation, r: Report): void;
  /** Read a string as a shell command line (`sh -c '…'`, `ssh host '…'`) and classify what it runs. */
  script(inv: Invocation, text: Word, why: string, o?: NestedOptions): void;
  /** Classify another command built from words (`find -exec CMD {} +`). */
  nested(inv: Invocation, argv: Word[], o?: NestedOptions): void;
  findings: Finding[];
  /** What earlier commands of the same line established (`git remote add evil …`), by kind. */
  facts: Map<string, Set<string>>;
  /**
   * Files earlier commands of the same line wrote (`echo '…' > x.sh`), by path as written and as
   * resolved: their text when it was literal, null when it was not.
   */
  written: Map<string, string | null>;
  /** Aliases earlier commands of the same line defined (`alias ls='rm -rf'`): name → its text. */
  aliases: Map<string, Word>;
}

export type Rule = (inv: Invocation, ctx: RuleContext) => void;

/** Values of the arguments (unknown ones as null). */
export const values = (inv: Invocation): Array<string | null> => inv.args.map((a) => a.value);

/** The files a command's standard output is redirected into (`>`, `>>`, `>|`, `&>`, `&>>`). */
export function stdoutTargets(cmd: SimpleCommand): Word[] {
  const out: Word[] = [];
  for (const r of cmd.redirects)
    if (r.target && (r.fd === null || r.fd === 1) && /^(>|>>|>\||&>|&>>)$/.test(r.op)) out.push(r.target);
  return out;
}
