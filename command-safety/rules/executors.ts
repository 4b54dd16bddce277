/**
 * Programs that run other programs (group indirection, and whatever the command they run does):
 * `fd -x`, `docker run IMAGE cmd`, tmux and screen sessions and the keys sent to them, `repo forall
 * -c`, salt's `cmd.run`, `pdsh`, `run-parts`, `capsh --`, `entr` (xargs or parallel fed with literal
 * input: xargs.ts). The command they run is classified like any other; when it cannot be known,
 * that is dangerous.
 */
import type { Rule } from '../invocation.js';
import { operands, optionValue } from '../options.js';
import type { Word } from '../shell.js';
import { decodeAnsiC } from '../shell-expand.js';
import { interactiveShell } from './code.js';
import { synthetic, xargsSplit } from './xargs.js';

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

const FD_VALUED =
  /^(-e|--extension|-t|--type|-E|--exclude|-d|--max-depth|--min-depth|--exact-depth|-j|--threads|-S|--size|-c|--color|--owner|--changed-within|--changed-before|--max-results|--base-directory|--path-separator|--search-path|--ignore-file|--format|--batch-size)$/;

/**
 * `fd -e log -x rm`, `fd . ~ -X rm -rf`: the command after -x/-X runs on every path found under
 * the search paths — read with the first search path as its operand (`{}` or appended).
 */
const fd: Rule = (inv, ctx) => {
  const a = inv.args;
  const exec = a.findIndex((w) => /^(-x|--exec|-X|--exec-batch)$/.test(w.value ?? ''));
  if (exec < 0) return;
  const positional: Word[] = [];
  for (let i = 0; i < exec; i++) {
    const v = a[i]!.value;
    if (v !== null && v.startsWith('-')) {
      if (FD_VALUED.test(v)) i++;
      continue;
    }
    positional.push(a[i]!);
  }
  const root = positional[1] ?? synthetic(inv.word, '.');
  for (let i = exec; i < a.length; i++) {
    if (!/^(-x|--exec|-X|--exec-batch)$/.test(a[i]!.value ?? '')) continue;
    const end = a.findIndex((w, j) => j > i && w.value === ';');
    const argv = a.slice(i + 1, end < 0 ? undefined : end);
    const placed = argv.some((w) => /\{[/.]*\}/.test(w.value ?? ''))
      ? argv.map((w) => (w.value === '{}' ? { ...w, value: root.value } : w))
      : [...argv, root];
    if (argv.length) ctx.nested(inv, placed, { operandsFromStdin: true });
    if (end < 0) break;
    i = end;
  }
};

/** `docker run` options that take a value (so the image, and the command after it, are found). */
const CONTAINER_VALUED = new Set(
  [
    'a attach add-host annotation blkio-weight c cpu-shares cap-add cap-drop cgroup-parent cgroupns cidfile cpus cpuset-cpus',
    'cpuset-mems device device-cgroup-rule dns dns-option dns-search domainname e env env-file entrypoint expose gpus',
    'group-add h hostname health-cmd health-interval health-retries health-start-period health-timeout ip ip6 ipc',
    'isolation kernel-memory l label label-file link log-driver log-opt m memory memory-reservation memory-swap mac-address',
    'mount name network net network-alias p publish pid pids-limit platform pull restart runtime security-opt shm-size',
    'stop-signal stop-timeout storage-opt sysctl tmpfs u user ulimit userns uts v volume volume-driver volumes-from w workdir',
    'arch os variant pod secret env-merge hooks-dir init-path',
  ]
    .join(' ')
    .split(' ')
    .map((o) => (o.length === 1 ? `-${o}` : `--${o}`)),
);

