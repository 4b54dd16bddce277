import type { Word } from '../shell.js';
import { gitSubcommandAt } from './git-command.js';

/**
 * Global options that take a value, per tool, so a row's subcommand path is found after them
 * (`kubectl -n prod delete pod` → delete, pod). A row's own `valued` list replaces its tool's.
 */
export const GLOBAL_VALUED: Readonly<Record<string, readonly string[]>> = {
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
  pulumi: ['-s', '--stack', '-C', '--cwd'],
  // cobra skips the value of a flag it does not know before the subcommand: `gh -R a/b repo delete`.
  gh: ['-R', '--repo', '--hostname'],
  glab: ['-R', '--repo'],
};

/**
 * Tools whose own options all come before the subcommand (`git -C dir -c k=v push`): rows read the
 * words from the subcommand on, so a tool option never counts as one of the subcommand's.
 */
export const SUBCOMMAND_AT: Readonly<Record<string, (args: readonly Word[]) => number>> = {
  git: gitSubcommandAt,
};
