/**
 * Commands that run other commands (`sudo`, `env`, `timeout`, `setsid`, `xargs`, `su -c`, `watch`,
 * `ssh host cmd`, …), as data: each one's option grammar, the operands that come before the
 * command (`timeout 5`, `flock lockfile`), and whether the command is a word list or a string for
 * a shell. `unwrap` peels them off so the rules see what really runs.
 */
import type { Word } from './shell.js';

export interface RunnerSpec {
  /** Short options that take a value (`-u root`, `-uroot`). */
  shortValued?: string;
  /** Long options that take a value (`--user root`, `--user=root`). */
  longValued?: readonly string[];
  /** Operands before the command: timeout's duration, flock's lock file, chrt's priority, taskset's mask. */
  leading?: number;
  /** The option whose value is a shell command string (`su -c`, `script -c`, `flock -c`). */
  shellOption?: { short?: string; long?: readonly string[] };
  /** Everything after the options is joined into a shell command string (`watch`, `ssh host …`). */
  restIsScript?: boolean;
  /** Options after which there is no command at all (`ionice -p PID`, `taskset -p`, `command -v`). */
  noCommandWith?: { short?: string; long?: readonly string[] };
  /** Runs its command with operands read from standard input (`xargs`, `parallel`). */
  operandsFromStdin?: boolean;
  /** `NAME=value` words before the command set its environment (`env`). */
  assignments?: boolean;
  /** The command runs on another machine (`ssh`): its words are a remote shell command. */
  remote?: boolean;
  /** With no command, the runner opens an interactive shell (a root shell for `sudo -s`, `su`). */
  shellWithoutCommand?: boolean;
}

const SUDO: RunnerSpec = {
  shortValued: 'ugpCDhrtUTR',
  longValued: [
    '--user',
    '--group',
    '--prompt',
    '--close-from',
    '--chdir',
    '--role',
    '--type',
    '--host',
    '--other-user',
    '--chroot',
    '--command-timeout',
  ],
  shellWithoutCommand: true,
};
const SU: RunnerSpec = {
  shortValued: 'sgGwP',
  longValued: ['--shell', '--group', '--supp-group', '--whitelist-environment'],
  shellOption: { short: 'c', long: ['--command', '--session-command'] },
  shellWithoutCommand: true,
};