/** The command a container is started with: `[--entrypoint X] IMAGE CMD…` after the run options. */
function containerCommand(args: readonly Word[]): { image?: Word; argv: Word[] } {
  let entrypoint: Word | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) return { argv: [] };
    if (v === '--') {
      i++;
      break;
    }
    if (!v.startsWith('-')) break;
    const [name, attached] = v.includes('=')
      ? [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)]
      : [v, undefined];
    if (name === '--entrypoint')
      entrypoint = attached !== undefined ? { ...args[i]!, value: attached } : (args[i + 1] ?? undefined);
    // Bundled short flags end with a valued one (`-it`, `-dp 80:80`).
    const last = name.startsWith('--') ? name : `-${name.slice(-1)}`;
    if (attached === undefined && CONTAINER_VALUED.has(last)) i++;
  }
  const image = args[i];
  const cmd = args.slice(i + 1);
  const ep = entrypoint;
  const entry = ep?.value ? xargsSplit(ep.value).map((t) => ({ ...ep, value: t })) : [];
  return { ...(image ? { image } : {}), argv: [...entry, ...cmd] };
}

/** `docker run --rm alpine sh -c '…'`, `docker compose run web cmd`: the command runs in the container. */
const containerRun: Rule = (inv, ctx) => {
  const a = inv.args;
  const at = a.findIndex((w) => w.value !== null && !w.value.startsWith('-'));
  if (at < 0) return;
  let sub = at;
  if (a[at]!.value === 'container' || a[at]!.value === 'compose') sub = at + 1;
  const verb = a[sub]?.value;
  if (verb !== 'run') return;
  if (a[at]!.value === 'compose') {
    // compose run [options] SERVICE CMD…: the service plays the image's part.
    const { argv } = containerCommand(a.slice(sub + 1));
    if (argv.length) ctx.nested(inv, argv, { elsewhere: true });
    return;
  }
  const { argv } = containerCommand(a.slice(sub + 1));
  if (argv.length) ctx.nested(inv, argv, { elsewhere: true });
};

/** tmux subcommands that start a shell command, with their options that take a value. */
const TMUX_STARTS: Record<string, string> = {
  'new-session': 'cefFnstxy',
  new: 'cefFnstxy',
  'new-window': 'cetFn',
  neww: 'cetFn',
  'split-window': 'celtFp',
  splitw: 'celtFp',
  'respawn-pane': 'cet',
  respawnp: 'cet',
  'respawn-window': 'cet',
  respawnw: 'cet',
  'run-shell': 'dt',
  run: 'dt',
  'display-popup': 'bcdehsStTwxy',
  popup: 'bcdehsStTwxy',
  'pipe-pane': 't',
  pipep: 't',
  'if-shell': 't',
  if: 't',
};

/** Key names tmux send-keys turns into keys rather than text. */
const TMUX_KEY = /^(Enter|KPEnter|C-m|C-j|Escape|Space|Tab|BSpace|Up|Down|Left|Right|Home|End|[CMS]-.)$/;

/** Operands after a tmux subcommand's options (`valued` letters take the next word). */
function tmuxOperands(args: Word[], valued: string): Word[] {
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null || !v.startsWith('-') || v === '-') break;
    if (v === '--') {
      i++;
      break;
    }
    if (valued.includes(v.slice(-1)) && v.length === 2) i++;
  }
  return args.slice(i);
}

