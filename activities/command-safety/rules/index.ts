/**
 * Every rule by command name, plus the rules every command goes through and the findings of
 * runners themselves (`sudo -S`, a root shell, `nsenter`). Several groups may know one command
 * (`docker push` publishes, `docker rm` destroys, `docker run --privileged` escapes), so a name
 * gets all of its rules.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { hasOption } from '../options.js';
import { RUNNERS, unwrapRunner } from '../runners.js';
import { CODE_RULES, codeRuleFor, noteDownload, runsDownloaded } from './code.js';
import { DATA_RULES, httpDelete } from './data.js';
import { EXFILTRATE_GENERIC, EXFILTRATE_RULES } from './exfiltrate.js';
import { FILE_RULES, fileRuleFor } from './files.js';
import { GIT_RULES } from './git.js';
import { INFRASTRUCTURE_RULES, dynamicSubcommand, execInto } from './infrastructure.js';
import { PERSIST_RULES } from './persist.js';
import { PUBLISH_RULES, pythonModulePublishes } from './publish.js';
import { SYSTEM_RULES, initScript } from './system.js';

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
];

const cache = new Map<string, Rule | undefined>();

/** All the rules for a command name, as one. */
export function ruleFor(name: string): Rule | undefined {
  if (cache.has(name)) return cache.get(name);
  const rules: Rule[] = [];
  const file = fileRuleFor(name);
  if (file) rules.push(file);
  const code = codeRuleFor(name);
  if (code && !rules.includes(code)) rules.push(code);
  for (const t of TABLES) {
    const r = Object.hasOwn(t, name) ? t[name] : undefined;
    if (r && !rules.includes(r)) rules.push(r);
  }
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
  (inv, ctx) => {
    if (httpDelete(inv)) ctx.add(inv, { group: 'destroy_data', rule: 'http_delete', reason: 'sends an HTTP DELETE' });
  },
  (inv, ctx) => {
    if (inv.name === 'curl' || inv.name === 'wget') noteDownload(inv, ctx);
  },
  runsDownloaded,
  (inv, ctx) => {
    if (SUBCOMMAND_TOOLS.has(inv.name)) {
      dynamicSubcommand(inv, ctx);
      execInto(inv, ctx);
    }
  },
  (inv, ctx) => {
    if (/^\/etc\/(init\.d|rc\.d)\//.test(inv.path)) initScript(inv, ctx);
  },
  (inv, ctx) => {
    if (/^python[\d.]*$/.test(inv.name) && pythonModulePublishes(inv))
      ctx.add(inv, { group: 'publish', rule: 'package_publish', reason: 'uploads a package to PyPI' });
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

const ROOT_RUNNERS = new Set(['sudo', 'doas', 'pkexec', 'run0', 'su', 'runuser']);

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
  const own = SYSTEM_RULES[inv.name] ?? PERSIST_RULES[inv.name];
  if (own && RUNNERS[inv.name]) own(inv, ctx);
}

function firstOperand(inv: Invocation): number {
  const i = inv.args.findIndex((w) => w.value === null || !w.value.startsWith('-'));
  return i < 0 ? inv.args.length : i;
}

/** Programs whose words are data or packages, never a command they run. */
const DATA_LIKE = new Set([
  'echo',
  'printf',
  'man',
  'which',
  'type',
  'help',
  'apropos',
  'whatis',
  'info',
  'tldr',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'locate',
  'whereis',
  'hash',
  'compgen',
  'complete',
  'history',
  'sort',
  'uniq',
  'cut',
  'wc',
  'head',
  'tail',
  'cat',
  'tac',
  'less',
  'more',
  'nl',
  'od',
  'xxd',
  'hexdump',
  'strings',
  'file',
  'jq',
  'yq',
  'apt',
  'apt-get',
  'apt-cache',
  'dnf',
  'yum',
  'brew',
  'pip',
  'pip3',
  'pipx',
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'cargo',
  'go',
  'gem',
  'composer',
  'conda',
  'mamba',
  'poetry',
  'uv',
  'touch',
  'mkdir',
  'ls',
  'stat',
  'du',
  'test',
  '[',
  'true',
  'false',
  ':',
  'cd',
  'pwd',
  'export',
  'declare',
  'local',
  'readonly',
  'unset',
  'set',
  'shift',
  'read',
  'wait',
  'sleep',
  'date',
  'whoami',
  'id',
  'uname',
  'tar',
  'zip',
  'unzip',
  'gzip',
  'diff',
  'patch',
  'make',
  'cmake',
  'gcc',
  'g++',
  'clang',
  'cc',
  'javac',
  'java',
  'mvn',
  'gradle',
  'dotnet',
  'rustc',
  'tsc',
  'eslint',
  'prettier',
  'jest',
  'vitest',
  'pytest',
  'mocha',
  'tee',
  'snap',
  'flatpak',
  'port',
  'nix-env',
  'zypper',
  'pacman',
  'apk',
]);

/** Commands an unknown wrapper may be running (`firejail rm -rf /`, `myrunner sh -c …`). */
const RUN_TARGETS = new Set([
  'rm',
  'dd',
  'shred',
  'wipefs',
  'shutdown',
  'reboot',
  'halt',
  'poweroff',
  'kill',
  'killall',
  'pkill',
  'chmod',
  'chown',
  'sh',
  'bash',
  'zsh',
  'dash',
  'eval',
  'curl',
  'wget',
  'nc',
  'ncat',
  'sudo',
  'su',
  'crontab',
  'git',
  'docker',
  'kubectl',
  'terraform',
  'psql',
  'mysql',
  'redis-cli',
  'python',
  'python3',
  'perl',
  'node',
  'find',
  'mv',
  'truncate',
  'systemctl',
  'iptables',
  'mkfs',
  'fdisk',
  'xargs',
]);

/** A command Herald knows nothing about whose first operands are a command: treat it as a runner. */
export function unknownRunner(inv: Invocation, ctx: RuleContext): void {
  if (DATA_LIKE.has(inv.name) || inv.depth > 4) return;
  const ops = inv.args.map((w, i) => ({ w, i })).filter(({ w }) => w.value === null || !w.value.startsWith('-'));
  for (const { w, i } of ops.slice(0, 2)) {
    const name = w.value?.slice(w.value.lastIndexOf('/') + 1);
    if (name && (RUN_TARGETS.has(name) || /^mkfs\./.test(name)) && inv.args.length > i + 1) {
      ctx.nested(inv, inv.args.slice(i), { operandsFromStdin: inv.operandsFromStdin });
      return;
    }
  }
}