export const RUNNERS: Record<string, RunnerSpec> = {
  sudo: SUDO,
  doas: { shortValued: 'uC', shellWithoutCommand: true },
  pkexec: { longValued: ['--user'], shellWithoutCommand: true },
  run0: {
    longValued: [
      '--user',
      '--group',
      '--chdir',
      '--unit',
      '--property',
      '--description',
      '--slice',
      '--nice',
      '--setenv',
    ],
  },
  su: SU,
  runuser: { ...SU, shortValued: 'ugsGw' },
  sg: { shellOption: { short: 'c' }, leading: 1 },
  env: {
    shortValued: 'uC',
    longValued: ['--unset', '--chdir'],
    shellOption: { short: 'S', long: ['--split-string'] },
    assignments: true,
  },
  nice: { shortValued: 'n', longValued: ['--adjustment'] },
  ionice: {
    shortValued: 'cnpPu',
    longValued: ['--class', '--classdata', '--pid', '--pgid', '--uid'],
    noCommandWith: { short: 'pPu', long: ['--pid', '--pgid', '--uid'] },
  },
  timeout: { shortValued: 'sk', longValued: ['--signal', '--kill-after'], leading: 1 },
  setsid: {},
  nohup: {},
  time: { shortValued: 'fo', longValued: ['--format', '--output'] },
  command: { noCommandWith: { short: 'vV' } },
  builtin: {},
  exec: { shortValued: 'a' },
  stdbuf: { shortValued: 'ioe', longValued: ['--input', '--output', '--error'] },
  flock: {
    shortValued: 'wE',
    longValued: ['--timeout', '--conflict-exit-code'],
    shellOption: { short: 'c', long: ['--command'] },
    leading: 1,
  },
  chrt: {
    shortValued: 'TPD',
    longValued: ['--sched-runtime', '--sched-period', '--sched-deadline'],
    leading: 1,
    noCommandWith: { short: 'pm', long: ['--pid', '--max'] },
  },
  taskset: { leading: 1, noCommandWith: { short: 'p', long: ['--pid'] } },
  strace: { shortValued: 'abeEIoOpPsSuUX', noCommandWith: { short: 'p' } },
  ltrace: { shortValued: 'aAeEflLnopsSuwx', noCommandWith: { short: 'p' } },
  nsenter: { shortValued: 'tSG', longValued: ['--target', '--setuid', '--setgid'], shellWithoutCommand: true },
  unshare: {
    shortValued: 'S',
    longValued: ['--setuid', '--setgid', '--map-user', '--map-group', '--propagation'],
    shellWithoutCommand: true,
  },
  chroot: { longValued: ['--userspec', '--groups'], leading: 1, shellWithoutCommand: true },
  'systemd-run': {
    shortValued: 'puEMHD',
    longValued: [
      '--property',
      '--unit',
      '--description',
      '--slice',
      '--setenv',
      '--uid',
      '--gid',
      '--nice',
      '--working-directory',
      '--on-active',
      '--on-boot',
      '--on-startup',
      '--on-unit-active',
      '--on-unit-inactive',
      '--on-calendar',
      '--timer-property',
      '--path-property',
      '--socket-property',
      '--service-type',
      '--machine',
      '--host',
    ],
  },
  // `script [options] [file]`: the operand is the log file (BSD: the file, then the command).
  script: {
    leading: 1,
    shortValued: 'TIOBmEo',
    longValued: ['--log-timing', '--log-in', '--log-out', '--log-io', '--logging-format', '--echo', '--output-limit'],
    shellOption: { short: 'c', long: ['--command'] },
    shellWithoutCommand: true,
  },
  busybox: {},
  toybox: {},
  xargs: {
    shortValued: 'adEILnPs',
    longValued: [
      '--arg-file',
      '--delimiter',
      '--eof',
      '--max-lines',
      '--max-args',
      '--max-procs',
      '--max-chars',
      '--process-slot-var',
    ],
    operandsFromStdin: true,
  },
  parallel: {
    shortValued: 'jSadIMnNL',
    longValued: [
      '--jobs',
      '--sshlogin',
      '--arg-file',
      '--colsep',
      '--delimiter',
      '--results',
      '--joblog',
      '--tmpdir',
      '--max-args',
      '--timeout',
      '--delay',
      '--retries',
      '--memfree',
      '--halt',
    ],
    operandsFromStdin: true,
  },
  watch: { shortValued: 'nq', longValued: ['--interval'], restIsScript: true },
  ssh: { shortValued: 'BbcDEeFIiJLlmOoPpQRSWw', leading: 1, restIsScript: true, remote: true },
  caffeinate: { shortValued: 'tw' },
  unbuffer: {},
  chronic: {},
  eatmydata: {},
  fakeroot: {},
  firejail: {},
  proxychains: { shortValued: 'f' },
  proxychains4: { shortValued: 'f' },
  torsocks: {},
  numactl: {},
  prlimit: { longValued: ['--pid'] },
  setpriv: {},
  'xvfb-run': {},
  valgrind: {},
  rlwrap: {},
  // `xcrun simctl …`, `xcrun altool …`: a developer tool by name (`--find`, `--show-sdk-path` run none).
  xcrun: {
    longValued: ['--sdk', '--toolchain', '--log'],
    noCommandWith: {
      short: 'f',
      long: [
        '--find',
        '--show-sdk-path',
        '--show-sdk-version',
        '--show-sdk-platform-path',
        '--show-sdk-build-version',
        '--version',
      ],
    },
  },
  sshpass: { shortValued: 'pfdP' },
  gosu: { leading: 1 },
  'su-exec': { leading: 1 },
  setuidgid: { leading: 1 },
  's6-setuidgid': { leading: 1 },
  'dumb-init': {},
  tini: {},
  torify: {},
  tsocks: {},
  catchsegv: {},
  // Development runners: the project's tools, run through a package manager or environment.
  npx: { shortValued: 'p', longValued: ['--package'] },
  bunx: {},
  pnpx: {},
  uvx: { longValued: ['--from', '--with'] },
  pipx: {},
};

