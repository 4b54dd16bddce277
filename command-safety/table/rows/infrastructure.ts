/**
 * Destroying or disrupting infrastructure (destroy_infrastructure), the verbs of cluster, IaC and
 * container tools: cluster deletes and drains, Helm uninstalls, Terraform/OpenTofu/Pulumi/CDK
 * destroys and state surgery, container and volume removal and pruning. Cloud CLIs' generic delete
 * verbs stay in rules/infrastructure.ts: they read every word of a path.
 */
import type { RowInput } from '../schema.js';

export const INFRASTRUCTURE_ROWS: RowInput[] = [
  {
    id: 'container_delete',
    group: 'destroy_infrastructure',
    reason: 'resets the container engine (everything removed)',
    when: [
      { program: ['docker', 'podman', 'nerdctl'], subcommand: [['system'], ['reset']], skip: 2 },
      { program: ['buildah'], subcommand: [['/^(rm|rmi|prune)$/']], skip: 2, reason: 'removes containers or images' },
      {
        program: ['crictl', 'ctr'],
        subcommand: [['/^(rm|rmi|rmp|stop|stopp)$/']],
        skip: 2,
        reason: 'removes containers, pods or images',
      },
      {
        program: ['docker', 'podman', 'nerdctl'],
        subcommand: [['/^(rmi|kill)$/']],
        skip: 2,
        reason: 'removes or kills containers or images',
      },
      // `docker rm app-test` removes a stopped container by name (routine cleanup); forcing a
      // running one down, its volumes, all of them, or containers only known at run time still ask.
      {
        program: ['docker', 'podman', 'nerdctl'],
        subcommand: [['rm']],
        skip: 2,
        flags: { short: 'fva', long: ['--force', '--volumes', '--all'] },
        reason: 'removes running containers, their volumes or every container',
      },
      {
        program: ['docker', 'podman', 'nerdctl'],
        subcommand: [['rm']],
        skip: 2,
        operand: ['unknown'],
        reason: 'removes containers only known at run time',
      },
      {
        program: ['docker', 'podman', 'nerdctl'],
        subcommand: [['/^(system|volume|container|network)$/'], ['/^(prune|rm|remove)$/']],
        skip: 2,
        reason: 'prunes or removes containers, images, volumes or networks',
      },
      // Pruning dangling images or the dangling build cache loses nothing a build cannot make again.
      {
        program: ['docker', 'podman', 'nerdctl'],
        subcommand: [['/^(image|builder|buildx)$/'], ['/^(rm|remove)$/']],
        skip: 2,
        reason: 'removes images',
      },
      {
        program: ['docker', 'podman', 'nerdctl'],
        subcommand: [['/^(image|builder|buildx)$/'], ['prune']],
        skip: 2,
        flags: { short: 'a', long: ['--all'] },
        reason: 'removes every unused image or the whole build cache',
      },
      {
        program: ['docker', 'podman', 'nerdctl'],
        subcommand: [['/^(stack|service|secret|config|node|swarm)$/'], ['/^(rm|remove|leave)$/']],
        skip: 2,
        reason: 'removes swarm services or leaves the swarm',
      },
      {
        program: ['docker', 'podman', 'nerdctl'],
        subcommand: [['compose'], ['/^(down|rm)$/']],
        skip: 2,
        word: ['/^(-v|--volumes|--rmi(=.*)?|-f|--force)$/'],
        reason: 'docker compose down removes volumes or images',
      },
      {
        program: ['docker-compose', 'podman-compose'],
        subcommand: [['/^(down|rm)$/']],
        skip: 2,
        word: ['/^(-v|--volumes|--rmi(=.*)?|-f|--force)$/'],
        reason: 'compose down removes volumes or images',
      },
      { program: ['docker', 'podman'], subcommand: [['volume'], ['rm']], skip: 2, reason: 'removes volumes' },
    ],
    match: [
      'docker rm -f x',
      'docker rm $(docker ps -aq)',
      'docker system prune -a',
      'docker compose down -v',
      'docker volume rm data',
    ],
    notMatch: [
      'docker ps',
      'docker rm app-test',
      'docker compose down',
      'docker image prune -f',
      'docker builder prune -f',
    ],
  },
  {
    id: 'cluster_delete',
    group: 'destroy_infrastructure',
    reason: 'deletes, drains or cordons cluster resources',
    when: [
      {
        program: ['kubectl', 'oc', 'kubecolor', 'microk8s.kubectl', 'k'],
        subcommand: [['/^(delete|drain|cordon|taint|uncordon)$/']],
        skip: 2,
      },
      {
        program: ['kubectl', 'oc', 'kubecolor', 'k'],
        subcommand: [['replace']],
        skip: 2,
        flags: { long: ['--force'] },
        reason: 'kubectl replace --force deletes and recreates resources',
      },
      {
        program: ['kubectl', 'oc', 'kubecolor', 'k'],
        subcommand: [['apply']],
        skip: 2,
        flags: { long: ['--prune', '--force'] },
        reason: 'kubectl apply --prune/--force deletes resources',
      },
      { program: ['nomad'], subcommand: [['job'], ['stop']], word: ['/^--?purge$/'], reason: 'nomad job stop -purge' },
      { program: ['nomad'], subcommand: [['stop']], word: ['/^--?purge$/'], reason: 'nomad job stop -purge' },
      { program: ['nomad'], subcommand: [['system'], ['gc']], reason: 'nomad system gc' },
    ],
    match: [
      'kubectl delete pod x',
      'kubectl -n prod drain node1',
      'kubectl replace --force -f x.yaml',
      'nomad job stop -purge web',
      'nomad system gc',
    ],
    notMatch: ['kubectl get pods', 'kubectl replace -f x.yaml', 'nomad job stop web'],
  },
  {
    id: 'cluster_scale_zero',
    group: 'destroy_infrastructure',
    reason: 'scales a workload to zero',
    when: [
      { program: ['kubectl', 'oc', 'kubecolor', 'k'], subcommand: [['scale']], skip: 2, check: 'kubectl.replicasZero' },
    ],
    match: ['kubectl scale deploy/x --replicas=0', 'kubectl scale deploy/x --replicas 0'],
    notMatch: ['kubectl scale deploy/x --replicas=3'],
  },
  {
    id: 'cluster_rollout',
    group: 'destroy_infrastructure',
    reason: 'rolls back or restarts workloads',
    when: [
      { program: ['kubectl', 'oc', 'kubecolor', 'k'], subcommand: [['rollout'], ['/^(undo|restart)$/']], skip: 2 },
    ],
    match: ['kubectl rollout undo deploy/x'],
    notMatch: ['kubectl rollout status deploy/x'],
  },
  {
    id: 'helm_uninstall',
    group: 'destroy_infrastructure',
    reason: 'removes or rolls back a Helm release',
    when: [{ program: ['helm'], subcommand: [['/^(uninstall|delete|del|un|rollback)$/']], skip: 2 }],
    match: ['helm uninstall web'],
    notMatch: ['helm list'],
  },
  {
    id: 'terraform_destroy',
    group: 'destroy_infrastructure',
    reason: 'destroys the infrastructure Terraform manages',
    when: [
      { program: ['terraform', 'tofu', 'opentofu', 'terragrunt'], subcommand: [['destroy']], skip: 2 },
      {
        program: ['terraform', 'tofu', 'opentofu', 'terragrunt'],
        subcommand: [['/^(apply|plan)$/']],
        skip: 2,
        word: ['/^--?destroy(=true)?$/'],
        reason: 'terraform apply -destroy',
      },
    ],
    match: ['terraform destroy', 'terraform apply -destroy'],
    notMatch: ['terraform plan'],
  },
  {
    id: 'terraform_apply_unreviewed',
    group: 'destroy_infrastructure',
    reason: 'applies infrastructure changes without review (-auto-approve)',
    when: [
      {
        program: ['terraform', 'tofu', 'opentofu', 'terragrunt'],
        subcommand: [['apply']],
        skip: 2,
        word: ['/^-?-auto-approve(=true)?$/'],
      },
    ],
    match: ['terraform apply -auto-approve'],
    notMatch: ['terraform apply'],
  },
  {
    id: 'terraform_state',
    group: 'destroy_infrastructure',
    reason: 'changes Terraform state directly',
    when: [
      {
        program: ['terraform', 'tofu', 'opentofu', 'terragrunt'],
        subcommand: [['state'], ['/^(rm|push|replace-provider)$/']],
        skip: 2,
      },
      {
        program: ['terraform', 'tofu', 'opentofu', 'terragrunt'],
        subcommand: [['/^(taint|force-unlock)$/']],
        skip: 2,
        reason: 'forces resource replacement or breaks a state lock',
      },
      {
        program: ['terraform', 'tofu', 'opentofu', 'terragrunt'],
        subcommand: [['workspace'], ['delete']],
        skip: 2,
        reason: 'deletes a Terraform workspace',
      },
    ],
    match: ['terraform state rm aws_instance.x', 'terraform force-unlock 123'],
    notMatch: ['terraform state list'],
  },
  {
    id: 'pulumi_destroy',
    group: 'destroy_infrastructure',
    reason: 'destroys the stack’s resources',
    when: [
      { program: ['pulumi'], subcommand: [['destroy']], skip: 2 },
      { program: ['pulumi'], subcommand: [['stack'], ['rm']], skip: 2, reason: 'removes a Pulumi stack' },
      {
        program: ['pulumi'],
        subcommand: [['state'], ['delete']],
        skip: 2,
        reason: 'deletes resources from Pulumi state',
      },
    ],
    match: ['pulumi destroy', 'pulumi stack rm dev'],
    notMatch: ['pulumi preview'],
  },
  {
    id: 'cdk_destroy',
    group: 'destroy_infrastructure',
    reason: 'destroys the CDK stacks',
    when: [
      { program: ['cdk', 'cdktf'], subcommand: [['destroy']], skip: 2 },
      { program: ['serverless', 'sls'], subcommand: [['remove']], skip: 2, reason: 'removes the deployed service' },
      { program: ['sam'], subcommand: [['delete']], skip: 2, reason: 'deletes the SAM stack' },
    ],
    match: ['cdk destroy', 'sls remove', 'sam delete'],
    notMatch: ['cdk synth'],
  },
];
