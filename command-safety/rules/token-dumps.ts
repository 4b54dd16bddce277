/**
 * Password managers, keychains and CLIs that print a stored secret or token (`security
 * find-generic-password`, `gcloud auth print-access-token`, `kubectl get secret -o yaml`, …):
 * reading credentials (group exfiltrate).
 */
import type { Rule } from '../invocation.js';
import { hasOption } from '../options.js';

const X = 'exfiltrate' as const;

/** Password managers, keychains and CLIs whose output is a token. */
const TOKEN_DUMPS: Array<[RegExp, RegExp]> = [
  [/^security$/, /^(find-generic-password|find-internet-password|dump-keychain|export)$/],
  [/^gpg2?$/, /^--export-secret-(sub)?keys$/],
  [/^secret-tool$/, /^(lookup|search)$/],
  [/^kubectl$/, /^--raw$/],
  [
    /^aws$/,
    /^(export-credentials|get-session-token|get-login-password|get-secret-value|get-parameter|get-parameters)$/,
  ],
  [/^gcloud$/, /^(print-access-token|print-identity-token|print-refresh-token)$/],
  [/^az$/, /^get-access-token$/],
  [/^(pass|gopass)$/, /^(show|cat)$/],
  [/^op$/, /^(read|item)$/],
  [/^vault$/, /^(read|kv|token)$/],
  [/^doppler$/, /^(secrets|run)$/],
  [/^heroku$/, /^auth:token$/],
  [/^(npm|pnpm)$/, /^token$/],
  [/^docker-credential-[\w-]+$/, /^get$/],
  [/^keyctl$/, /^(print|read|pipe)$/],
  [/^ps$/, /^(e|ew|eww|auxe|auxeww|axe|-E|-?[a-z]*e[a-z]*ww?)$/],
];

export const tokenDump: Rule = (inv, ctx) => {
  for (const [tool, arg] of TOKEN_DUMPS) {
    if (!tool.test(inv.name)) continue;
    const hit = inv.args.find((w) => arg.test(w.value ?? ''));
    if (hit)
      return ctx.add(inv, {
        group: X,
        rule: 'credential_read',
        reason: `prints secrets (${inv.name} ${hit.value})`,
        at: [inv.word, hit],
      });
  }
  if (
    inv.name === 'kubectl' &&
    inv.args.some((w) => /^secrets?$/.test(w.value ?? '')) &&
    hasOption(inv.args, { short: 'o', long: ['--output'] })
  )
    return ctx.add(inv, { group: X, rule: 'credential_read', reason: 'prints Kubernetes secrets' });
  if (
    inv.name === 'aws' &&
    inv.args.some((w) => w.value === 'configure') &&
    inv.args.some((w) => w.value === 'get') &&
    inv.args.some((w) => /secret|key|token/i.test(w.value ?? ''))
  )
    ctx.add(inv, { group: X, rule: 'credential_read', reason: 'prints AWS credentials' });
};