const tmux: Rule = (inv, ctx) => {
  // `tmux new -d 'a' \; send-keys 'b' Enter`: commands separated by `;`.
  const groups: Word[][] = [[]];
  let k = 0;
  for (; k < inv.args.length; k++) {
    const v = inv.args[k]!.value;
    if (v === null || !v.startsWith('-')) break;
    if (/^-[LSfcT]$/.test(v)) k++;
  }
  for (const w of inv.args.slice(k)) {
    if (w.value === ';' || w.value === '\\;') groups.push([]);
    else groups[groups.length - 1]!.push(w);
  }
  // Bare `tmux` and `tmux new` without a command start the default shell.
  if (
    groups.every(
      (g) =>
        !g.length ||
        (TMUX_STARTS[g[0]!.value ?? ''] !== undefined && !tmuxOperands(g.slice(1), TMUX_STARTS[g[0]!.value!]!).length),
    )
  )
    interactiveShell(inv, ctx);
  for (const [verb, ...rest] of groups) {
    const name = verb?.value;
    if (!name) continue;
    if (name === 'send-keys' || name === 'send') {
      const keys = tmuxOperands(rest, 'NtX');
      if (keys.some((w) => w.value === null)) {
        ctx.add(inv, {
          group: 'indirection',
          rule: 'dynamic_script',
          reason: 'tmux types keys only known at run time',
        });
        continue;
      }
      const text = keys
        .map((w) =>
          /^(Enter|KPEnter|C-m|C-j)$/.test(w.value!)
            ? '\n'
            : w.value === 'Space'
              ? ' '
              : TMUX_KEY.test(w.value!)
                ? ''
                : w.value,
        )
        .join('');
      if (text.trim()) ctx.script(inv, { ...keys[0]!, value: text }, 'tmux types a command into a shell');
      continue;
    }
    const valued = TMUX_STARTS[name];
    if (valued === undefined) continue;
    const cmd = tmuxOperands(rest, valued);
    if (!cmd.length) continue;
    if (cmd.length === 1 || name === 'if-shell' || name === 'if')
      ctx.script(inv, cmd[0]!, `tmux ${name} runs a command`);
    else ctx.nested(inv, cmd);
  }
};

/** `screen -dmS x cmd…`, `screen -S dev -X stuff 'rm -rf build\n'`. */
const screen: Rule = (inv, ctx) => {
  const a = inv.args;
  let i = 0;
  let command = false;
  for (; i < a.length; i++) {
    const v = a[i]!.value;
    if (v === null || !v.startsWith('-')) break;
    if (/X$/.test(v)) command = true;
    if (/^-[a-zA-Z]*[SceEhpTtl]$/.test(v) && !/X$/.test(v)) i++;
  }
  const rest = a.slice(i);
  const reattach = a.some((w) => /^-[a-zA-Z]*[rRxl]|^-(ls|list|wipe|v|version)$/.test(w.value ?? ''));
  if (!rest.length) return command || reattach ? undefined : interactiveShell(inv, ctx);
  if (!command) return ctx.nested(inv, rest);
  const [verb, ...args] = rest;
  if (verb?.value === 'stuff') {
    const text = args[0];
    if (text)
      ctx.script(
        inv,
        { ...text, value: text.value === null ? null : decodeAnsiC(text.value) },
        'screen types a command',
      );
  } else if (verb?.value === 'exec' || verb?.value === 'screen') {
    const cmd = args.filter((w, j) => !(j === 0 && /^[.!:|]+$/.test(w.value ?? '')));
    if (cmd.length) ctx.nested(inv, cmd);
  }
};

/** `repo forall [projects] -c CMD…`: a command in every project. */
const repoTool: Rule = (inv, ctx) => {
  if (operands(inv.args)[0]?.value !== 'forall') return;
  const c = inv.args.findIndex((w) => w.value === '-c' || w.value === '--command');
  if (c < 0) return;
  const cmd = inv.args.slice(c + 1);
  if (cmd.length === 1) ctx.script(inv, cmd[0]!, 'repo forall runs a command in every project');
  else if (cmd.length) ctx.nested(inv, cmd);
};

/** salt's execution modules: `cmd.run` runs a shell command on every targeted minion. */
const SALT_READS =
  /^(test\.|grains\.|pillar\.|sys\.|saltutil\.(sync|refresh)|[\w]+\.(list|get|show|info|status|ls|version|items|item|ping|doc)\w*$)/;

