/**
 * Programs with a command language of their own that reaches the shell (group indirection, and
 * exfiltrate for debuggers): editors' ex commands (`vim -c ':!…'`, `:shell`, `:py3 …`), line
 * programs that run `!cmd` lines of their input (ed, dc, ftp, sftp), and debuggers (`gdb -ex
 * 'shell …'`, `-ex 'python …'`, `lldb -o 'platform shell …'`) — which also read a running
 * process's memory when they attach to it (`gdb -p PID`, `gcore`).
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import type { Word } from '../shell.js';
import { inlineCode, unreadableCode } from './code.js';
import { literalInput } from './literal-text.js';

/** An ex command (vim `-c`, `+…`, or a line ed/ex reads): what it runs, if anything. */
function exCommand(inv: Invocation, ctx: RuleContext, at: Word, text: string): void {
  // `:set shell=/bin/sh|:shell`: a bar separates commands (`!` takes the rest of the line).
  const parts: string[] = [];
  let rest = text;
  while (rest) {
    const bang = /^\s*:*\s*(?:[\d.$,%]*\s*)?(?:r(?:ead)?|w(?:rite)?)?\s*!/.exec(rest);
    if (bang) {
      parts.push(rest);
      break;
    }
    const bar = rest.indexOf('|');
    parts.push(bar < 0 ? rest : rest.slice(0, bar));
    rest = bar < 0 ? '' : rest.slice(bar + 1);
  }
  for (const part of parts) {
    const cmd = part.replace(/^\s*:*\s*/, '');
    const bang = /^(?:[\d.$,%]*\s*)?(?:r(?:ead)?|w(?:rite)?)?\s*!(.*)$/s.exec(cmd);
    const code = /^(py3?|python3?|pyx?|pythonx|lua|luado|perl|perldo|ruby|rubydo|rub|tcl|mz|mzscheme)\b\s*(.*)$/s.exec(
      cmd,
    );
    const say = (rule: string, reason: string) =>
      ctx.add(inv, { group: 'indirection', rule, reason, at: [inv.word, at] });
    if (bang) {
      say('inline_interpreter', `${inv.name} runs a shell command`);
      if (bang[1]!.trim()) ctx.script(inv, { ...at, value: bang[1]! }, `${inv.name} runs a command`);
    } else if (/^(sh|she|shel|shell|ter|term|termi|termin|termina|terminal)\b/.test(cmd))
      say('shell_escape', `${inv.name} opens a shell (:${cmd.split(/\s/)[0]})`);
    else if (code) say('inline_interpreter', `${inv.name} runs inline ${code[1]} code`);
    else if (
      /\b(system|systemlist|jobstart|job_start|term_start|termopen)\s*\(|^(exe|exec|execute|so|source|runtime)\b/.test(
        cmd,
      )
    )
      say('inline_interpreter', `${inv.name} runs a command or script it builds`);
  }
}

/** Editors that run ex commands from the command line: `vim -c ':!rm …'`, `ex -sc '!…'`, `+'!…'`. */
const editor: Rule = (inv, ctx) => {
  const a = inv.args;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!.value;
    let cmd: Word | undefined;
    if (v === '-c' || v === '--cmd' || (v !== null && /^-[a-zA-Z]*c$/.test(v))) cmd = a[i + 1];
    else if (v?.startsWith('+')) cmd = { ...a[i]!, value: v.slice(1) };
    if (!cmd) continue;
    if (cmd.value === null) {
      unreadableCode(inv, ctx, cmd, `${inv.name} runs editor commands only known at run time`);
      continue;
    }
    exCommand(inv, ctx, cmd, cmd.value);
  }
  // In ex mode (`ex`, `vim -e`, `vim -es`) the input is commands, not the text to edit.
  if (inv.name === 'ex' || a.some((w) => /^-[a-zA-Z]*[eE]/.test(w.value ?? ''))) lineCommands(inv, ctx);
};

/**
 * Line-oriented programs that run a shell command for a line starting with `!`, read on standard
 * input: ed, ex, dc, ftp, sftp, bc-style calculators, gdb's `shell`, … (`printf '!sh\n' | ed`).
 */
function lineCommands(inv: Invocation, ctx: RuleContext): void {
  const s = inv.cmd.stdin;
  if (!s || s.kind === 'file') return;
  const text = literalInput(inv.cmd);
  if (text === null) {
    if (s.kind === 'text' || (s.kind === 'pipe' && s.from.length))
      ctx.add(inv, {
        group: 'indirection',
        rule: 'stdin_script',
        reason: `${inv.name} runs commands read from input only known at run time`,
      });
    return;
  }
  const at: Word = { ...inv.word, value: text };
  for (const line of text.split('\n')) {
    if (/^\s*!/.test(line) || (['ex', 'vi', 'vim', 'nvim'].includes(inv.name) && /^\s*:/.test(line)))
      exCommand(inv, ctx, at, line);
    else if (/^(gdb|lldb)$/.test(inv.name)) debuggerCommand(inv, ctx, at, line);
  }
}

