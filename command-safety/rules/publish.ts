/**
 * Publishing that a row cannot say (the rest is rows in table/rows/publish.ts): asking the Go
 * module proxy to keep a version (the proxy is named by an environment variable).
 */
import type { Rule } from '../invocation.js';
import { subcommandWords } from './verbs.js';

const P = 'publish' as const;

/**
 * `GOPROXY=proxy.golang.org go list -m example.com/x@v1.4.0`: the documented way to publish a Go
 * module version (the proxy fetches and keeps it for good).
 */
export const goPublish: Rule = (inv, ctx) => {
  const a = inv.args.map((w) => w.value ?? '');
  if (a[0] !== 'list' || !a.includes('-m') || !a.some((v) => /^[\w.-]+\.[a-z]{2,}\/\S+@v\d/.test(v))) return;
  const proxy = inv.env.find((e) => e.name === 'GOPROXY')?.value.value ?? '';
  if (/proxy\.golang\.org/.test(proxy))
    ctx.add(inv, {
      group: P,
      rule: 'package_publish',
      reason: 'asks the Go module proxy to fetch and keep a version (publishes it)',
    });
};

export { subcommandWords };

export const PUBLISH_RULES: Record<string, Rule> = { go: goPublish };
