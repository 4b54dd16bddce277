/**
 * Programs whose own language or options run shell commands (group indirection): awk's `system()`
 * and command pipes, GNU sed's `e`, make's makefiles, `--eval` and `SHELL=`, `tar --to-command`,
 * `rsync -e`, `zip -TT`, GNU parallel's argument commands, `coproc`.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { editorWords } from '../table/destinations.js';
import { RULE_TABLE } from '../table/index.js';
import { optionValue, optionWords } from '../options.js';
import type { Word } from '../shell.js';
import { writtenText } from './written.js';

/** awk's `system()`, pipes to and from commands, and `getline` from a command run programs. */
export const awk: Rule = (inv, ctx) => {
  const args = inv.args;
  let program: Word | undefined;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) {
      program = args[i];
      break;
    }
    if (/^-(f|-file)$/.test(v) || v.startsWith('--file=')) return;
    if (/^-[vF]$|^--(assign|field-separator)$/.test(v)) {
      i++;
      continue;
    }
    if (v.startsWith('-') && v !== '-') continue;
    program = args[i];
    break;
  }
  if (!program) return;
  if (program.value === null)
    return ctx.add(inv, {
      group: 'indirection',
      rule: 'dynamic_script',
      reason: 'an awk program only known at run time',
      at: [inv.word, program],
    });
  const p = program.value;
  if (/\bsystem\s*\(|\|\s*getline|\|&|\b(?:print|printf)\b[^;{}]*\|\s*["\w$]/.test(p)) {
    ctx.add(inv, {
      group: 'indirection',
      rule: 'inline_interpreter',
      reason: 'the awk program runs shell commands',
      at: [inv.word, program],
    });
    for (const m of p.matchAll(
      /\bsystem\s*\(\s*"((?:\\.|[^"\\])*)"\s*\)|"((?:\\.|[^"\\])*)"\s*\|\s*getline|\|\s*"((?:\\.|[^"\\])*)"/g,
    )) {
      const text = m[1] ?? m[2] ?? m[3];
      if (text) ctx.script(inv, { ...program, value: text.replace(/\\(.)/g, '$1') }, 'awk runs a command');
    }
  }
  awkWrites(inv, ctx, program, p);
};

/**
 * `print … > FILE` and `printf … >> FILE` in an awk program write files (in a print statement `>`
 * is a redirection unless parenthesised). A quoted name is judged as any written path is (table/rows/writes.ts);
 * a name made from data (`FILENAME`, `$2`) may be any file the program reads or names.
 */
function awkWrites(inv: Invocation, ctx: RuleContext, program: Word, p: string): void {
  for (const m of p.matchAll(
    /\b(?:print|printf)\b(?:"(?:\\.|[^"\\])*"|\([^()]*\)|[^;{}"()])*?>>?\s*("(?:\\.|[^"\\])*"|[^\s;{}]+)/g,
  )) {
    const target = m[1]!;
    if (target.startsWith('"')) {
      const path = target.slice(1, -1).replace(/\\(.)/g, '$1');
      if (path !== '/dev/stdout' && path !== '/dev/stderr')
        RULE_TABLE.reportAny(inv, ctx, [{ ...program, value: path }]);
    } else
      ctx.add(inv, {
        group: 'destroy_files',
        rule: 'write_unknown_place',
        reason: `the awk program writes to files named by its data (${target})`,
        at: [inv.word, program],
      });
  }
}

/** GNU sed's `e` command and `s///e` flag run shell commands; `w file` writes one. */
export const sed: Rule = (inv, ctx) => {
  const { scripts } = editorWords(inv.args);
  for (const s of scripts) {
    if (s.value === null) continue;
    const e = /(?:^|[;\n{}])\s*(?:\d+|\$|\/(?:\\.|[^/])*\/)?\s*e(?:\s+(.*?))?(?:$|[;\n}])/m.exec(s.value);
    const flag = /(?:^|[;\n{}\s])s(.)(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gpIiMmw0-9]*e/.test(s.value);
    if (e || flag) {
      ctx.add(inv, {
        group: 'indirection',
        rule: 'inline_interpreter',
        reason: 'the sed script runs shell commands (e)',
        at: [inv.word, s],
      });
      if (e?.[1]) ctx.script(inv, { ...s, value: e[1] }, 'sed e runs a command');
    }
  }
};

