/**
 * Dangerous-command detection for the `terminal` tool (SPEC §7.5, hermes-reference §5.5). Pure:
 * the activity classifies each command when the model asks for it, the workflow acts on the
 * verdict, and the tool checks hardline commands once more before it runs anything.
 *
 * The command is read the way a shell would read it (quotes, escapes, `$IFS`, line continuations,
 * wrappers such as `sudo` or `env`, full binary paths, `bash -c '…'`, `$(…)`), then each simple
 * command is matched against two rule sets: HARDLINE (never runs, whatever the approval mode) and
 * DANGEROUS (needs a yes). Arguments of commands that only print or search (`echo`, `grep`, …) are
 * data, not commands.
 */

import type { Pipeline, Simple } from './shell-parse.js';
import { parse } from './shell-parse.js';

export interface CommandFinding {
  rule: string;
  description: string;
}

export type CommandVerdict =
  | { level: 'safe' }
  | { level: 'hardline'; rule: string; description: string }
  | { level: 'dangerous'; findings: CommandFinding[] };

export const HARDLINE_RULES: ReadonlyArray<CommandFinding> = [
  { rule: 'delete_root', description: 'recursive delete of /, a system directory or the home directory' },
  { rule: 'mkfs', description: 'formatting a filesystem' },
  { rule: 'raw_device_write', description: 'writing to a raw block device' },
  { rule: 'fork_bomb', description: 'a fork bomb' },
  { rule: 'shutdown', description: 'shutting down or rebooting the machine' },
  { rule: 'kill_all', description: 'killing every process (kill -1)' },
];

export const DANGEROUS_RULES: ReadonlyArray<CommandFinding> = [
  { rule: 'recursive_delete', description: 'recursive or mass delete' },
  { rule: 'world_writable', description: 'making files world-writable' },
  { rule: 'recursive_permissions', description: 'recursive chmod/chown' },
  { rule: 'sql_destructive', description: 'destructive SQL (DROP, TRUNCATE, DELETE without WHERE)' },
  { rule: 'sensitive_file_write', description: 'overwriting a shell rc, SSH, system or credential file' },
  { rule: 'service_stop', description: 'stopping or disabling a system service' },
  { rule: 'force_kill', description: 'force-killing processes' },
  { rule: 'inline_interpreter', description: 'running inline code through an interpreter' },
  { rule: 'pipe_to_shell', description: 'running downloaded code' },
  { rule: 'decoded_to_shell', description: 'running decoded or obfuscated code' },
  {
    rule: 'git_destructive',
    description: 'discarding git history or work (reset --hard, force push, clean -f, branch -D)',
  },
  { rule: 'docker_destructive', description: 'removing containers, images or volumes' },
  { rule: 'sudo_stdin', description: 'sudo reading a password non-interactively or opening a root shell' },
  { rule: 'exec_new_file', description: 'making a file executable and running it' },
  { rule: 'crontab_remove', description: 'removing the crontab' },
  { rule: 'disk_copy', description: 'raw copy with dd' },
];

const DESCRIPTIONS = new Map([...HARDLINE_RULES, ...DANGEROUS_RULES].map((r) => [r.rule, r.description]));
const DANGER_ORDER = new Map(DANGEROUS_RULES.map((r, i) => [r.rule, i]));

const finding = (rule: string): CommandFinding => ({ rule, description: DESCRIPTIONS.get(rule) ?? rule });

const WRAPPERS = new Set([
  'sudo',
  'doas',
  'env',
  'command',
  'exec',
  'nohup',
  'nice',
  'time',
  'timeout',
  'stdbuf',
  'ionice',
  'chroot',
  'builtin',
  'unbuffer',
  'caffeinate',
  'torsocks',
]);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'ash', 'busybox']);
const INTERPRETERS = new Set([
  'python',
  'python2',
  'python3',
  'perl',
  'ruby',
  'node',
  'nodejs',
  'deno',
  'bun',
  'php',
  'lua',
  'osascript',
  'pwsh',
  'powershell',
]);
const DATA_COMMANDS = new Set([
  'echo',
  'printf',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'git-grep',
  'man',
  'which',
  'type',
  'whatis',
  'apropos',
  'history',
  'alias',
]);
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'xh']);
const SQL_CLIENTS = new Set([
  'psql',
  'mysql',
  'mariadb',
  'sqlite3',
  'sqlcmd',
  'clickhouse-client',
  'duckdb',
  'cockroach',
]);