/** `npm exec`, `pnpm dlx`, `poetry run`, `bundle exec`, … : `<manager> <sub>` runs the rest. */
export const SUBCOMMAND_RUNNERS: Record<string, readonly string[]> = {
  npm: ['exec', 'x'],
  pnpm: ['exec', 'dlx'],
  yarn: ['dlx', 'exec'],
  bun: ['x'],
  uv: ['run'],
  poetry: ['run'],
  pipenv: ['run'],
  pdm: ['run'],
  hatch: ['run'],
  rye: ['run'],
  conda: ['run'],
  mamba: ['run'],
  micromamba: ['run'],
  bundle: ['exec'],
  mise: ['exec', 'x'],
  asdf: ['exec'],
  rtx: ['exec'],
  devbox: ['run'],
  pipx: ['run'],
  direnv: ['exec'],
};

export interface Unwrapped {
  /** The command's argv (its name first), when it is a word list. */
  argv?: Word[];
  /** The command as a shell string, when the runner takes one (`su -c '…'`); null value: unknown. */
  script?: Word;
  /** Operands come from standard input at run time (xargs, parallel). */
  operandsFromStdin?: boolean;
  /** Environment set for the command (`env FOO=1 cmd`). */
  assignments?: Array<{ name: string; value: Word }>;
  /** The runner was asked to open an interactive shell (no command given). */
  interactiveShell?: boolean;
  remote?: boolean;
}

function shortValueTaken(opt: string, spec: RunnerSpec): boolean {
  // `-u root`: the last letter of a bundle takes the next word unless the value is attached.
  const letters = opt.slice(1);
  for (let i = 0; i < letters.length; i++) {
    if (spec.shortValued?.includes(letters[i]!)) return i === letters.length - 1;
  }
  return false;
}

function isShellOption(opt: string, spec: RunnerSpec): 'next' | 'attached' | undefined {
  const o = spec.shellOption;
  if (!o) return undefined;
  if (opt.startsWith('--')) {
    const name = opt.split('=')[0]!;
    if (o.long?.some((l) => l.startsWith(name) && name.length >= 4)) return opt.includes('=') ? 'attached' : 'next';
    return undefined;
  }
  if (o.short && opt.length >= 2 && opt.endsWith(o.short) && /^-[A-Za-z]+$/.test(opt)) return 'next';
  if (o.short && opt.startsWith(`-${o.short}`) && opt.length > 2) return 'attached';
  return undefined;
}

function matchesNoCommand(opt: string, spec: RunnerSpec): boolean {
  const o = spec.noCommandWith;
  if (!o) return false;
  if (opt.startsWith('--')) return o.long?.some((l) => l.startsWith(opt.split('=')[0]!) && opt.length >= 4) ?? false;
  return [...opt.slice(1)].some((c) => o.short?.includes(c));
}

