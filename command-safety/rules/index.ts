/**
 * Every rule by command name, plus the rules every command goes through and the findings of
 * runners themselves (`sudo -S`, a root shell, `nsenter`). Several groups may know one command
 * (`docker push` publishes, `docker rm` destroys, `docker run --privileged` escapes), so a name
 * gets all of its rules.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { hasOption } from '../options.js';
import { unwrapRunner } from '../runners.js';
import { CODE_RULES, codeRuleFor, runsWrittenFile, runsWrittenProgram } from './code.js';
import { noteClone, noteDownload, noteUnpacked, runsDownloaded } from './downloads.js';
import { DATA_RULES, httpDelete } from './data.js';
import { EXECUTOR_RULES } from './executors.js';
import { EXFILTRATE_GENERIC, EXFILTRATE_RULES } from './exfiltrate.js';
import { EXPOSURE_RULES, readsSecretLink } from './exposure.js';
import { FILE_RULES } from './files.js';
import { GIT_RULES } from './git.js';
import { INFRASTRUCTURE_RULES, dynamicSubcommand, execInto } from './infrastructure.js';
import { PERSIST_RULES } from './persist.js';
import { PUBLISH_RULES } from './publish.js';
import { CLUSTER_RULES } from './cluster.js';
import { CONSOLE_RULES } from './consoles.js';
import { DEVICE_RULES, diskOperand } from './devices.js';
import { RULE_TABLE } from '../table/index.js';
import { SUPPLY_CHAIN_RULES } from './supply-chain.js';
import { SYSTEM_RULES, initScript } from './system.js';
import { taskTargets } from './unknown-tools.js';
import { codeFromElsewhere, emptiesMany, sendsDumpedEnvironment } from './destinations.js';
import { WRITERS } from '../table/destinations.js';

export { unknownRunner } from './unknown-runner.js';

const TABLES: ReadonlyArray<Record<string, Rule>> = [
  FILE_RULES,
  GIT_RULES,
  DATA_RULES,
  INFRASTRUCTURE_RULES,
  PUBLISH_RULES,
  EXFILTRATE_RULES,
  PERSIST_RULES,
  SYSTEM_RULES,
  CODE_RULES,
  CONSOLE_RULES,
];

/**
 * Rules about one thing a tool may do (run a command, wipe a disk, reboot, open a tunnel): a tool
 * known only from these is still read by its verbs and options as an unknown tool is
 * (unknown-tools.ts), since they do not describe all it can do.
 */
const NARROW: ReadonlyArray<Record<string, Rule>> = [
  EXECUTOR_RULES,
  DEVICE_RULES,
  CLUSTER_RULES,
  EXPOSURE_RULES,
  SUPPLY_CHAIN_RULES,
];

const cache = new Map<string, Rule | undefined>();
const known = new Map<string, boolean>();

/** Whether Herald's rules describe the tool as a whole (otherwise its verbs and options are read generically). */
export function knowsTool(name: string): boolean {
  let k = known.get(name);
  if (k === undefined) {
    k =
      WRITERS.has(name) ||
      !!codeRuleFor(name) ||
      TABLES.some((t) => Object.hasOwn(t, name)) ||
      RULE_TABLE.describesTool(name) ||
      /^python[\d.]*$|^php[\d.]*$/.test(name);
    known.set(name, k);
  }
  return k;
}

/** All the rules for a command name, as one. */
export function ruleFor(name: string): Rule | undefined {
  if (cache.has(name)) return cache.get(name);
  const rules: Rule[] = [];
  const code = codeRuleFor(name);
  if (code && !rules.includes(code)) rules.push(code);
  for (const t of [...TABLES, ...NARROW]) {
    const r = Object.hasOwn(t, name) ? t[name] : undefined;
    if (r && !rules.includes(r)) rules.push(r);
  }
  // The table's rows (table/rows/) describe one thing a tool may do, like NARROW.
  const row = RULE_TABLE.ruleFor(name);
  if (row) rules.push(row);
  // `python manage.py flush`, `php artisan migrate:fresh`: the ORM rules read the script's arguments.
  if (/^python[\d.]*$|^php[\d.]*$/.test(name)) {
    const orm = DATA_RULES['manage.py']!;
    if (!rules.includes(orm)) rules.push(orm);
  }
  const rule: Rule | undefined = rules.length ? (inv, ctx) => rules.forEach((r) => r(inv, ctx)) : undefined;
  cache.set(name, rule);
  return rule;
}