const salt: Rule = (inv, ctx) => {
  const ops = operands(inv.args);
  // `salt TARGET FUNC ARGS…`, `salt-call FUNC ARGS…`, `salt-ssh TARGET FUNC …`.
  const fnAt = inv.name === 'salt-call' ? 0 : 1;
  const fn = ops[fnAt];
  if (!fn) return;
  if (fn.value === null)
    return ctx.add(inv, {
      group: 'indirection',
      rule: 'dynamic_command',
      reason: 'salt runs a function only known at run time',
    });
  if (/^cmd\.(run|shell|run_all|run_stdout|run_stderr|retcode|script|exec_code|powershell|run_bg)$/.test(fn.value)) {
    const cmd = ops[fnAt + 1];
    ctx.add(inv, {
      group: 'indirection',
      rule: 'remote_command',
      reason: `salt ${fn.value} runs a shell command on every targeted machine`,
    });
    if (cmd) ctx.script(inv, cmd, `salt ${fn.value}`, { elsewhere: true });
    return;
  }
  if (!SALT_READS.test(fn.value))
    ctx.add(inv, {
      group: 'destroy_infrastructure',
      rule: 'config_apply',
      reason: `salt ${fn.value} changes every targeted machine`,
      at: [inv.word, fn],
    });
};

/** pdsh, clush, pssh: one shell command on many machines; their short options that take a value (`pssh -i`, `-P` and `pdsh -N` are flags). */
const MULTI_SSH: Record<string, string> = {
  pdsh: 'wxgRlutf',
  clush: 'wxgXlFtuf',
  pssh: 'hHlpotxOeI',
  'parallel-ssh': 'hHlpotxOeI',
};

const multiSsh: Rule = (inv, ctx) => {
  const valued = MULTI_SSH[inv.name]!;
  let i = 0;
  const a = inv.args;
  for (; i < a.length; i++) {
    const v = a[i]!.value;
    if (v === null || !v.startsWith('-')) break;
    if (v.length === 2 && valued.includes(v[1]!)) i++;
    else if (v.startsWith('--') && !v.includes('=')) i++;
  }
  const rest = a.slice(i);
  if (!rest.length) return;
  const known = rest.every((w) => w.value !== null);
  ctx.script(
    inv,
    {
      value: known ? rest.map((w) => w.value).join(' ') : null,
      raw: rest.map((w) => w.raw).join(' '),
      start: rest[0]!.start,
      end: rest[rest.length - 1]!.end,
      glob: false,
    },
    `${inv.name} runs a command on many machines`,
    { elsewhere: true },
  );
};

/** `run-parts DIR`: every program in a folder, whatever they are. */
const runParts: Rule = (inv, ctx) => {
  if (inv.args.some((w) => /^--(test|list)$/.test(w.value ?? ''))) return;
  ctx.add(inv, {
    group: 'indirection',
    rule: 'runs_directory',
    reason: 'run-parts runs every program in a folder: cannot tell what they do',
  });
};

/** `capsh … -- ARGS`: runs `bash ARGS` (with the capabilities it set up). */
const capsh: Rule = (inv, ctx) => {
  const dashes = inv.args.findIndex((w) => w.value === '--');
  if (dashes < 0) return;
  const shellOpt = inv.args.find((w) => w.value?.startsWith('--shell='))?.value?.slice(8);
  ctx.nested(inv, [synthetic(inv.args[dashes]!, shellOpt ?? '/bin/bash'), ...inv.args.slice(dashes + 1)]);
};

/** `entr cmd…` runs the command on every change; `entr -s 'text'` runs text through the shell. */
const entr: Rule = (inv, ctx) => {
  let i = 0;
  let shellText = false;
  for (; i < inv.args.length; i++) {
    const v = inv.args[i]!.value;
    if (v === null || !v.startsWith('-')) break;
    if (v.includes('s')) shellText = true;
  }
  const rest = inv.args.slice(i);
  if (!rest.length) return;
  if (shellText) ctx.script(inv, rest[0]!, 'entr -s');
  else ctx.nested(inv, rest);
};

