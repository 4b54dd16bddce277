/**
 * Destroying or disrupting infrastructure (group destroy_infrastructure): cluster deletes and
 * drains, Helm uninstalls, Terraform/OpenTofu/Pulumi/CDK destroys, cloud CLIs' delete, terminate
 * and stop verbs, container and volume removal and pruning, object-store wipes.
 */
import type { Invocation, Rule } from '../invocation.js';
import { placeOf } from '../paths.js';
import { hasOption, operands, optionValue } from '../options.js';
import { PUBLISH_RULES } from './publish.js';
import { scalesToZero } from './unknown-tools.js';
import { subcommandWords } from './verbs.js';
import { RULE_TABLE } from '../table/index.js';

const I = 'destroy_infrastructure' as const;

/** Verbs of cloud CLIs that delete, stop or cut something off. */
export const CLOUD_VERB =
  /(^|[-_:])(delete|deletion|destroy|terminate|remove|purge|rm|rb|drop|deregister|release|detach|disassociate|revoke|wipe|erase|reset|stop|disable|uninstall|kill|evict|cancel|abandon|unregister|undefine|down|shutdown|decommission|retire|deallocate|seal|step-down)([-_:]|$)/;

const CLOUD_CLIS = [
  'aws',
  'gcloud',
  'gsutil',
  'az',
  'doctl',
  'hcloud',
  'linode-cli',
  'openstack',
  'oci',
  'ibmcloud',
  'scw',
  'exo',
  'vultr-cli',
  'upctl',
  'aliyun',
  'tccli',
  'yc',
  'civo',
  'ovhcloud',
  'firebase',
  'supabase',
  'railway',
  'render',
  'koyeb',
  'eksctl',
  'minikube',
  'kind',
  'k3d',
  'limactl',
  'colima',
  'multipass',
  'lxc',
  'incus',
  'vagrant',
  'virsh',
  'nomad',
  'consul',
  'vault',
  'rclone',
  's3cmd',
  'mc',
  'azcopy',
  'b2',
  'wrangler',
  'vercel',
  'netlify',
  'heroku',
  'flyctl',
  'fly',
  'kamal',
  'doppler',
  'copilot',
  'influx',
];

/** Throwaway Kubernetes clusters on this machine: deleting one is how they are used. */
const LOCAL_CLUSTERS = /^(kind|k3d|minikube)$/;

const cloud: Rule = (inv, ctx) => {
  // `aws s3 sync … --delete --dryrun`, `rclone sync --dry-run`: a rehearsal changes nothing.
  if (LOCAL_CLUSTERS.test(inv.name) || hasOption(inv.args, { long: ['--dryrun', '--dry-run'] })) return;
  const words = subcommandWords(inv).slice(0, 4);
  const verb = words.find((w) => CLOUD_VERB.test(w));
  if (verb)
    return ctx.add(inv, {
      group: I,
      rule: 'cloud_delete',
      reason: `${inv.name} ${words.slice(0, words.indexOf(verb) + 1).join(' ')}`,
    });
  if (
    scalesToZero(inv.args) ||
    inv.args.some(
      (w, i) =>
        /^--(desired-capacity|desired-count|min-size|max-size|replicas|instance-count|node-count|num-nodes)$/.test(
          w.value ?? '',
        ) && inv.args[i + 1]?.value === '0',
    )
  )
    return ctx.add(inv, { group: I, rule: 'scale_to_zero', reason: `${inv.name} scales a service to zero` });
  if (inv.name === 'aws' && words[0] === 's3' && words[1] === 'sync' && hasOption(inv.args, { long: ['--delete'] }))
    return ctx.add(inv, { group: I, rule: 'cloud_delete', reason: 'aws s3 sync --delete removes objects' });
  if (inv.name === 'rclone' && ['sync', 'purge', 'cleanup', 'dedupe'].includes(words[0] ?? '')) {
    // A local destination that is /, a system folder or a home is emptied to match the source.
    const dest = operands(inv.args).slice(1).pop();
    const place = dest && !/^[\w-]*:/.test(dest.value ?? '') ? placeOf(dest.value, inv.cmd.cwd, dest.glob) : undefined;
    if (place === 'root' || place === 'system' || place === 'home')
      return ctx.add(inv, {
        level: 'hardline',
        group: 'destroy_files',
        rule: 'delete_root',
        reason: `rclone ${words[0]} deletes what /, a system folder or a home has beyond the source`,
        at: [inv.word, dest],
      });
    return ctx.add(inv, { group: I, rule: 'cloud_delete', reason: `rclone ${words[0]} deletes at the destination` });
  }
  // `gsutil cp dist/* gs://www`, `gcloud storage cp x gs://b`: writing into a bucket (like `aws s3 cp`).
  const ops = operands(inv.args).map((w) => w.value ?? '');
  if (
    (inv.name === 'gsutil' || (inv.name === 'gcloud' && words[0] === 'storage')) &&
    ops.some((o) => /^(cp|rsync|mv)$/.test(o)) &&
    /^gs:\/\//.test(ops[ops.length - 1] ?? '')
  )
    return ctx.add(inv, { group: 'publish', rule: 'cloud_upload', reason: `${inv.name} writes into a bucket` });
  // `render deploy`, `koyeb … deploy`, `b2 upload-file`: a cloud CLI's publishing verbs.
  const ship = words.find((w) => /(^|[-_:])(deploy|publish|upload|push|promote)([-_:]|$)/.test(w));
  if (ship && !RULE_TABLE.namesIn(inv.name, 'publish') && !Object.hasOwn(PUBLISH_RULES, inv.name))
    return ctx.add(inv, { group: 'publish', rule: 'deploy', reason: `${inv.name} ${ship} publishes or deploys` });
};