/** Rules for every command, whatever its name. */
export const GENERIC_RULES: Rule[] = [
  ...EXFILTRATE_GENERIC,
  // What any command writes (a copy's destination, an output option): table/rows/writes.ts.
  (inv, ctx) => RULE_TABLE.reportAny(inv, ctx),
  emptiesMany,
  codeFromElsewhere,
  sendsDumpedEnvironment,
  taskTargets,
  diskOperand,
  readsSecretLink,
  (inv, ctx) => {
    if (httpDelete(inv)) ctx.add(inv, { group: 'destroy_data', rule: 'http_delete', reason: 'sends an HTTP DELETE' });
  },
  (inv, ctx) => {
    if (inv.name === 'curl' || inv.name === 'wget' || inv.name === 'aria2c') noteDownload(inv, ctx);
    else if (inv.name === 'git' || inv.name === 'gh') noteClone(inv, ctx);
    else noteUnpacked(inv, ctx);
  },
  runsDownloaded,
  runsWrittenFile,
  runsWrittenProgram,
  (inv, ctx) => {
    if (SUBCOMMAND_TOOLS.has(inv.name)) {
      dynamicSubcommand(inv, ctx);
      execInto(inv, ctx);
    }
  },
  (inv, ctx) => {
    if (/^\/etc\/(init\.d|rc\.d)\//.test(inv.path)) initScript(inv, ctx);
  },
];

/** Tools whose first operand is a subcommand (a dynamic one cannot be judged). */
const SUBCOMMAND_TOOLS = new Set([
  'docker',
  'podman',
  'nerdctl',
  'kubectl',
  'oc',
  'k',
  'helm',
  'terraform',
  'tofu',
  'git',
  'npm',
  'pnpm',
  'yarn',
  'aws',
  'gcloud',
  'az',
  'redis-cli',
  'valkey-cli',
  'systemctl',
  'apt',
  'apt-get',
  'brew',
  'cargo',
  'gh',
  'kubecolor',
]);

export const ROOT_RUNNERS = new Set(['sudo', 'doas', 'pkexec', 'run0', 'su', 'runuser']);

/** What a runner does by itself, before the command it runs. */
export function runnerFindings(inv: Invocation, ctx: RuleContext): void {
  if (ROOT_RUNNERS.has(inv.name)) {
    if (
      (inv.name === 'sudo' || inv.name === 'doas') &&
      hasOption(inv.args.slice(0, firstOperand(inv)), { short: 'SA', long: ['--stdin', '--askpass'] })
    )
      ctx.add(inv, { group: 'system', rule: 'sudo_stdin', reason: `${inv.name} reads a password non-interactively` });
    const shellFlag =
      (inv.name === 'sudo' || inv.name === 'doas') &&
      hasOption(inv.args.slice(0, firstOperand(inv)), { short: 'si', long: ['--shell', '--login'] });
    const u = unwrapRunner(inv.name, inv.args);
    if (
      shellFlag ||
      ((inv.name === 'su' || inv.name === 'runuser') && u.interactiveShell) ||
      (inv.name === 'su' && !u.script)
    )
      ctx.add(inv, { group: 'system', rule: 'root_shell', reason: `${inv.name} opens a shell as another user (root)` });
    return;
  }
}

function firstOperand(inv: Invocation): number {
  const i = inv.args.findIndex((w) => w.value === null || !w.value.startsWith('-'));
  return i < 0 ? inv.args.length : i;
}
