/**
 * Changing a cluster or its infrastructure state (destroy_infrastructure): Helm releases,
 * Terraform/OpenTofu applies, imports and refreshes, Pulumi updates, and GitOps and mesh tools
 * (argocd, flux, istioctl, velero, kubeadm, linkerd), where everything but a read changes the
 * cluster. Dry runs and previews are reads. Deletes are rows of infrastructure.ts.
 */
import type { PatternInput, RowInput } from '../schema.js';

/** `--dry-run`, `--dry-run=client|server` (not `=none`), `--what-if`, `--validate-only`, `--preview`. */
const DRY_RUN = '/^--(dry-run(=(client|server|true))?|what-if|validate-only|preview)$|^-dry-run$/';

/** Verbs that delete or stop (infrastructure.ts reports them): the change rows leave them alone. */
const DELETE_VERB =
  '(^|[-_:])(delete|deletion|destroy|terminate|remove|purge|rm|rb|drop|deregister|release|detach|disassociate|revoke|wipe|erase|reset|stop|disable|uninstall|kill|evict|cancel|abandon|unregister|undefine|down|shutdown|decommission|retire|deallocate|seal|step-down)([-_:]|$)';

/** Verbs that only read, whichever GitOps or mesh tool. */
const READS =
  'list|ls|get|describe|diff|history|manifests|logs|resources|show|status|wait|version|check|tree|precheck|generate|print|view|images|help';

/** Nouns that come before the verb (`argocd app sync`, `velero backup create`). */
const NOUNS =
  'app|appset|proj|repo|cluster|account|cert|gpg|backup|restore|schedule|backup-location|snapshot-location|admin|token|certs|config|alpha';
/** Nouns whose verbs mostly print (`istioctl manifest generate`, `istioctl x precheck`): only these change. */
const PRINTING_NOUNS = ['manifest', 'x', 'experimental'];

/** A verb word: present, not a read (nor one of `also`), not a delete. */
const changeVerb = (also = '') => `/^(?!(${READS}${also ? `|${also}` : ''})$)(?!.*${DELETE_VERB})(?=.)/`;

/** A GitOps or mesh tool: its own top-level reads, then `noun verb` or a verb first. */
function clusterTool(program: string, reads: string): PatternInput[] {
  return [
    {
      program: [program],
      subcommand: [[`/^(${NOUNS})$/`], [changeVerb()]],
      notWord: DRY_RUN,
      reason: '{program} {subcommand} changes the cluster',
    },
    {
      program: [program],
      subcommand: [PRINTING_NOUNS, ['apply', 'install', 'upgrade', 'set', 'revision', 'prune']],
      notWord: DRY_RUN,
      reason: '{program} {subcommand} changes the cluster',
    },
    {
      program: [program],
      subcommand: [[changeVerb(`${NOUNS}|${PRINTING_NOUNS.join('|')}|${reads}`)]],
      notWord: DRY_RUN,
    },
  ];
}

const TERRAFORM = ['terraform', 'tofu', 'opentofu', 'terragrunt'];

export const CLUSTER_ROWS: RowInput[] = [
  {
    id: 'cluster_change',
    group: 'destroy_infrastructure',
    reason: '{program} {subcommand} changes the cluster',
    when: [
      {
        program: ['helm'],
        subcommand: [['install', 'upgrade', 'test']],
        notWord: DRY_RUN,
        reason: 'helm {subcommand} changes releases in the cluster',
      },
      {
        program: ['pulumi'],
        subcommand: [['up', 'update', 'import', 'refresh', 'cancel', 'watch']],
        reason: "pulumi {subcommand} changes the stack's resources",
      },
      {
        program: ['pulumi'],
        subcommand: [['state'], ['unprotect', 'edit', 'move', 'rename']],
        reason: "pulumi {subcommand} changes the stack's state",
      },
      ...clusterTool(
        'argocd',
        'list|get|diff|history|manifests|logs|resources|version|login|logout|context|completion|help|wait|account|cert|gpg|proj|repo|cluster|app|appset|admin',
      ),
      ...clusterTool('flux', 'get|logs|check|tree|stats|diff|export|events|version|trace|completion|help|build|pull'),
      ...clusterTool(
        'istioctl',
        'analyze|proxy-status|ps|proxy-config|pc|version|verify-install|bug-report|dashboard|dash|x|experimental|kube-inject|manifest|profile|validate|completion|help|admin|authz|describe|precheck|waypoint|ztunnel-config',
      ),
      ...clusterTool('velero', 'get|describe|logs|version|completion|help|plugin|client|debug'),
      ...clusterTool('kubeadm', 'version|config|certs|token|completion|help|alpha'),
      ...clusterTool(
        'linkerd',
        'check|version|viz|diagnostics|install|upgrade|uninstall|help|completion|identity|inject|uninject|authz|profile|multicluster|jaeger',
      ),
    ],
    match: [
      'helm upgrade --install web ./chart -n prod',
      'pulumi up --yes',
      'pulumi state unprotect urn',
      'argocd app sync web',
      'flux reconcile kustomization apps',
      'velero restore create --from-backup nightly',
      'kubeadm init',
      'kubeadm token create',
      'istioctl manifest apply',
    ],
    notMatch: [
      'helm list -A',
      'helm upgrade web ./chart --dry-run',
      'pulumi preview',
      'argocd app list',
      'argocd app delete web',
      'flux get kustomizations',
      'velero backup describe nightly',
      'istioctl analyze',
      'istioctl manifest generate',
      'istioctl x precheck',
      'kubeadm reset',
      'linkerd check',
    ],
  },
  {
    id: 'terraform_apply',
    group: 'destroy_infrastructure',
    reason: '{program} {subcommand} changes real infrastructure',
    when: [
      {
        program: TERRAFORM,
        subcommand: [['apply', 'apply-all', 'import', 'refresh', 'untaint', 'destroy-all']],
        skip: 2,
        notWord: '/^--?destroy(=true)?$/',
      },
    ],
    match: [
      'terraform apply',
      'tofu import aws_s3_bucket.b b',
      'terragrunt run-all apply',
      'terraform -chdir=infra refresh',
    ],
    notMatch: ['terraform plan', 'terraform apply -destroy', 'terraform state list'],
  },
];