export const make: Rule = (inv, ctx) => {
  const f = optionValue(inv.args, 'f', ['--file', '--makefile']);
  if (f === null)
    ctx.add(inv, {
      group: 'indirection',
      rule: 'dynamic_script',
      reason: 'make runs a makefile only known at run time',
    });
  if (optionWords(inv.args).some((o) => o.startsWith('--eval')))
    ctx.add(inv, { group: 'indirection', rule: 'inline_interpreter', reason: 'make --eval runs inline rules' });
  // `make SHELL=/tmp/x.sh`: every recipe runs through that program.
  const shellVar = inv.args.find((w) => /^(SHELL|\.SHELLFLAGS|MAKESHELL)=/.test(w.value ?? ''));
  if (shellVar)
    ctx.add(inv, {
      group: 'indirection',
      rule: 'code_in_environment',
      reason: 'make runs every recipe through another shell',
      at: [inv.word, shellVar],
    });
  const file = optionValue(inv.args, 'f', ['--file', '--makefile']);
  if (file && writtenText(ctx, file, inv.cmd.cwd) !== undefined)
    ctx.add(inv, {
      group: 'indirection',
      rule: 'exec_new_file',
      reason: `make runs the recipes of ${file}, which this command line wrote`,
    });
};

/** Tools with an option whose value is a shell command: `tar --to-command`, `rsync -e`, `zip -TT`, `gdb -ex 'shell …'`. */
export const COMMAND_OPTIONS: Record<string, RegExp> = {
  tar: /^(--to-command|--use-compress-program|-I|--rsh-command|--info-script|--new-volume-script|-F|--checkpoint-action)$/,
  zip: /^(-TT|--unzip-command)$/,
  rsync: /^(-e|--rsh|--rsync-path)$/,
  // `split --filter=CMD` pipes each piece into a shell command; sort runs its compressor program.
  split: /^--filter$/,
  sort: /^--compress-program$/,
  // `apt-get -o APT::Update::Pre-Invoke::=CMD update`: apt's hook settings are shell commands.
  apt: /^(-o|--option)$/,
  'apt-get': /^(-o|--option)$/,
};

/** apt settings whose value is a shell command apt runs (`DPkg::Pre-Invoke`, `APT::Update::Post-Invoke-Success`). */
const APT_HOOK = /^[\w:-]*(Invoke|Pre-Install-Pkgs)[\w:-]*=(.*)$/is;

export const commandOption: Rule = (inv, ctx) => {
  const re = COMMAND_OPTIONS[inv.name]!;
  const a = inv.args;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!.value;
    if (v === null) continue;
    let text: Word | undefined;
    const eq = v.indexOf('=');
    if (re.test(v)) text = a[i + 1];
    else if (eq > 0 && re.test(v.slice(0, eq))) text = { ...a[i]!, value: v.slice(eq + 1) };
    if (!text) continue;
    let value = text.value;
    if (value !== null && inv.name === 'tar' && /checkpoint-action/.test(v)) {
      if (!/^exec=/.test(value)) continue;
      value = value.slice(5);
    }
    if (value !== null && inv.name.startsWith('apt')) {
      const hook = APT_HOOK.exec(value);
      if (!hook) continue;
      value = hook[2]!;
    }
    // `rsync -e 'ssh -p 2222'`: the usual remote shell with its options is read, not asked about.
    if (!(inv.name === 'rsync' && value !== null && /^ssh(\s|$)/.test(value)))
      ctx.add(inv, {
        group: 'indirection',
        rule: 'inline_interpreter',
        reason: `${inv.name} runs a command from its options`,
        at: [inv.word, text],
      });
    ctx.script(inv, { ...text, value }, `${inv.name} runs a command`);
  }
};

/** GNU parallel with no command before `:::` runs its arguments as commands. */
export const parallel: Rule = (inv, ctx) => {
  const sep = inv.args.findIndex((w) => w.value === ':::' || w.value === '::::');
  if (sep < 0) return;
  const before = inv.args.slice(0, sep).filter((w) => w.value === null || !w.value.startsWith('-'));
  if (before.length) return;
  for (const w of inv.args.slice(sep + 1)) ctx.script(inv, w, 'parallel runs its arguments');
};

/** `coproc NAME { …; }`: tree-sitter reads it as words; the command is after the brace. */
export const coproc: Rule = (inv, ctx) => {
  const brace = inv.args.findIndex((w) => w.value === '{');
  const rest = brace >= 0 ? inv.args.slice(brace + 1).filter((w) => w.value !== '}') : inv.args;
  if (rest.length) ctx.nested(inv, rest);
};
