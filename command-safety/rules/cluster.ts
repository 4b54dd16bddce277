/**
 * Clusters and clouds (groups destroy_infrastructure, persist, exfiltrate): what a cluster or
 * cloud CLI does to real infrastructure. Reads stay everyday — get, describe, list, logs, plan,
 * diff, template, lint, `aws … describe-*`/`list-*`/`get-*`, `s3 ls`, `s3 cp` to a local file —
 * and so do dry runs. Changes are asked about: apply, patch, set, scale, create, upgrade, install,
 * deploy, and AWS operations that are not reads (its operation names are verb-first, so anything
 * but a read is a change). Grants and access keys persist access (`aws iam create-access-key`,
 * `kubectl create clusterrolebinding`, `az role assignment create`), and secret reads exfiltrate
 * (`ssm … --with-decryption`, `gcloud secrets versions access`, `az keyvault secret show`).
 * Secret reads and grants of gcloud and az are rows (table/rows/exposure.ts, cloud.ts); deletes are
 * in infrastructure.ts; kubectl, Helm, Terraform, Pulumi and the GitOps and mesh tools
 * are rows (table/rows/cluster.ts), save the command a kubectl workload runs; so is the AWS CLI
 * (table/rows/cloud.ts).
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { optionValue } from '../options.js';
import { CLOUD_VERB } from './infrastructure.js';
import { subcommandWords } from './verbs.js';

const I = 'destroy_infrastructure' as const;

const say = (
  ctx: RuleContext,
  inv: Invocation,
  group: 'destroy_infrastructure' | 'persist' | 'exfiltrate' | 'publish',
  rule: string,
  reason: string,
) => ctx.add(inv, { group, rule, reason });

/** `--dry-run`, `--dry-run=client|server` (not `=none`), `--what-if`, `-auto-approve=false` never changes anything. */
const dryRun = (inv: Invocation) =>
  inv.args.some(
    (w) =>
      /^--(dry-run(=(client|server|true))?|what-if|validate-only|preview)$/.test(w.value ?? '') ||
      /^-?-dry-run$/.test(w.value ?? ''),
  );

// ---------------------------------------------------------------------------------------------
// Kubernetes

/**
 * The command a workload runs (`kubectl run x --image=y -- cmd`, `kubectl create job|cronjob|deployment
 * … -- cmd`), read as a command run elsewhere; what kubectl itself changes is in table/rows/cluster.ts.
 */
const kubectl: Rule = (inv, ctx) => {
  const [verb, what] = subcommandWords(inv);
  if (!verb || dryRun(inv)) return;
  if (verb !== 'run' && !(verb === 'create' && /^(cronjob|cj|job|deployment|deploy)$/.test(what ?? ''))) return;
  const dashes = inv.args.findIndex((x) => x.value === '--');
  if (dashes >= 0 && inv.args.length > dashes + 1) ctx.nested(inv, inv.args.slice(dashes + 1), { elsewhere: true });
};

// ---------------------------------------------------------------------------------------------
// Google Cloud and Azure

/** Verbs of gcloud and az that change something (deletes: infrastructure.ts). */
const CHANGE =
  /^(create|update|patch|set|set-\S+|add|add-\S+|remove-\S+|deploy|up|resize|start|restart|reset|reboot|enable|disable|import|attach|detach|move|undelete|promote|failover|restore|cancel|submit|call|invoke|run-command|redeploy|reimage|scale|swap|upgrade|rotate|renew|regenerate\S*|assign|unassign|apply|sync|replace|deallocate|generalize|capture|convert|migrate|publish|execute|trigger|connect|grant\S*|share|lock|unlock|suspend|resume|tag|label|annotate|activate|deactivate|abort|switch|rollback)$/;

/** Groups that only configure the CLI itself, or fetch credentials for a local tool. */
const LOCAL_GROUPS: Record<string, RegExp> = {
  gcloud:
    /^(config|auth|components|init|info|version|help|topic|emulators|alpha config|beta config|container clusters get-credentials|source repos clone|compute ssh|compute scp|compute config-ssh|cloud-shell ssh)\b/,
  az: /^(account|login|logout|config|extension|version|find|feedback|upgrade|interactive|init|cloud set|aks get-credentials|aks install-cli|acr login|bicep (build|install|upgrade|version)|ssh vm)\b/,
};

const gcloudAz: Rule = (inv, ctx) => {
  const w = subcommandWords(inv).filter((x) => !/^(alpha|beta|preview)$/.test(x));
  const path = w.join(' ');
  if (!w.length || dryRun(inv)) return;
  // Secret reads and grants are rows (table/rows/exposure.ts credential_read, cloud.ts cloud_grant).
  if (LOCAL_GROUPS[inv.name]!.test(path)) {
    // `gcloud compute ssh vm --command '…'`: a command on the machine.
    const cmd = optionValue(inv.args, undefined, ['--command']);
    if (cmd !== undefined)
      ctx.script(inv, { ...inv.word, value: cmd }, `${inv.name} ssh --command`, { elsewhere: true });
    return;
  }
  // The verb follows the groups: the first word (after the first) that is a change verb.
  const verb = w.slice(1, 5).find((x) => CHANGE.test(x));
  if (!verb || w.slice(1, 5).some((x) => CLOUD_VERB.test(x))) return;
  if (/^(deploy|up)$/.test(verb) && /^(app|run|functions|webapp|functionapp)$/.test(w[0] ?? '')) return; // publish.ts
  say(
    ctx,
    inv,
    I,
    'cloud_change',
    `${inv.name} ${w.slice(0, w.indexOf(verb) + 1).join(' ')} changes real infrastructure`,
  );
};

// ---------------------------------------------------------------------------------------------
// Platforms

/** `heroku run …`, `fly ssh console --command …`: a command on the app's machine (config changes are rows). */
const paas: Rule = (inv, ctx) => {
  const [verb, ...rest] = subcommandWords(inv);
  if (inv.name === 'heroku' && (verb === 'run' || verb === 'run:detached')) {
    const cmd = inv.args
      .slice(inv.args.findIndex((x) => x.value === verb) + 1)
      .filter((x) => !/^-/.test(x.value ?? ''));
    if (cmd.length) ctx.nested(inv, cmd, { elsewhere: true });
  }
  if (inv.name !== 'heroku' && verb === 'ssh' && rest[0] === 'console') {
    const cmd = optionValue(inv.args, 'C', ['--command']);
    if (cmd !== undefined)
      ctx.script(inv, { ...inv.word, value: cmd }, 'fly ssh console --command', { elsewhere: true });
  }
};

export const CLUSTER_RULES: Record<string, Rule> = {
  kubectl,
  oc: kubectl,
  kubecolor: kubectl,
  k: kubectl,
  'microk8s.kubectl': kubectl,
  gcloud: gcloudAz,
  az: gcloudAz,
  heroku: paas,
  fly: paas,
  flyctl: paas,
};
