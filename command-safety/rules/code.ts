/**
 * Code the command line hands to something else to run (group indirection): `sh -c '…'`, `eval`,
 * `source`, `trap`, `alias`, scripts piped or fed into a shell, inline code for interpreters
 * (`python -c`, `node -e`, `perl -e`, …), vim's `:!` (awk, sed, make and the options that take a
 * command are in command-languages.ts; downloaded files in downloads.ts). Literal shell
 * text is read recursively, so `bash -c 'rm -rf /'` is as hardline as `rm -rf /`; text that is
 * only known at run time, downloaded or decoded, cannot be read and is dangerous. Fork bombs, in
 * any of their spellings the gate can see, are hardline.
 */
import { isInitLine, isInitSubstitution, printsOnly, substitutesOnly } from './workspace-work.js';
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { operands, optionValue } from '../options.js';
import type { Word } from '../shell.js';
import { DOWNLOADERS, ranDownloaded, stdinProducers } from './downloads.js';
import { COMMAND_OPTIONS, awk, commandOption, coproc, make, parallel, sed } from './command-languages.js';
import { literalOutput, nameOf } from './literal-text.js';
import { decodedStdout } from './decoded-text.js';
import { interpreter, interpreterOf } from './interpreters.js';
import { writtenText } from './written.js';
import { codeDeletesRoot } from './code-deletes.js';

/** Editors and pagers that are plain, well-known programs (`EDITOR=vim git commit`, `GIT_SEQUENCE_EDITOR=:`). */
export const PLAIN_PROGRAM =
  /^(cat|less( -[A-Za-z]+)?|more|vim?|nvim|nano|emacs|code( --wait)?|true|:|most|bat|delta)$/;

export const SHELLS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'lksh',
  'oksh',
  'fish',
  'ash',
  'yash',
  'posh',
  'tcsh',
  'csh',
  'rbash',
]);

/** Programs that decode or transform text: what they write into a shell cannot be read from the command line. */
const DECODERS = new Set([
  'base64',
  'base32',
  'basenc',
  'xxd',
  'uudecode',
  'gunzip',
  'zcat',
  'gzip',
  'bunzip2',
  'bzcat',
  'xz',
  'xzcat',
  'unxz',
  'zstd',
  'zstdcat',
  'rev',
  'tr',
  'openssl',
  'od',
  'perl',
  'python',
  'python3',
  'sed',
  'awk',
  'printf',
]);

/** Whatever a command reads as a script on standard input (a shell or interpreter with no script of its own). */
export function stdinCode(inv: Invocation, ctx: RuleContext, lang: string): void {
  const s = inv.cmd.stdin;
  if (!s) return;
  const shell = lang === 'shell';
  if (s.kind === 'text') {
    if (s.text === null)
      return ctx.add(inv, {
        group: 'indirection',
        rule: 'dynamic_script',
        reason: `${inv.name} runs a script with expansions in it: cannot tell what it runs`,
      });
    if (shell) return ctx.script(inv, { ...inv.word, value: s.text }, `${inv.name} reads a script`);
    return inlineCode(inv, ctx, lang, { ...inv.word, value: s.text });
  }
  if (s.kind === 'file') return;
  const producers = stdinProducers(inv.cmd);
  if (producers.some((c) => DOWNLOADERS.has(nameOf(c)) && nameOf(c) !== 'git'))
    return ctx.add(inv, {
      group: 'indirection',
      rule: 'pipe_to_shell',
      reason: `${inv.name} runs code downloaded from the network`,
    });
  if (producers.some((c) => DECODERS.has(nameOf(c)) && !(nameOf(c) === 'printf' && literalOutput(c) !== null))) {
    ctx.add(inv, {
      group: 'indirection',
      rule: 'decoded_to_shell',
      reason: `${inv.name} runs decoded or transformed text: cannot tell what it runs`,
    });
    // Literal text decoded on the line (`echo cm0g… | base64 -d | sh`) is read as what it decodes to.
    const decoded = s.kind === 'pipe' ? producers.map((c) => decodedStdout(c)) : [];
    if (decoded.length && decoded.every((t): t is string => t !== null)) {
      const text = { ...inv.word, value: decoded.join('') };
      if (shell) ctx.script(inv, text, `${inv.name} runs decoded text`);
      else inlineCode(inv, ctx, lang, text);
    }
    return;
  }
  const texts = producers.map(literalOutput);
  if (s.kind === 'pipe' && producers.length && texts.every((t): t is string => t !== null)) {
    const text = { ...inv.word, value: texts.join('') };
    return shell ? ctx.script(inv, text, `${inv.name} reads a script`) : inlineCode(inv, ctx, lang, text);
  }
  ctx.add(inv, {
    group: 'indirection',
    rule: 'stdin_script',
    reason: `${inv.name} runs a script read from another command's output: cannot tell what it runs`,
  });
}