/** ed, dc, ftp: `!cmd` on a line of their input runs a shell command. */
const bangReader: Rule = (inv, ctx) => lineCommands(inv, ctx);

/**
 * Debuggers: their command options run debugger commands, some of which run shell commands
 * (`gdb -ex 'shell …'`, `lldb -o 'platform shell …'`) or Python (`-ex 'python …'`, `-o 'script …'`);
 * attaching to a running process (`gdb -p PID`, `gcore`) reads its memory, secrets and all.
 */
const DEBUGGER_OPTIONS: Record<string, { commands: RegExp; attach: RegExp }> = {
  gdb: { commands: /^--?(ex|eval-command|iex|init-eval-command)$/, attach: /^(-p|--pid|-c|--core)$/ },
  lldb: {
    commands: /^(-o|--one-line|-O|--one-line-before-file|-k|--one-line-on-crash)$/,
    attach: /^(-p|--attach-pid|-n|--attach-name|-w|--wait-for)$/,
  },
};

const debugger_: Rule = (inv, ctx) => {
  const spec = DEBUGGER_OPTIONS[inv.name]!;
  const a = inv.args;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!.value;
    if (v === null) continue;
    if (spec.attach.test(v) && !/^(-c|--core)$/.test(v))
      ctx.add(inv, {
        group: 'exfiltrate',
        rule: 'process_memory',
        reason: `${inv.name} attaches to a running process (reads its memory)`,
        at: [inv.word, a[i], a[i + 1]],
      });
    const eq = v.indexOf('=');
    const text = spec.commands.test(v)
      ? a[i + 1]
      : eq > 0 && spec.commands.test(v.slice(0, eq))
        ? { ...a[i]!, value: v.slice(eq + 1) }
        : undefined;
    if (!text) continue;
    if (text.value === null) {
      unreadableCode(inv, ctx, text, `${inv.name} runs debugger commands only known at run time`);
      continue;
    }
    debuggerCommand(inv, ctx, text, text.value);
  }
  if (inv.args.some((w) => w.value === 'attach'))
    ctx.add(inv, { group: 'exfiltrate', rule: 'process_memory', reason: `${inv.name} attaches to a running process` });
  lineCommands(inv, ctx);
};

function debuggerCommand(inv: Invocation, ctx: RuleContext, at: Word, text: string): void {
  const shell = /^\s*(?:shell|!|platform\s+shell|pipe\s+[^|]*\||\|[^|]*\|)\s*(.*)$/s.exec(text);
  const python = /^\s*(?:python|py|pi|python-interactive|script)\b\s*(.*)$/s.exec(text);
  if (shell) {
    ctx.add(inv, {
      group: 'indirection',
      rule: 'inline_interpreter',
      reason: `${inv.name} runs a shell command`,
      at: [inv.word, at],
    });
    ctx.script(inv, { ...at, value: shell[1]! }, `${inv.name} runs a command`);
  } else if (python) inlineCode(inv, ctx, 'Python', { ...at, value: python[1]! });
  else if (/^\s*(gcore|generate-core-file|dump\s+memory|attach)\b/.test(text))
    ctx.add(inv, {
      group: 'exfiltrate',
      rule: 'process_memory',
      reason: `${inv.name} dumps or attaches to a process's memory`,
      at: [inv.word, at],
    });
}

/** `less '+!cmd' f`: a pager's initial commands (`+…`), where `!` runs a shell command. */
const pager: Rule = (inv, ctx) => {
  for (const w of inv.args) {
    if (w.value === null) {
      if (w.raw.startsWith('+') || /^['"]\+/.test(w.raw))
        unreadableCode(inv, ctx, w, `${inv.name} runs initial commands only known at run time`);
      continue;
    }
    const bang = /^\+[^!]*!(.*)$/s.exec(w.value);
    if (!bang) continue;
    ctx.add(inv, {
      group: 'indirection',
      rule: 'inline_interpreter',
      reason: `${inv.name} runs a shell command from its initial commands`,
      at: [inv.word, w],
    });
    ctx.script(inv, { ...w, value: bang[1]! }, `${inv.name} +!`);
  }
};

export const CONSOLE_RULES: Record<string, Rule> = {
  less: pager,
  more: pager,
  most: pager,
  vim: editor,
  vi: editor,
  nvim: editor,
  ex: editor,
  view: editor,
  gvim: editor,
  ed: bangReader,
  red: bangReader,
  dc: bangReader,
  ftp: bangReader,
  sftp: bangReader,
  tnftp: bangReader,
  gdb: debugger_,
  lldb: debugger_,
  gcore: (inv, ctx) =>
    ctx.add(inv, {
      group: 'exfiltrate',
      rule: 'process_memory',
      reason: 'gcore dumps the memory of a running process',
    }),
};
