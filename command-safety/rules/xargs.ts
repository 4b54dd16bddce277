/**
 * What xargs and parallel run when the command line shows their input: literal input cut the way
 * xargs cuts it (`echo 'reset --hard' | xargs git` runs `git reset --hard`), and a tool whose
 * subcommand only arrives on standard input (`… | xargs terraform`).
 */
import type { Invocation, RuleContext } from '../invocation.js';
import { hasOption, optionValue } from '../options.js';
import type { Word } from '../shell.js';
import { decodeAnsiC } from '../shell-expand.js';
import { SHELLS, dynamicArguments } from './code.js';
import { literalInput } from './literal-text.js';
import { writtenText } from './written.js';

/** A word the rules make up at the place of a real one (an xargs token, a default operand). */
export const synthetic = (at: Word, value: string): Word => ({ ...at, value, raw: value, glob: false });

/** Cut `text` the way xargs does: blanks separate words, quotes and backslashes keep them together. */
export function xargsSplit(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else cur += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      cur += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

/** The most runs of xargs or parallel read out one by one. */
const MAX_RUNS = 16;

/**
 * What xargs or parallel feed their command when the command line shows it: literal input
 * (`echo 'reset --hard' | xargs git`, `xargs -a /dev/null sh`) or parallel's `::: a b`. One entry
 * per run of the command (each line with `-I {}`); undefined when the input is only known at run time.
 */
export function xargsLiteralInput(
  inv: Invocation,
  ctx: RuleContext,
): Array<{ words: Word[]; replace?: string }> | undefined {
  const at = inv.word;
  if (inv.name === 'parallel') {
    const sep = inv.args.findIndex((w) => w.value === ':::');
    if (sep < 0 || inv.args.slice(sep + 1).some((w) => w.value === null || /^:::/.test(w.value))) return undefined;
    const before = inv.args.slice(0, sep);
    const replace = before.some((w) => w.value?.includes('{}')) ? '{}' : undefined;
    return inv.args.slice(sep + 1, sep + 1 + MAX_RUNS).map((w) => ({ words: [w], ...(replace ? { replace } : {}) }));
  }
  const file = optionValue(inv.args, 'a', ['--arg-file']);
  let text: string | null | undefined;
  if (file === null) return undefined;
  if (file !== undefined) text = file === '/dev/null' ? '' : writtenText(ctx, file, inv.cmd.cwd);
  else text = literalInput(inv.cmd);
  if (text === null || text === undefined) return undefined;
  const replace =
    optionValue(inv.args, 'I') ??
    (inv.args.some((w) => /^(-i|--replace)$/.test(w.value ?? '')) ? '{}' : undefined) ??
    optionValue(inv.args, undefined, ['--replace']);
  if (replace === null) return undefined;
  const delimiter = hasOption(inv.args.slice(0, 3), { short: '0', long: ['--null'] })
    ? '\u0000'
    : optionValue(inv.args, 'd', ['--delimiter']);
  if (delimiter === null) return undefined;
  if (replace !== undefined)
    return text
      .split('\n')
      .filter((l) => l.trim())
      .slice(0, MAX_RUNS)
      .map((l) => ({ words: [synthetic(at, l.trim())], replace }));
  const tokens = delimiter !== undefined ? text.split(decodeAnsiC(delimiter)).filter(Boolean) : xargsSplit(text);
  return [{ words: tokens.map((t) => synthetic(at, t)) }];
}

/** Tools whose first operand says what they do: with none, xargs' input decides (`… | xargs git`). */
const SUBCOMMAND_FIRST = new Set([
  'git',
  'hg',
  'svn',
  'terraform',
  'tofu',
  'terragrunt',
  'pulumi',
  'kubectl',
  'oc',
  'helm',
  'docker',
  'podman',
  'aws',
  'gcloud',
  'az',
  'gh',
  'npm',
  'pnpm',
  'yarn',
  'cargo',
  'systemctl',
  'redis-cli',
  'psql',
  'mysql',
  'sqlite3',
  'mongosh',
  'make',
  'sudo',
  'env',
  'eval',
  'exec',
  'python',
  'python3',
  'node',
  'perl',
  'ruby',
  'php',
]);

/** `… | xargs git`, `… | base64 -d | xargs terraform`: the subcommand itself is only known at run time. */
export function xargsWithoutSubcommand(next: Invocation, ctx: RuleContext): void {
  if (!SUBCOMMAND_FIRST.has(next.name) || SHELLS.has(next.name)) return;
  if (next.args.some((w) => w.value === null || !w.value.startsWith('-'))) return;
  dynamicArguments(next, ctx);
}

/** fd's options that take a value (so the pattern and the search paths are found). */