/** Task runners that take a command string: `nodemon --exec 'cmd'`, `watchexec 'cmd'`, `hyperfine 'a' 'b'`, `concurrently 'a' 'b'`. */
const commandStrings: Rule = (inv, ctx) => {
  const a = inv.args;
  if (inv.name === 'nodemon') {
    const exec = optionValue(a, 'x', ['--exec']);
    if (exec !== undefined) ctx.script(inv, { ...inv.word, value: exec }, 'nodemon --exec');
    return;
  }
  if (inv.name === 'watchexec') {
    const dashes = a.findIndex((w) => w.value === '--');
    const cmd = dashes >= 0 ? a.slice(dashes + 1) : operands(a).slice(-1);
    if (cmd.length === 1) ctx.script(inv, cmd[0]!, 'watchexec');
    else if (cmd.length) ctx.nested(inv, cmd);
    return;
  }
  // hyperfine and concurrently: every operand is a command line (options with values are skipped).
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!.value;
    if (v !== null && v.startsWith('-')) {
      if (
        /^(-n|--names|-c|--prefix-colors|-p|--prefix|-r|--runs|-w|--warmup|-m|--min-runs|-M|--max-runs|--export-\w+|-S|--shell|--prepare|--cleanup|-L|--parameter-list|-P|--parameter-scan|--setup|--conclude|-k|--kill-signal|--max-processes|--restart-tries|--restart-after|--timings|--handle-input|--default-input-target|-s|--success)$/.test(
          v,
        )
      ) {
        if (/^(--prepare|--cleanup|--setup|--conclude)$/.test(v) && a[i + 1])
          ctx.script(inv, a[i + 1]!, `${inv.name} ${v}`);
        i++;
      }
      continue;
    }
    // `concurrently "npm:watch-*"`: a package script (or several), by name.
    if (inv.name === 'concurrently' && /^(npm|yarn|pnpm|bun):/.test(a[i]!.raw.replace(/^["']/, ''))) continue;
    ctx.script(inv, a[i]!, `${inv.name} runs a command`);
  }
};

/** `java -jar bfg-1.14.0.jar …`: the jar is a tool, named by its file (`bfg`), judged as that tool. */
const javaJar: Rule = (inv, ctx) => {
  const j = inv.args.findIndex((w) => w.value === '-jar');
  const jar = inv.args[j + 1];
  if (j < 0 || !jar?.value) return;
  const m = /^([A-Za-z][\w]*(?:-[A-Za-z][\w]*)*?)(?:[-_]v?\d[\w.-]*)?(?:-all|-with-dependencies)?\.jar$/.exec(
    basename(jar.value),
  );
  if (m) ctx.nested(inv, [synthetic(jar, m[1]!.toLowerCase()), ...inv.args.slice(j + 2)]);
};

/** `cmd.exe /c …` (under WSL): a Windows command line the gate cannot read. */
const windowsShell: Rule = (inv, ctx) => {
  if (inv.args.some((w) => /^\/[ckCK]$/.test(w.value ?? '') || w.value === null))
    ctx.add(inv, {
      group: 'indirection',
      rule: 'foreign_shell',
      reason: 'cmd.exe runs a Windows command line the gate cannot read',
    });
};

export const EXECUTOR_RULES: Record<string, Rule> = {
  java: javaJar,
  cmd: windowsShell,
  fd,
  fdfind: fd,
  docker: containerRun,
  podman: containerRun,
  nerdctl: containerRun,
  tmux,
  screen,
  repo: repoTool,
  salt,
  'salt-call': salt,
  'salt-ssh': salt,
  ...Object.fromEntries(Object.keys(MULTI_SSH).map((n) => [n, multiSsh])),
  'run-parts': runParts,
  capsh,
  entr,
  nodemon: commandStrings,
  watchexec: commandStrings,
  hyperfine: commandStrings,
  concurrently: commandStrings,
};
