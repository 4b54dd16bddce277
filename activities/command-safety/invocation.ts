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
  script(inv: Invocation, text: Word, why: string): void;
  /** Classify another command built from words (`find -exec CMD {} +`). */
  nested(inv: Invocation, argv: Word[], o?: { operandsFromStdin?: boolean }): void;
  findings: Finding[];
  /** What earlier commands of the same line established (`git remote add evil …`), by kind. */
  facts: Map<string, Set<string>>;
}

export type Rule = (inv: Invocation, ctx: RuleContext) => void;

/** Values of the arguments (unknown ones as null). */
export const values = (inv: Invocation): Array<string | null> => inv.args.map((a) => a.value);