const base = (word: string) => word.slice(word.lastIndexOf('/') + 1);

/** argv with wrappers, env assignments and full paths removed; also whether `sudo -S/-A/-s` was seen. */
/** Options of each wrapper that take a value (`sudo -u root`, `timeout -s KILL 5`). */
const WRAPPER_VALUE_OPTIONS: Record<string, RegExp> = {
  sudo: /^-[ugpCDhrtUT]$/,
  doas: /^-[uC]$/,
  timeout: /^-[sk]$/,
  nice: /^-n$/,
  ionice: /^-[cnpt]$/,
  stdbuf: /^-[ioe]$/,
  env: /^-[uCP]$/,
  chroot: /^--(?:userspec|groups)$/,
};

function unwrap(words: readonly string[]): { argv: string[]; sudoStdin: boolean } {
  let i = 0;
  let sudoStdin = false;
  while (i < words.length) {
    const w = words[i]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
      i += 1;
      continue;
    }
    const name = base(w);
    if (!WRAPPERS.has(name)) break;
    i += 1;
    // Options of the wrapper (and their values) come before the real command.
    while (i < words.length && words[i]!.startsWith('-') && words[i] !== '--') {
      const opt = words[i]!;
      // -S/-A read the password non-interactively; -s/-i open a root shell.
      if ((name === 'sudo' || name === 'doas') && /^-[a-zA-Z]*[SAsi]/.test(opt) && !opt.startsWith('--'))
        sudoStdin = true;
      if (name === 'env' && /^-[a-zA-Z]*S/.test(opt)) {
        // `env -S 'cmd args'` runs the split string: the rest is the command.
        return unwrap([...(words[i + 1] ?? '').split(/\s+/).filter(Boolean), ...words.slice(i + 2)]);
      }
      i += 1;
      if (WRAPPER_VALUE_OPTIONS[name]?.test(opt) && i < words.length) i += 1;
    }
    if (words[i] === '--') i += 1;
    if (name === 'timeout' && i < words.length && /^\d/.test(words[i]!)) i += 1;
    if (name === 'nice' && i < words.length && /^-?\d+$/.test(words[i]!)) i += 1;
  }
  const argv = words.slice(i);
  if (argv[0]) argv[0] = base(argv[0]);
  return { argv, sudoStdin };
}

/** Short flags of a command: `-rf` → r, f; long flags kept whole. */
function flags(args: readonly string[]): { short: Set<string>; long: Set<string> } {
  const short = new Set<string>();
  const long = new Set<string>();
  for (const a of args) {
    if (a === '--') break;
    if (a.startsWith('--')) long.add(a.split('=')[0]!);
    else if (a.startsWith('-') && a.length > 1 && !/^-\d/.test(a)) for (const ch of a.slice(1)) short.add(ch);
  }
  return { short, long };
}

const SYSTEM_DIRS = [
  '',
  '/etc',
  '/usr',
  '/bin',
  '/sbin',
  '/boot',
  '/lib',
  '/lib32',
  '/lib64',
  '/var',
  '/home',
  '/root',
  '/opt',
  '/sys',
  '/proc',
  '/dev',
  '/srv',
  '/mnt',
  '/media',
  '/snap',
  '/run',
];

/** `/`, a system directory, or the home directory, however spelled. */
function isProtectedTarget(raw: string): boolean {
  let t = raw.trim();
  if (/^(?:~|\$HOME|\$\{HOME\}|\/home\/[^/]+|\/root|\/Users\/[^/]+)\/?\*?$/.test(t)) return true;
  t = t
    .replace(/\/\.?$/, '')
    .replace(/\/\*$/, '')
    .replace(/\/+$/, '')
    .replace(/\/\.\/?$/, '');
  if (t === '' && raw.startsWith('/')) return true;
  return SYSTEM_DIRS.includes(t) && raw.startsWith('/');
}

const RAW_DEVICE = /^\/dev\/(?:sd[a-z]|nvme\d|hd[a-z]|vd[a-z]|xvd[a-z]|mmcblk\d|disk\d|dm-\d|md\d)/;

