/**
 * Rules for command-line tools with subcommands (`kubectl delete`, `aws s3 rm --recursive`,
 * `terraform destroy`, `npm publish`) as a table: the tool, the subcommand path, an optional
 * condition on the options, and what it means. Subcommands are found among the first operands,
 * after global options (and the values of those that take one), in any order the tool accepts.
 */
import type { Group } from '../verdict.js';
import type { Invocation, Rule } from '../invocation.js';
import { hasOption, operands } from '../options.js';

export interface VerbRule {
  tools: readonly string[];
  /** Subcommand words in order (a RegExp matches one word). */
  path: ReadonlyArray<string | RegExp>;
  /** Extra condition (options present, a value). */
  when?: (inv: Invocation) => boolean;
  group: Group;
  rule: string;
  reason: string;
  level?: 'dangerous' | 'hardline';
}

/** Global options that take a value, per tool (so `kubectl -n prod delete` finds `delete`). */
const VALUED: Record<string, readonly string[]> = {
  kubectl: [
    '-n',
    '--namespace',
    '--context',
    '--cluster',
    '--kubeconfig',
    '-l',
    '--selector',
    '-s',
    '--server',
    '--user',
    '--token',
    '-o',
    '--output',
  ],
  oc: ['-n', '--namespace', '--context', '--kubeconfig'],
  helm: ['-n', '--namespace', '--kube-context', '--kubeconfig'],
  docker: ['-H', '--host', '--context', '-c', '--config', '-l', '--log-level'],
  podman: ['--connection', '-c', '--url', '--root', '--runroot'],
  aws: ['--profile', '--region', '--output', '--endpoint-url', '--query'],
  gcloud: ['--project', '--account', '--configuration', '--format', '--region', '--zone'],
  az: ['--subscription', '-o', '--output', '--query'],
  terraform: [],
  pulumi: ['-s', '--stack', '-C', '--cwd'],
};

export function subcommandWords(inv: Invocation): string[] {
  const valued = VALUED[inv.name] ?? [];
  const out: string[] = [];
  const a = inv.args;
  for (let i = 0; i < a.length && out.length < 6; i++) {
    const v = a[i]!.value;
    if (v === null) {
      out.push('\u0000');
      continue;
    }
    if (v === '--') break;
    if (v.startsWith('-')) {
      if (valued.includes(v)) i++;
      continue;
    }
    out.push(v);
  }
  return out;
}

function matches(words: string[], path: ReadonlyArray<string | RegExp>): boolean {
  const test = (w: string | undefined, p: string | RegExp) =>
    w !== undefined && (typeof p === 'string' ? w === p : p.test(w));
  if (path.length === 0) return true;
  // The path may start at any of the first three words (values of unknown global options come first).
  for (let start = 0; start < Math.min(3, words.length); start++) {
    if (path.every((p, k) => test(words[start + k], p))) return true;
  }
  return false;
}

/** One rule function serving every tool named in the table. */
export function verbRules(table: readonly VerbRule[]): Record<string, Rule> {
  const byTool = new Map<string, VerbRule[]>();
  for (const r of table) for (const t of r.tools) byTool.set(t, [...(byTool.get(t) ?? []), r]);
  const out: Record<string, Rule> = {};
  for (const [tool, rules] of byTool) {
    out[tool] = (inv, ctx) => {
      const words = subcommandWords(inv);
      for (const r of rules) {
        if (!matches(words, r.path) || (r.when && !r.when(inv))) continue;
        ctx.add(inv, { ...(r.level ? { level: r.level } : {}), group: r.group, rule: r.rule, reason: r.reason });
        return;
      }
    };
  }
  return out;
}

export const flag =
  (short: string | undefined, ...long: string[]) =>
  (inv: Invocation) =>
    hasOption(inv.args, { ...(short ? { short } : {}), long });

export const anyOperand = (re: RegExp) => (inv: Invocation) => operands(inv.args).some((w) => re.test(w.value ?? ''));