/** Shell commands inside interpreter code (`os.system("…")`, `execSync('…')`, backticks, Perl's and Ruby's `system "…"`), read as shell. */
const EMBEDDED =
  /\b(?:system|popen|exec|execSync|execFileSync|spawnSync|shell_exec|passthru|proc_open|getoutput|getstatusoutput|check_output|check_call|call|run|Popen|spawn|execute|exec_command)\s*\(\s*(?:\[\s*)?(?:f|r|b)?(["'`])((?:\\.|(?!\1).)*)\1|`([^`]+)`|%x\{([^}]*)\}|\bos\.system\s+(["'])((?:\\.|(?!\5).)*)\5|\b(?:system|exec)\s+(["'])((?:\\.|(?!\7).)*)\7/g;
/** `fork` in Perl/Ruby/Python (`os.fork`) and PHP (`pcntl_fork`). */
const FORK = String.raw`(?:\bpcntl_|\b)fork\b`;
const FORK_LOOP = new RegExp(
  String.raw`${FORK}[\s\S]{0,80}\b(?:while|loop|for)\b|\b(?:while\s*\(?\s*(?:1|true|True)\s*\)?|loop\s*(?:do|\{)|for\s*\(\s*;\s*;\s*\))[\s\S]{0,120}${FORK}|${FORK}\s*(?:\(\s*\))?\s*(?:while|until)\s+\S`,
);

/** `-Mmodule`, `-I dir`, `-d`: Perl loads code (a module from the workspace, a debugger) beside the inline text. */
const loadsPerlCode = (inv: Invocation) => inv.args.some((w) => w.value === null || /^-[a-zA-Z]*[MmId]/.test(w.value));

/** Code that opens a connection to a numbered port (`connect(4444,'203.0.113.66')`, `TCPSocket.new(h,4444)`). */
const REVERSE_SHELL_SOCKET =
  /\b(?:connect|createConnection|TCPSocket|fsockopen|IO::Socket::INET|socket\.create_connection|tcp\(\)|Socket\.new|net\.Dial)\b[^;]{0,120}?\b\d{2,5}\b/;
/** Code that starts a shell or runs what it receives. */
const REVERSE_SHELL_SPAWN =
  /\/bin\/(?:ba|z|da|k)?sh\b|\bcmd\.exe\b|\bpty\.spawn\b|\bio\.popen\b|\bos\.dup2\b|\bspawn\(\s*["'](?:sh|bash)["']|\bexec\s+["']?(?:\/bin\/)?(?:ba)?sh\b/;

export function inlineCode(inv: Invocation, ctx: RuleContext, lang: string, code: Word): void {
  if (code.value === null)
    return ctx.add(inv, {
      group: 'indirection',
      rule: 'dynamic_script',
      reason: `${inv.name} runs ${lang} code only known at run time`,
      at: [inv.word, code],
    });
  if (FORK_LOOP.test(code.value))
    ctx.add(inv, {
      level: 'hardline',
      group: 'system',
      rule: 'fork_bomb',
      reason: 'a fork bomb (processes forking in an endless loop)',
      at: [inv.word, code],
    });
  // A socket to an address and a shell or process spawn in one piece of code: a reverse shell.
  if (REVERSE_SHELL_SOCKET.test(code.value) && REVERSE_SHELL_SPAWN.test(code.value))
    ctx.add(inv, {
      level: 'hardline',
      group: 'exfiltrate',
      rule: 'reverse_shell',
      reason: `${lang} code connects a shell to a network socket (a reverse shell)`,
      at: [inv.word, code],
    });
  const deletes = codeDeletesRoot(code.value, inv.cmd.cwd);
  if (deletes)
    ctx.add(inv, {
      level: 'hardline',
      group: 'destroy_files',
      rule: 'delete_root',
      reason: `${lang} code deletes the root, a system folder or a home recursively (${deletes.slice(0, 60)})`,
      at: [inv.word, code],
    });
  // `«event aevtrrst»` is the raw Apple event for restart (rsdn: shut down, rlgo: log out).
  if (lang === 'AppleScript' && /\b(shut\s*down|restart|log\s*out)\b|aevt(rrst|rsdn|rlgo)/i.test(code.value))
    ctx.add(inv, {
      level: 'hardline',
      group: 'system',
      rule: 'shutdown',
      reason: 'asks macOS to shut down, restart or log out',
      at: [inv.word, code],
    });
  // `python3 -c 'print(1+2)'`, `node -e 'console.log(process.version)'`: pure names only, nothing to ask.
  if (
    printsOnly(lang, code.value, inv.cmd.cwd) ||
    (lang === 'Perl' && substitutesOnly(code.value) && !loadsPerlCode(inv))
  )
    return;
  ctx.add(inv, {
    group: 'indirection',
    rule: 'inline_interpreter',
    reason: `runs inline ${lang} code`,
    at: [inv.word, code],
  });
  for (const m of code.value.matchAll(EMBEDDED)) {
    const text = m[2] ?? m[3] ?? m[4] ?? m[6] ?? m[8];
    if (text && /[a-z]/.test(text))
      ctx.script(
        inv,
        { ...code, value: asShellText(text.replace(/\\(["'\\])/g, '$1')) },
        `${lang} code runs a shell command`,
      );
  }
}

/**
 * A command string as the interpreter hands it to the shell: the language's own spelling of an
 * environment variable or the home, interpolated into the string, read as the shell's
 * (`system("rm -rf $ENV{HOME}")` in Perl, `#{ENV['HOME']}` and `#{Dir.home}` in Ruby,
 * `${process.env.HOME}` and `${os.homedir()}` in a JavaScript template).
 */
function asShellText(text: string): string {
  return text
    .replace(/\$ENV\{\s*(["']?)(\w+)\1\s*\}/g, '$${$2}')
    .replace(
      /#\{\s*ENV(?:\[\s*(["'])(\w+)\1\s*\]|\.fetch\(\s*(["'])(\w+)\3\s*\))\s*\}/g,
      (_, _q, a, _r, b) => `\${${a ?? b}}`,
    )
    .replace(/#\{\s*Dir\.home\s*\}/g, '~')
    .replace(/\$\{\s*process\.env\.(\w+)\s*\}/g, '$${$1}')
    .replace(/\$\{\s*(?:require\(\s*["'](?:node:)?os["']\s*\)|os)\.homedir\(\s*\)\s*\}/g, '~');
}

const shell: Rule = (inv, ctx) => {
  const args = inv.args;
  let i = 0;
  let command = false;
  let fromStdin = false;
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) break;
    if (v === '--' || v === '-') {
      if (v === '--') i++;
      break;
    }
    if (/^[-+]o$|^-O$|^--(rcfile|init-file)$/.test(v)) {
      if (/^--(rcfile|init-file)$/.test(v))
        ctx.add(inv, {
          group: 'indirection',
          rule: 'shell_startup_file',
          reason: `${inv.name} runs ${v} first`,
          at: [args[i], args[i + 1]],
        });
      i++;
      continue;
    }
    // `bash --norc --noprofile -c …`: long options come before the short ones.
    if (/^--[a-z][a-z-]*$/.test(v)) continue;
    if (!/^[-+][A-Za-z]+$/.test(v)) break;
    if (v.startsWith('-') && v.includes('c')) command = true;
    if (v.startsWith('-') && v.includes('s')) fromStdin = true;
  }
  if (command) {
    const script = args[i];
    // find/xargs pasting `{}` into the script text runs each file name as code. A script that reads
    // them as its arguments (`sh -c 'jq empty "$1"' _ {}`) is the safe idiom, read below with "$1"
    // unknown, unless it writes over them (`> "$1"`, `-o "$1"`): every file found, rewritten.
    if (script && inv.operandsFromStdin && /\{\}|(?:>|\s-o\s*|--output[= ])\s*"?\$\{?[0-9@*]/.test(script.value ?? ''))
      ctx.add(inv, {
        group: 'indirection',
        rule: 'dynamic_script',
        reason: `${inv.name} -c runs text that arrives at run time`,
        at: [inv.word, script],
      });
    if (script) ctx.script(inv, script, `${inv.name} -c runs a command string`);
    else if (inv.operandsFromStdin) dynamicArguments(inv, ctx);
    return;
  }
  const file = args[i];
  if (file?.value) ranDownloaded(inv, ctx, file.value);
  if (!file && inv.operandsFromStdin) return dynamicArguments(inv, ctx);
  if (!file || fromStdin || file.value === '-' || file.value === '/dev/stdin' || file.value === '/proc/self/fd/0') {
    // `bash <&3`, `bash 0<&3`: a script read from a file descriptor the command line filled elsewhere.
    const fd = inv.cmd.redirects.find((r) => r.op === '<&' && (r.fd === null || r.fd === 0) && r.target?.value !== '0');
    if (fd)
      return ctx.add(inv, {
        group: 'indirection',
        rule: 'stdin_script',
        reason: `${inv.name} runs a script read from file descriptor ${fd.target?.raw ?? '?'}: cannot tell what it runs`,
      });
    if (!inv.cmd.stdin && !file) return interactiveShell(inv, ctx);
    return stdinCode(inv, ctx, 'shell');
  }
  if (file.value === null) return unknownScriptFile(inv, ctx, file, 'a script');
  if (/^\/dev\/fd\/\d+$|^\/proc\/self\/fd\/\d+$/.test(file.value))
    return ctx.add(inv, {
      group: 'indirection',
      rule: 'stdin_script',
      reason: `${inv.name} runs a script read from ${file.value}: cannot tell what it runs`,
      at: [inv.word, file],
    });
  runWrittenScript(inv, ctx, file);
};

/**
 * A shell with no script: interactive. As root (`sudo bash`, `sudo env /bin/sh`) it is a root
 * shell; started by another program (`find -exec /bin/sh \;`, vim's `:shell`) it is a way out of
 * whatever that program was allowed to do. In a container or on another machine it is neither.
 */
export function interactiveShell(inv: Invocation, ctx: RuleContext): void {
  if (inv.elsewhere) return;
  if (inv.asRoot)
    return ctx.add(inv, { group: 'system', rule: 'root_shell', reason: `opens a ${inv.name} shell as root` });
  if (inv.spawned)
    ctx.add(inv, {
      group: 'indirection',
      rule: 'shell_escape',
      reason: `starts an interactive ${inv.name} from inside another program`,
    });
}

/** `xargs git`, `xargs sh`: the subcommand or script itself arrives on standard input. */
export function dynamicArguments(inv: Invocation, ctx: RuleContext): void {
  ctx.add(inv, {
    group: 'indirection',
    rule: 'dynamic_arguments',
    reason: `${inv.name} gets its subcommand or script from input only known at run time`,
  });
}

const evalRule: Rule = (inv, ctx) => {
  if (!inv.args.length) return;
  // `eval "$(pyenv init -)"`: the documented rc-file line of a known tool.
  if (isInitLine(inv.args)) return;
  const known = inv.args.every((w) => w.value !== null);
  const first = inv.args[0]!;
  const last = inv.args[inv.args.length - 1]!;
  ctx.script(
    inv,
    {
      value: known ? inv.args.map((w) => w.value).join(' ') : null,
      raw: inv.args.map((w) => w.raw).join(' '),
      start: first.start,
      end: last.end,
      glob: false,
    },
    'eval',
    { sameShell: true },
  );
};

const source: Rule = (inv, ctx) => {
  const file = inv.args.find((w) => w.value === null || !w.value.startsWith('-'));
  if (!file) return;
  if (file.value === '/dev/stdin' || file.value === '/proc/self/fd/0' || file.value === '-')
    return stdinCode(inv, ctx, 'shell');
  if (file.value === null) {
    if (isInitSubstitution(file.raw)) return;
    return unknownScriptFile(inv, ctx, file, 'a file');
  }
  // `echo 'rm -rf ~' > x.sh; . x.sh`, `curl -o x.sh URL; source x.sh`: a file this line wrote or fetched.
  ranDownloaded(inv, ctx, file.value);
  runWrittenScript(inv, ctx, file);
};

/** Code a program will run that is only known at run time: the gate cannot read it, so it asks. */
export function unreadableCode(inv: Invocation, ctx: RuleContext, at: Word, reason: string): void {
  ctx.add(inv, { group: 'indirection', rule: 'dynamic_script', reason, at: [inv.word, at] });
}

/**
 * A script file only known at run time (`bash "$f"`, `source <(curl …)`): a process substitution
 * that downloads is code from the network; anything else cannot be read.
 */
export function unknownScriptFile(inv: Invocation, ctx: RuleContext, file: Word, what: string): void {
  if (/^<\(/.test(file.raw) && /\b(curl|wget|fetch|http|nc)\b/.test(file.raw))
    return ctx.add(inv, {
      group: 'indirection',
      rule: 'pipe_to_shell',
      reason: `${inv.name} runs code downloaded from the network`,
      at: [inv.word, file],
    });
  unreadableCode(inv, ctx, file, `${inv.name} runs ${what} only known at run time`);
  // `source <(echo 'rm -rf /lib')`: what the substitution prints, when it prints literal text, is the script.
  const printer = /^<\(([\s\S]*)\)$/.exec(file.raw);
  if (printer) ctx.script(inv, { ...file, value: `eval "$(${printer[1]})"` }, `${inv.name} runs what a command prints`);
}

/** A file this line wrote with text only known at run time, run as code. */
const writtenUnknown = (inv: Invocation, ctx: RuleContext, file: Word) =>
  unreadableCode(
    inv,
    ctx,
    file,
    `${inv.name} runs ${file.value}, which this command line wrote with text only known at run time`,
  );

/** A script file this command line wrote earlier: its text is read as the script; text only known at run time asks. */
function runWrittenScript(inv: Invocation, ctx: RuleContext, file: Word): void {
  const written = writtenText(ctx, file.value, inv.cmd.cwd);
  if (written === null) writtenUnknown(inv, ctx, file);
  else if (written !== undefined)
    // `.` and `source` run the file in this shell; `sh x.sh` in a new one (runWrittenScript serves both).
    ctx.script(inv, { ...file, value: written }, `${inv.name} runs ${file.value}`, {
      sameShell: inv.name === '.' || inv.name === 'source',
    });
}

/** Interpreters a `#!` line may name, by the language `inlineCode` reads. */
const SHEBANG_LANGS: ReadonlyArray<[RegExp, string]> = [
  [/^python[\d.]*$/, 'Python'],
  [/^(?:node|nodejs|bun|deno)$/, 'JavaScript'],
  [/^perl[\d.]*$/, 'Perl'],
  [/^ruby[\d.]*$/, 'Ruby'],
  [/^php[\d.]*$/, 'PHP'],
];

/**
 * `printf '…' > /tmp/w.sh && chmod +x /tmp/w.sh && /tmp/w.sh`: a program this command line wrote,
 * run by its path. Its text is read as the script it is (in the language its `#!` line names).
 */
export const runsWrittenProgram: Rule = (inv, ctx) => {
  if (!ctx.written.size || !inv.path.includes('/')) return;
  const file = { ...inv.word, value: inv.path };
  const text = writtenText(ctx, inv.path, inv.cmd.cwd);
  if (text === undefined) return;
  if (text === null) return writtenUnknown(inv, ctx, file);
  const interpreter = /^#!\s*(?:\S*\/)?(?:env\s+(?:-\S+\s+)*)?(?:\S*\/)?([\w.-]+)/.exec(text)?.[1] ?? 'sh';
  const lang = SHEBANG_LANGS.find(([re]) => re.test(interpreter))?.[1];
  if (lang) inlineCode(inv, ctx, lang, { ...file, value: text });
  else ctx.script(inv, { ...file, value: text }, `runs ${inv.path}, which this command line wrote`);
};

const trap: Rule = (inv, ctx) => {
  const a = inv.args.filter((w) => !/^-[lp]$/.test(w.value ?? ''));
  const handler = a[0];
  if (a.length >= 2 && handler && handler.value !== '-' && handler.value !== '')
    ctx.script(inv, handler, 'trap sets a handler', { sameShell: true });
};

const alias: Rule = (inv, ctx) => {
  for (const w of inv.args) {
    if (w.value === null) {
      unreadableCode(inv, ctx, w, 'alias defined from a value only known at run time');
      continue;
    }
    const eq = w.value.indexOf('=');
    if (eq > 0) {
      // Later commands named like the alias run its text (aliases.ts in classify expands them).
      ctx.aliases.set(w.value.slice(0, eq), { ...w, value: w.value.slice(eq + 1) });
      ctx.script(inv, { ...w, value: w.value.slice(eq + 1) }, 'alias');
    }
  }
};

/** `hash -p /tmp/evil ls`: the name now runs another program. `enable -f lib.so name`: a builtin from a library. */
const rebind: Rule = (inv, ctx) => {
  const a = inv.args.map((w) => w.value);
  if (inv.name === 'hash' && a.some((v) => v === null || /^-[a-zA-Z]*p/.test(v)))
    ctx.add(inv, {
      group: 'indirection',
      rule: 'command_rebind',
      reason: 'hash -p makes a command name run another program',
    });
  if (inv.name === 'enable' && a.some((v) => v === null || /^-[a-zA-Z]*f/.test(v)))
    ctx.add(inv, {
      group: 'indirection',
      rule: 'command_rebind',
      reason: 'enable -f loads a shell builtin from a shared library',
    });
};

/** Tools that compile and run a source file they are given (not covered by the interpreters above). */
const SOURCE_RUNNERS: Record<string, string> = {
  go: 'Go',
  tsx: 'TypeScript',
  'ts-node': 'TypeScript',
  esno: 'TypeScript',
  zx: 'JavaScript',
  java: 'Java',
  swift: 'Swift',
  kotlin: 'Kotlin',
  kotlinc: 'Kotlin',
  crystal: 'Crystal',
  nim: 'Nim',
  dotnet: 'C#',
  'dotnet-script': 'C#',
  runghc: 'Haskell',
  cargo: 'Rust',
};

/** `echo '…' > /tmp/t.go && go run /tmp/t.go`: running source this command line wrote is running inline code. */
export const runsWrittenFile: Rule = (inv, ctx) => {
  const lang = SOURCE_RUNNERS[inv.name];
  if (!lang || !ctx.written.size) return;
  for (const w of operands(inv.args)) {
    const text = writtenText(ctx, w.value, inv.cmd.cwd);
    if (text === undefined) continue;
    if (text === null) return writtenUnknown(inv, ctx, w);
    return inlineCode(inv, ctx, lang, { ...w, value: text });
  }
};

/** `expect -c 'spawn …'`: Tcl that starts programs. */
const expect: Rule = (inv, ctx) => {
  const code = optionValue(inv.args, 'c');
  if (code === undefined) return stdinCode(inv, ctx, 'Expect');
  ctx.add(inv, { group: 'indirection', rule: 'inline_interpreter', reason: 'runs inline Expect (Tcl) code' });
  for (const m of (code ?? '').matchAll(/\b(?:spawn|exec)\s+([^;\n]+)/g))
    ctx.script(inv, { ...inv.word, value: m[1]! }, 'expect spawns a program');
};

export const CODE_RULES: Record<string, Rule> = {
  ...Object.fromEntries(Object.keys(COMMAND_OPTIONS).map((n) => [n, commandOption])),
  expect,
  parallel,
  coproc,
  eval: evalRule,
  source,
  '.': source,
  trap,
  alias,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  busybox_awk: awk,
  sed,
  gsed: sed,
  make,
  gmake: make,
  hash: rebind,
  enable: rebind,
};

export function codeRuleFor(name: string): Rule | undefined {
  if (SHELLS.has(name)) return shell;
  if (interpreterOf(name)) return interpreter;
  return CODE_RULES[name];
}