const SENSITIVE_FILE =
  /(?:^|\/)(?:\.bashrc|\.bash_profile|\.bash_login|\.profile|\.zshrc|\.zprofile|\.zshenv|\.kshrc|\.cshrc|\.tcshrc|\.inputrc|\.netrc|\.npmrc|\.pypirc|\.git-credentials|\.pgpass|\.my\.cnf|\.env(?:\.[\w-]+)?|id_rsa|id_dsa|id_ecdsa|id_ed25519|authorized_keys|known_hosts)$|(?:^|\/)\.ssh\/|(?:^|\/)\.aws\/|(?:^|\/)\.kube\/config|(?:^|\/)\.docker\/config\.json|(?:^|\/)\.gnupg\/|(?:^|\/)\.herald\/|^\/etc\//;

const isSensitive = (path: string) => SENSITIVE_FILE.test(path.replace(/^(?:~|\$HOME|\$\{HOME\})/, ''));

const SQL_DESTRUCTIVE =
  /\b(?:drop\s+(?:table|database|schema|user|role|index|view)|truncate\s+(?:table\s+)?\w)|\bdelete\s+from\s+[\w."`]+\s*(?:;|$|"|')/i;

// ---------------------------------------------------------------------------------------------
// Matching

interface Found {
  hardline?: string;
  dangerous: Set<string>;
}

function checkSimple(c: Simple, found: Found, depth: number): void {
  const { argv, sudoStdin } = unwrap(c.words);
  if (sudoStdin) found.dangerous.add('sudo_stdin');
  for (const w of c.writes) {
    if (RAW_DEVICE.test(w)) found.hardline ??= 'raw_device_write';
    else if (isSensitive(w)) found.dangerous.add('sensitive_file_write');
  }
  const cmd = argv[0];
  if (!cmd) return;
  const args = argv.slice(1);
  const f = flags(args);
  const operands = args.filter((a) => !a.startsWith('-') || a === '-');

  if (DATA_COMMANDS.has(cmd)) return;
  if (/^(?:mkfs(?:\.\w+)?|mke2fs|mkswap|newfs(?:_\w+)?|mkdosfs|mkntfs)$/.test(cmd)) found.hardline ??= 'mkfs';

  switch (cmd) {
    case 'rm': {
      const recursive = f.short.has('r') || f.short.has('R') || f.long.has('--recursive');
      if (f.long.has('--no-preserve-root') && recursive) found.hardline ??= 'delete_root';
      else if (recursive && operands.some(isProtectedTarget)) found.hardline ??= 'delete_root';
      else if (recursive) found.dangerous.add('recursive_delete');
      break;
    }
    case 'find': {
      const deletes =
        args.includes('-delete') ||
        args.some((a, i) => (a === '-exec' || a === '-execdir' || a === '-ok') && base(args[i + 1] ?? '') === 'rm');
      // The search roots are the operands before the first expression.
      const exprAt = args.findIndex((a) => a.startsWith('-') || a === '(' || a === '!');
      const roots = exprAt < 0 ? args : args.slice(0, exprAt);
      if (deletes && roots.some(isProtectedTarget)) found.hardline ??= 'delete_root';
      else if (deletes) found.dangerous.add('recursive_delete');
      break;
    }
    case 'xargs': {
      const inner = unwrap(args.filter((a, i) => !(a.startsWith('-') && i === 0) || !/^-/.test(a))).argv;
      const rmAt = args.findIndex((a) => base(a) === 'rm');
      if (rmAt >= 0 || base(inner[0] ?? '') === 'rm') found.dangerous.add('recursive_delete');
      else if (inner.length)
        checkSimple(
          { words: args.filter((a) => !a.startsWith('-')), writes: [], heredoc: false, nested: [] },
          found,
          depth,
        );
      break;
    }
    case 'shred':
    case 'wipefs':
      found.dangerous.add('recursive_delete');
      break;
    case 'chmod': {
      const mode = operands[0] ?? '';
      if (
        /^[0-7]?[0-7][0-7][2367]$/.test(mode) ||
        /(?:^|,)(?:o|a|ugo)?\+[rwxXst]*w/.test(mode) ||
        (/(?:^|,)[ugoa]*=[rwx]*w[rwx]*$/.test(mode) && /o|a/.test(mode))
      ) {
        found.dangerous.add('world_writable');
      }
      if (f.short.has('R') || f.long.has('--recursive')) found.dangerous.add('recursive_permissions');
      break;
    }
    case 'chown':
    case 'chgrp':
      if (f.short.has('R') || f.long.has('--recursive')) found.dangerous.add('recursive_permissions');
      break;
    case 'dd': {
      const of = args.find((a) => a.startsWith('of='))?.slice(3);
      if (of && RAW_DEVICE.test(of)) found.hardline ??= 'raw_device_write';
      else found.dangerous.add('disk_copy');
      break;
    }
    case 'tee':
      for (const a of operands) {
        if (RAW_DEVICE.test(a)) found.hardline ??= 'raw_device_write';
        else if (isSensitive(a)) found.dangerous.add('sensitive_file_write');
      }
      break;
    case 'cp':
    case 'mv':
    case 'install':
    case 'ln':
      if (operands.length >= 2 && isSensitive(operands[operands.length - 1]!))
        found.dangerous.add('sensitive_file_write');
      if (cmd === 'mv' && operands.some(isProtectedTarget)) found.dangerous.add('recursive_delete');
      break;
    case 'sed':
    case 'perl':
      if (args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place')) && operands.some(isSensitive))
        found.dangerous.add('sensitive_file_write');
      if (cmd === 'perl' && (f.short.has('e') || f.short.has('E'))) found.dangerous.add('inline_interpreter');
      break;
    case 'shutdown':
    case 'reboot':
    case 'halt':
    case 'poweroff':
      found.hardline ??= 'shutdown';
      break;
    case 'init':
    case 'telinit':
      if (operands.some((a) => a === '0' || a === '6')) found.hardline ??= 'shutdown';
      break;
    case 'systemctl': {
      const verb = operands[0] ?? '';
      if (['poweroff', 'reboot', 'halt', 'kexec', 'rescue', 'emergency'].includes(verb)) found.hardline ??= 'shutdown';
      else if (['stop', 'restart', 'disable', 'mask', 'kill', 'isolate'].includes(verb))
        found.dangerous.add('service_stop');
      break;
    }
    case 'service':
      if (['stop', 'restart'].includes(operands[1] ?? '')) found.dangerous.add('service_stop');
      break;
    case 'launchctl':
      if (['unload', 'remove', 'bootout', 'stop', 'kill'].includes(operands[0] ?? ''))
        found.dangerous.add('service_stop');
      break;
    case 'kill': {
      const last = args[args.length - 1];
      if (last === '-1' && args.length >= 1) found.hardline ??= 'kill_all';
      else if (
        args.some((a) => /^-(?:9|KILL|SIGKILL)$/i.test(a)) ||
        (args.includes('-s') && /^(?:9|KILL|SIGKILL)$/i.test(args[args.indexOf('-s') + 1] ?? ''))
      ) {
        found.dangerous.add('force_kill');
      }
      break;
    }
    case 'pkill':
    case 'killall':
    case 'xkill':
      found.dangerous.add('force_kill');
      break;
    case 'git': {
      // Global options before the subcommand: -C <dir>, -c <key=value>, --git-dir=…
      let at = 0;
      while (at < args.length && args[at]!.startsWith('-')) at += /^-[Cc]$/.test(args[at]!) ? 2 : 1;
      const gitArgs = args.slice(at);
      const sub = gitArgs[0] ?? '';
      const gf = flags(gitArgs.slice(1));
      if (sub === 'reset' && gitArgs.includes('--hard')) found.dangerous.add('git_destructive');
      else if (
        sub === 'push' &&
        (gf.short.has('f') ||
          [...gf.long].some((l) => l.startsWith('--force')) ||
          gitArgs.slice(2).some((a) => a.startsWith('+')))
      )
        found.dangerous.add('git_destructive');
      else if (sub === 'clean' && (gf.short.has('f') || gf.long.has('--force'))) found.dangerous.add('git_destructive');
      else if (sub === 'branch' && (gf.short.has('D') || (gf.short.has('d') && gf.short.has('f'))))
        found.dangerous.add('git_destructive');
      else if ((sub === 'checkout' || sub === 'restore') && gitArgs.slice(1).includes('.'))
        found.dangerous.add('git_destructive');
      else if (sub === 'stash' && ['drop', 'clear'].includes(gitArgs[1] ?? '')) found.dangerous.add('git_destructive');
      break;
    }
    case 'docker':
    case 'podman':
    case 'docker-compose': {
      const words = operands.join(' ');
      if (
        /^(?:rm|rmi|kill)\b/.test(words) ||
        /^(?:container|image|volume|network) (?:rm|prune)\b/.test(words) ||
        /^(?:system|volume|image|container|builder) prune\b/.test(words)
      ) {
        found.dangerous.add('docker_destructive');
      } else if (
        /^(?:compose )?down\b/.test(cmd === 'docker-compose' ? `compose ${words}` : words) &&
        (f.short.has('v') || f.long.has('--volumes') || f.long.has('--rmi'))
      ) {
        found.dangerous.add('docker_destructive');
      }
      break;
    }
    case 'crontab':
      if (f.short.has('r')) found.dangerous.add('crontab_remove');
      break;
    case 'eval':
      found.dangerous.add('inline_interpreter');
      if (depth < 4) classifyInto(args.join(' '), found, depth + 1);
      break;
    default:
      break;
  }

  if (/^(?:drop|truncate|delete)$/i.test(cmd) && SQL_DESTRUCTIVE.test(argv.join(' ')))
    found.dangerous.add('sql_destructive');
  if (SQL_CLIENTS.has(cmd) && (SQL_DESTRUCTIVE.test(args.join(' ')) || SQL_DESTRUCTIVE.test(c.heredocBody ?? '')))
    found.dangerous.add('sql_destructive');

  if (SHELLS.has(cmd) || INTERPRETERS.has(cmd)) {
    const inline = SHELLS.has(cmd)
      ? f.short.has('c')
      : f.short.has('c') ||
        f.short.has('e') ||
        f.short.has('E') ||
        f.long.has('--eval') ||
        f.long.has('--command') ||
        ((cmd === 'node' || cmd === 'nodejs' || cmd === 'bun') && (f.short.has('p') || f.long.has('--print'))) ||
        (cmd === 'php' && f.short.has('r')) ||
        (cmd === 'deno' && operands[0] === 'eval');
    if (inline || c.heredoc) found.dangerous.add('inline_interpreter');
    if (c.heredocBody && SHELLS.has(cmd) && depth < 4) classifyInto(c.heredocBody, found, depth + 1);
    if (SHELLS.has(cmd) && f.short.has('c') && depth < 4) {
      const at = args.findIndex((a) => /^-[a-zA-Z]*c/.test(a));
      const script = args[at + 1];
      if (script) classifyInto(script, found, depth + 1);
    }
    if (c.nested.some(isDownload) || args.some((a) => /^<\(/.test(a) && isDownload(a.slice(2, -1))))
      found.dangerous.add('pipe_to_shell');
  }
  if (
    (cmd === 'eval' || cmd === 'source' || cmd === '.') &&
    (c.nested.some(isDownload) || args.some((a) => /^<\(/.test(a) && isDownload(a.slice(2, -1))))
  ) {
    found.dangerous.add('pipe_to_shell');
  }
}

function isDownload(command: string): boolean {
  return parse(command).pipelines.some((p) => p.commands.some((c) => DOWNLOADERS.has(unwrap(c.words).argv[0] ?? '')));
}

const DECODERS = (argv: string[]) => {
  const [cmd, ...args] = argv;
  if (cmd === 'base64' || cmd === 'base32' || cmd === 'basenc')
    return args.some((a) => /^-(?:d|D|-decode)$/.test(a) || /^-[a-zA-Z]*d/.test(a));
  if (cmd === 'xxd') return args.some((a) => /^-[a-zA-Z]*r/.test(a));
  if (cmd === 'openssl') return args.includes('-d') || args.includes('base64') || args.includes('enc');
  if (cmd === 'uudecode' || cmd === 'gunzip' || cmd === 'zcat' || cmd === 'rev') return true;
  if (cmd === 'tr') return true;
  return false;
};

/**
 * A shell or interpreter at the end of a pipe runs what it reads only when it has no script of
 * its own: `curl … | sh` runs the download, `… | python3 -m json.tool` and `… | bash build.sh` do not.
 */
function readsScriptFromStdin(argv: readonly string[]): boolean {
  const [cmd, ...args] = argv;
  if (!cmd || !(SHELLS.has(cmd) || INTERPRETERS.has(cmd))) return false;
  if (args.some((a) => /^-[a-zA-Z]*[cme]$/.test(a) || a === '--eval' || a === '--print')) return false;
  const operands = args.filter((a) => !a.startsWith('-') || a === '-');
  return operands.length === 0 || operands[0] === '-' || args.includes('-s');
}

function checkPipeline(p: Pipeline, found: Found, depth: number): void {
  const argvs = p.commands.map((c) => unwrap(c.words).argv);
  argvs.forEach((argv, i) => {
    if (i === 0) return;
    const cmd = argv[0] ?? '';
    const runsCode = readsScriptFromStdin(argv) || (cmd === 'xargs' && argv.slice(1).some((a) => SHELLS.has(base(a))));
    if (!runsCode) return;
    const before = argvs.slice(0, i);
    if (before.some((a) => DOWNLOADERS.has(a[0] ?? ''))) found.dangerous.add('pipe_to_shell');
    else if (before.some(DECODERS)) found.dangerous.add('decoded_to_shell');
    else found.dangerous.add('inline_interpreter');
  });
  // SQL piped into a client: `echo 'DROP TABLE t' | psql`.
  if (argvs.some((a) => SQL_CLIENTS.has(a[0] ?? '')) && p.commands.some((c) => SQL_DESTRUCTIVE.test(c.words.join(' '))))
    found.dangerous.add('sql_destructive');
  for (const c of p.commands) checkSimple(c, found, depth);
}

/** `chmod +x run.sh && ./run.sh`: a file made executable, then run. */
function checkSequence(pipelines: Pipeline[], found: Found): void {
  const madeExecutable = new Set<string>();
  for (const p of pipelines) {
    for (const c of p.commands) {
      const { argv } = unwrap(c.words);
      if (
        argv[0] === 'chmod' &&
        argv.slice(1).some((a) => /^(?:[ugoa]*\+[rwX]*x|[0-7]?[0-7][1357][0-7]{0,2})$/.test(a))
      ) {
        for (const a of argv.slice(2)) madeExecutable.add(a.replace(/^\.\//, ''));
      } else if (argv[0] && madeExecutable.has(argv[0].replace(/^\.\//, '')) && madeExecutable.size) {
        found.dangerous.add('exec_new_file');
      } else if (c.words[0] && madeExecutable.has(c.words[0].replace(/^\.\//, ''))) {
        found.dangerous.add('exec_new_file');
      }
    }
  }
}

const FORK_BOMB = /([A-Za-z_:][\w:]*)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*&?\s*\1\s*&?[^}]*\}\s*;?\s*\1/;

function classifyInto(command: string, found: Found, depth: number): void {
  // Quoted text is data (`echo ':(){ :|:& };:' >> notes.md`), so the pattern runs on the rest.
  const unquoted = command.replace(/'[^']*'|"(?:\\.|[^"\\])*"/g, '""');
  if (FORK_BOMB.test(unquoted.replace(/\s+/g, ' '))) found.hardline ??= 'fork_bomb';
  const { pipelines, subs } = parse(command);
  for (const p of pipelines) checkPipeline(p, found, depth);
  checkSequence(pipelines, found);
  if (depth < 4) for (const s of subs) classifyInto(s, found, depth + 1);
}

// ---------------------------------------------------------------------------------------------
// Public API

/** The command as matched: continuations joined, quotes and escapes resolved, wrappers and paths removed. */
export function normalizeCommand(command: string): string {
  return splitCommands(command).join(' ; ');
}

/** Simple commands of a command line (each unwrapped), then those nested in `$(…)`, backticks, `<(…)` and `sh -c '…'`. */
export function splitCommands(command: string): string[] {
  const out: string[] = [];
  const visit = (text: string, depth: number) => {
    const { pipelines, subs } = parse(text);
    for (const p of pipelines) {
      for (const c of p.commands) {
        const { argv } = unwrap(c.words);
        if (!argv.length) continue;
        out.push(argv.join(' '));
        const f = flags(argv.slice(1));
        if (depth < 4 && SHELLS.has(argv[0]!) && f.short.has('c')) {
          const at = argv.findIndex((a, i) => i > 0 && /^-[a-zA-Z]*c/.test(a));
          const script = argv[at + 1];
          if (script) visit(script, depth + 1);
        }
        if (depth < 4 && argv[0] === 'eval') visit(argv.slice(1).join(' '), depth + 1);
      }
    }
    if (depth < 4) for (const s of subs) visit(s, depth + 1);
  };
  visit(command, 0);
  return out;
}

export function classifyCommand(command: string): CommandVerdict {
  const found: Found = { dangerous: new Set() };
  classifyInto(command, found, 0);
  if (found.hardline)
    return { level: 'hardline', rule: found.hardline, description: DESCRIPTIONS.get(found.hardline) ?? found.hardline };
  if (found.dangerous.size === 0) return { level: 'safe' };
  const findings = [...found.dangerous]
    .sort((a, b) => (DANGER_ORDER.get(a) ?? 99) - (DANGER_ORDER.get(b) ?? 99))
    .map(finding);
  return { level: 'dangerous', findings };
}
