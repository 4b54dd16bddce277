/**
 * The subcommand words of a tool with subcommands (`kubectl -n prod delete pod` → delete, pod),
 * after global options and the values of those that take one (table/global-options.ts), for the
 * rules that read a path in code (cluster.ts, infrastructure.ts, publish.ts).
 */
import type { Invocation } from '../invocation.js';
import { GLOBAL_VALUED } from '../table/global-options.js';

export function subcommandWords(inv: Invocation): string[] {
  const valued = GLOBAL_VALUED[inv.name] ?? [];
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
