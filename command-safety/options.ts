/**
 * Reading a command's options the way its own parser would: bundled short flags (`-rf`), long
 * options with `=value`, the `--` that ends them, and GNU-style abbreviations of long options
 * (`--har` is `--hard`, `--forc` is `--force`): an abbreviation counts as every option it could
 * stand for, so the gate never reads less than the command does.
 */
import type { Word } from './shell.js';

export interface OptionSpec {
  /** Short letters, e.g. 'rR'. */
  short?: string | undefined;
  /** Long names with their dashes, e.g. ['--recursive']. */
  long?: readonly string[] | undefined;
}

/** Values of argv after argv[0], up to `--` (options end there). */
export function optionWords(args: readonly Word[]): string[] {
  const out: string[] = [];
  for (const a of args) {
    if (a.value === '--') break;
    if (a.value !== null) out.push(a.value);
  }
  return out;
}

/** Whether a long option as written (`--for`, `--force=x`) stands for `name` (`--force`). */
export function longMatches(written: string, name: string, minPrefix = 4): boolean {
  const w = written.split('=')[0]!;
  if (!w.startsWith('--') || w.length < Math.min(minPrefix, name.length)) return false;
  return name.startsWith(w);
}

/** Whether any option in `args` is one of `spec` (short letters anywhere in a bundle, long exact or abbreviated). */
export function hasOption(args: readonly Word[], spec: OptionSpec): boolean {
  for (const a of optionWords(args)) {
    if (a.startsWith('--')) {
      if (spec.long?.some((l) => longMatches(a, l))) return true;
    } else if (a.startsWith('-') && a.length > 1 && spec.short && !/^-\d/.test(a)) {
      if ([...a.slice(1)].some((ch) => spec.short!.includes(ch))) return true;
    }
  }
  return false;
}

/** The value of an option (`-n 5`, `-n5`, `--namespace=x`, `--namespace x`), first occurrence. */
export function optionValue(
  args: readonly Word[],
  short: string | undefined,
  long: readonly string[] = [],
): string | null | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!.value;
    if (a === null) continue;
    if (a === '--') return undefined;
    for (const l of long) {
      if (a === l) return args[i + 1]?.value;
      if (a.startsWith(`${l}=`)) return a.slice(l.length + 1);
    }
    if (short && a === `-${short}`) return args[i + 1]?.value;
    if (short && a.startsWith(`-${short}`) && a.length > 2 && !a.startsWith('--')) return a.slice(2);
  }
  return undefined;
}

/** Operands: words that are not options (after `--`, everything). Option values are not known here, so they may be included. */
export function operands(args: readonly Word[]): Word[] {
  const out: Word[] = [];
  let ended = false;
  for (const a of args) {
    if (!ended && a.value === '--') {
      ended = true;
      continue;
    }
    if (!ended && a.value !== null && a.value.startsWith('-') && a.value !== '-') continue;
    out.push(a);
  }
  return out;
}

/**
 * The subcommand path after global options: the first `n` words that are not options, skipping the
 * value of any option listed in `valued` (`kubectl -n prod delete pod` → delete, pod).
 */
export function subcommands(args: readonly Word[], valued: readonly string[] = [], n = 3): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length && out.length < n; i++) {
    const a = args[i]!.value;
    if (a === null) {
      out.push('\u0000');
      continue;
    }
    if (a.startsWith('-')) {
      if (valued.includes(a)) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}
