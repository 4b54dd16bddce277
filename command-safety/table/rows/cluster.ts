/**
 * Changing a cluster or its infrastructure state (destroy_infrastructure): Helm releases,
 * Terraform/OpenTofu applies, imports and refreshes, Pulumi updates, and GitOps and mesh tools
 * (argocd, flux, istioctl, velero, kubeadm, linkerd), where everything but a read changes the
 * cluster. Dry runs and previews are reads. Deletes are rows of infrastructure.ts.
 */
import type { PatternInput, RowInput } from '../schema.js';

/** `--dry-run`, `--dry-run=client|server` (not `=none`), `--what-if`, `--validate-only`, `--preview`. */
export const DRY_RUN = '/^--(dry-run(=(client|server|true))?|what-if|validate-only|preview)$|^-dry-run$/';

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

export const KUBECTL = ['kubectl', 'oc', 'kubecolor', 'k', 'microk8s.kubectl'];

/** What `kubectl create` makes that grants access or schedules a command (their own rows). */
const GRANTS = ['clusterrolebinding', 'rolebinding', 'clusterrole', 'role', 'serviceaccount', 'sa', 'secret'];

export const CLUSTER_ROWS: RowInput[] = [
  {
    id: 'cluster_change',
    group: 'destroy_infrastructure',
    reason: '{program} {subcommand} changes the cluster',
    when: [
      {
        program: KUBECTL,
        subcommand: [['apply', 'patch', 'replace', 'set', 'scale', 'autoscale', 'edit', 'expose', 'run', 'attach']],
        notWord: DRY_RUN,
      },
      {
        program: KUBECTL,
        subcommand: [['create'], [`/^(?!(token|cronjob|cj|${GRANTS.join('|')})$)/`]],
        notWord: DRY_RUN,
        reason: '{program} create changes the cluster',
      },
      { program: KUBECTL, subcommand: [['rollout'], ['pause', 'resume']], notWord: DRY_RUN },
      { program: KUBECTL, subcommand: [['certificate'], ['approve', 'deny']], notWord: DRY_RUN },
      {
        program: KUBECTL,
        subcommand: [['label', 'annotate']],
        flags: { short: 'Al', long: ['--all', '--all-namespaces', '--selector'] },
        notWord: DRY_RUN,
      },
      // Debugging a pod adds an ephemeral container; debugging a node runs a pod with the host's root.
      { program: KUBECTL, subcommand: [['debug'], ['/^(node|no)\\//']], notWord: DRY_RUN },
      {
        program: KUBECTL,
        subcommand: [['debug']],
        word: ['/^--(profile=(sysadmin|netadmin)|copy-to)/'],
        notWord: DRY_RUN,
      },
      {
        program: KUBECTL,
        subcommand: [['cp']],
        check: 'kubectl.copiesIntoPod',
        reason: '{program} cp writes files into a pod',
      },
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
      'kubectl apply -f k8s/prod/',
      'kubectl -n prod set image deploy/api api=x:2',
      'kubectl create deployment web --image=nginx',
      'kubectl label pods --all env=x',
      'kubectl debug node/worker-1 -it --image=busybox',
      'kubectl cp ./x.sh web-0:/tmp/x.sh',
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
      'kubectl get pods -A',
      'kubectl apply -f x.yaml --dry-run=client',
      'kubectl label pod web env=x',
      'kubectl debug web-0 -it --image=busybox',
      'kubectl cp web-0:/var/log/app.log ./app.log',
      'kubectl rollout status deploy/web',
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
  {
    id: 'cluster_grant',
    group: 'persist',
    reason: '{program} {subcommand} grants access in the cluster',
    when: [{ program: KUBECTL, subcommand: [['create'], GRANTS], notWord: DRY_RUN }],
    match: ['kubectl create clusterrolebinding x --clusterrole=cluster-admin --user=me', 'kubectl create sa bot'],
    notMatch: ['kubectl get clusterrolebindings', 'kubectl create sa bot --dry-run=client -o yaml'],
  },
  {
    id: 'cluster_cronjob',
    group: 'persist',
    reason: '{program} create cronjob schedules a command in the cluster',
    when: [{ program: KUBECTL, subcommand: [['create'], ['cronjob', 'cj']], notWord: DRY_RUN }],
    match: ["kubectl create cronjob x --image=busybox --schedule='*/5 * * * *' -- sh -c 'date'"],
    notMatch: ['kubectl get cronjobs'],
  },
  {
    id: 'kubeconfig_exec',
    group: 'persist',
    reason: 'the kubeconfig will run a program to get credentials',
    when: [
      {
        program: KUBECTL,
        subcommand: [['config'], ['set-credentials']],
        word: ['/^--(exec-command|auth-provider|exec-arg)/'],
        notWord: DRY_RUN,
      },
      { program: KUBECTL, subcommand: [['config'], ['set']], word: ['/\\.(exec|auth-provider)\\b/'], notWord: DRY_RUN },
    ],
    match: [
      'kubectl config set-credentials me --exec-command=/tmp/x',
      'kubectl config set users.me.exec.command /tmp/x',
    ],
    notMatch: ['kubectl config set-credentials me --token=abc', 'kubectl config use-context prod'],
  },
  {
    id: 'exposed_service',
    group: 'exfiltrate',
    reason: '{program} {subcommand} listens on every interface (the cluster API or a pod, open to the network)',
    when: [
      { program: KUBECTL, subcommand: [['proxy', 'port-forward']], check: 'kubectl.exposedAddress', notWord: DRY_RUN },
      {
        program: ['redis-server', 'valkey-server'],
        word: ['/^--protected-mode$/', '/^no$/'],
        reason: '{program} with protected mode off answers anyone who reaches it, without a password',
      },
      {
        program: ['jupyter', 'jupyter-lab', 'jupyter-notebook'],
        word: ['/^--ip=(0\\.0\\.0\\.0|\\*|::)$/', '/^--(ServerApp|NotebookApp)\\.(token|password)=(\'\'|"")?$/'],
        reason: '{program} on every interface without a token runs code for anyone who reaches it',
      },
      {
        program: ['dockerd', 'containerd', 'podman'],
        word: ['/^(-H|--host|--host=tcp:.*|tcp:.*)$/', '/^(--host=)?tcp:\\/\\/(?!127\\.|localhost|\\[::1\\])/'],
        notWord: '/^--tls(verify)?$/',
        reason: '{program} serves its API over TCP without TLS: root on this machine for anyone who reaches it',
      },
    ],
    match: [
      'kubectl proxy --address=0.0.0.0',
      'kubectl port-forward svc/db 5432 --address 0.0.0.0',
      'docker run -d -p 0.0.0.0:6379:6379 redis redis-server --protected-mode no',
      "jupyter lab --ip=0.0.0.0 --ServerApp.token=''",
      'sudo dockerd -H tcp://0.0.0.0:2375',
    ],
    notMatch: [
      'dockerd -H unix:///var/run/docker.sock',
      'kubectl proxy',
      'kubectl port-forward svc/db 5432 --address=127.0.0.1',
      'redis-server --port 6380',
      'jupyter lab --ip=0.0.0.0',
    ],
  },
];