/** `kubectl exec pod -- cmd`, `docker exec box cmd`: the command runs there, and is judged like here. */
export const execInto: Rule = (inv, ctx) => {
  const words = subcommandWords(inv);
  const at =
    words[0] === 'exec'
      ? 0
      : words[0] === 'compose' && words[1] === 'exec'
        ? 1
        : words[0] === 'container' && words[1] === 'exec'
          ? 1
          : -1;
  if (at < 0) return;
  const a = inv.args;
  const dashes = a.findIndex((w) => w.value === '--');
  let cmd: typeof a;
  if (dashes >= 0) cmd = a.slice(dashes + 1);
  else {
    // docker exec [options] CONTAINER CMD…: skip the subcommand words, options (and their values), the target.
    const execIdx = a.findIndex((w) => w.value === 'exec');
    let j = execIdx + 1;
    while (j < a.length && a[j]!.value?.startsWith('-'))
      j +=
        /^-(e|u|w|--env|--user|--workdir|--env-file|-c|--container|-n|--namespace)$/.test(a[j]!.value ?? '') ||
        /^--(env|user|workdir|container|namespace)$/.test(a[j]!.value ?? '')
          ? 2
          : 1;
    cmd = a.slice(j + 1);
  }
  if (cmd.length) ctx.nested(inv, cmd, { elsewhere: true });
};

/** `ansible hosts -m shell -a 'cmd'`: a command for every host of an inventory. */
const ansible: Rule = (inv, ctx) => {
  const module = optionValue(inv.args, 'm', ['--module-name']);
  const args = optionValue(inv.args, 'a', ['--args']);
  if (!module || !/^(ansible\.builtin\.)?(shell|command|raw|script)$/.test(module)) return;
  if (args === null)
    return ctx.add(inv, {
      group: 'indirection',
      rule: 'dynamic_script',
      reason: 'ansible runs a command only known at run time',
    });
  if (args !== undefined) ctx.script(inv, { ...inv.word, value: args }, `ansible -m ${module} on every host`);
};

/** A subcommand only known at run time (`docker $(echo system) prune`): cannot tell what it does. */
export const dynamicSubcommand: Rule = (inv, ctx) => {
  const first = inv.args.find((w) => w.value === null || !w.value.startsWith('-'));
  if (first && first.value === null && /\$\(|`|^\$/.test(first.raw))
    ctx.add(inv, {
      group: 'indirection',
      rule: 'dynamic_subcommand',
      reason: `${inv.name} runs a subcommand only known at run time`,
      at: [inv.word, first],
    });
};

export const INFRASTRUCTURE_RULES: Record<string, Rule> = {
  ansible,
  ...Object.fromEntries(CLOUD_CLIS.map((n) => [n, cloud])),
  // `nomad job stop -purge`, `nomad system gc`: rows (table/rows/infrastructure.ts cluster_delete).
  nomad: cloud,
};

/** Privileged containers and host mounts are a way out of any sandbox (group system). */
export function privilegedContainer(inv: Invocation): string | undefined {
  if (!['docker', 'podman', 'nerdctl'].includes(inv.name)) return undefined;
  const words = subcommandWords(inv);
  if (
    !['run', 'create', 'exec'].includes(words[0] ?? '') &&
    !(words[0] === 'container' && ['run', 'create'].includes(words[1] ?? ''))
  )
    return undefined;
  const a = inv.args.map((w) => w.value ?? '');
  if (a.some((v) => /^--privileged(=true)?$/.test(v))) return 'a privileged container';
  if (
    a.some(
      (v, i) => /^--(pid|net|network|ipc|uts|userns)(=host)?$/.test(v) && (v.endsWith('=host') || a[i + 1] === 'host'),
    )
  )
    return 'a container sharing the host’s namespaces';
  if (a.some((v) => /^--cap-add(=|$)/.test(v))) return 'a container with added capabilities';
  const mounts = a.flatMap((v, i) =>
    /^(-v|--volume|--mount)$/.test(v)
      ? [a[i + 1] ?? '']
      : /^(-v|--volume|--mount)=/.test(v)
        ? [v.split('=').slice(1).join('=')]
        : [],
  );
  if (
    mounts.some((m) =>
      /^\/(:|$)|source=\/(,|$)|^\/var\/run\/docker\.sock|^\/(etc|root|home|proc|sys|dev|boot|usr)(:|\/|$)/.test(m),
    )
  )
    return 'a container with the host’s root, system folders or Docker socket mounted';
  void operands;
  return undefined;
}