/** Peel one runner off `args` (the words after the runner's name). */
export function unwrapRunner(name: string, args: readonly Word[]): Unwrapped {
  const spec = RUNNERS[name]!;
  // su and runuser take `-c` anywhere, after the user name too (`su root -c '…'`, `su - -c '…'`).
  if (name === 'su' || name === 'runuser' || name === 'sg') {
    for (let k = 0; k < args.length; k++) {
      const v = args[k]!.value;
      if (v === null) continue;
      const shell = v.startsWith('-') && v !== '-' ? isShellOption(v, spec) : undefined;
      if (shell === 'attached')
        return { script: { ...args[k]!, value: v.startsWith('--') ? v.slice(v.indexOf('=') + 1) : v.slice(2) } };
      if (shell === 'next') return args[k + 1] ? { script: args[k + 1]! } : {};
    }
    if (name === 'runuser') {
      const u = args.findIndex((w) => w.value === '-u' || w.value === '--user');
      const rest = u >= 0 ? args.slice(u + 2).filter((w, j) => !(j === 0 && w.value === '--')) : [];
      if (rest.length) return { argv: rest };
    }
    return spec.shellWithoutCommand ? { interactiveShell: true } : {};
  }
  let i = 0;
  const assignments: Array<{ name: string; value: Word }> = [];
  /** Options (and their values) from `i`; `--` ends them. A result means the runner's command was found there. */
  const options = (): Unwrapped | undefined => {
    for (; i < args.length; i++) {
      const w = args[i]!;
      const v = w.value;
      if (v === null) return undefined;
      if (v === '--') {
        i++;
        return undefined;
      }
      if (!v.startsWith('-') || v === '-') return undefined;
      if (/^-\d+$/.test(v) && name === 'nice') continue;
      const shell = isShellOption(v, spec);
      if (shell === 'attached')
        return { script: { ...w, value: v.startsWith('--') ? v.slice(v.indexOf('=') + 1) : v.slice(2) } };
      if (shell === 'next') return args[i + 1] ? { script: args[i + 1]! } : {};
      if (matchesNoCommand(v, spec)) return {};
      if (v.startsWith('--')) {
        if (!v.includes('=') && spec.longValued?.some((l) => l === v)) i++;
        continue;
      }
      if (shortValueTaken(v, spec)) i++;
    }
    return undefined;
  };
  const early = options();
  if (early) return early;
  if (spec.assignments) {
    while (i < args.length && args[i]!.value !== null && /^[A-Za-z_][A-Za-z0-9_]*(%%)?=/.test(args[i]!.value!)) {
      const a = args[i]!;
      const eq = a.value!.indexOf('=');
      assignments.push({ name: a.value!.slice(0, eq), value: { ...a, value: a.value!.slice(eq + 1) } });
      i++;
    }
  }
  i += Math.min(spec.leading ?? 0, args.length - i);
  // `flock lockfile -c '…'`: options may follow the leading operands too.
  if (spec.leading) {
    const late = options();
    if (late) return late;
  }
  const rest = args.slice(i);
  if (spec.restIsScript) {
    if (!rest.length) return {};
    const known = rest.every((w) => w.value !== null);
    const first = rest[0]!;
    const last = rest[rest.length - 1]!;
    return {
      script: {
        value: known ? rest.map((w) => w.value).join(' ') : null,
        raw: rest.map((w) => w.raw).join(' '),
        start: first.start,
        end: last.end,
        glob: false,
      },
      ...(spec.remote ? { remote: true } : {}),
    };
  }
  if (!rest.length)
    return {
      ...(spec.shellWithoutCommand ? { interactiveShell: true } : {}),
      ...(assignments.length ? { assignments } : {}),
    };
  if (name === 'parallel') {
    const end = rest.findIndex((w) => w.value === ':::' || w.value === '::::' || w.value === ':::+');
    const cmd = end < 0 ? rest : rest.slice(0, end);
    if (cmd.length === 1 && cmd[0]!.value !== null && /\s/.test(cmd[0]!.value))
      return { script: cmd[0]!, operandsFromStdin: true };
    return { argv: cmd, operandsFromStdin: true };
  }
  return {
    argv: rest,
    ...(spec.operandsFromStdin ? { operandsFromStdin: true } : {}),
    ...(assignments.length ? { assignments } : {}),
  };
}
