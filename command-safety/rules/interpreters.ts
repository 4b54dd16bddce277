/**
 * Interpreters and the options that take inline code (group indirection): `python -c`, `node -e`,
 * `perl -e`, `php -r`/`-B`, `emacs --eval`, `guile -c`, `jshell` reading its input, … Inline code
 * is dangerous by itself (the gate cannot read every language), and shell commands inside it
 * (`os.system("…")`, backticks) are read as shell. A script file the command line itself wrote or
 * downloaded is inline code too.
 */
import type { Rule } from '../invocation.js';
import { inlineCode, stdinCode, unknownScriptFile } from './code.js';
import { ranDownloaded } from './downloads.js';
import { writtenText } from './written.js';

/** Interpreters and the options that take inline code. */
const INLINE: Record<string, { lang: string; options: RegExp; stdin?: boolean }> = {
  python: { lang: 'Python', options: /^-c/, stdin: true },
  node: { lang: 'JavaScript', options: /^(-e|-p|--eval|--print|-pe)$/, stdin: true },
  bun: { lang: 'JavaScript', options: /^(-e|-p|--eval|--print)$/ },
  deno: { lang: 'JavaScript', options: /^eval$/ },
  // A bundle of switches that take no value, then the code letter (`-lne`, `-wE`); `-MFile::Path=x`,
  // `-i.bak`, `-pie` (backup suffix "e") and `-rfileutils` are options with a value, not code.
  perl: { lang: 'Perl', options: /^-(?:[acnpsStTuUvwWX]|l[0-7]*|0[0-7]*)*[eE]/, stdin: true },
  ruby: { lang: 'Ruby', options: /^-(?:[acdlnpsvwy]|W[0-2]?)*e/, stdin: true },
  php: { lang: 'PHP', options: /^-[rBRE]$/, stdin: true },
  lua: { lang: 'Lua', options: /^-e$/, stdin: true },
  Rscript: { lang: 'R', options: /^-e$/ },
  R: { lang: 'R', options: /^-e$/ },
  julia: { lang: 'Julia', options: /^-e$/ },
  osascript: { lang: 'AppleScript', options: /^-e$/ },
  pwsh: { lang: 'PowerShell', options: /^-(c|command|e|ec|encodedcommand)$/i },
  tclsh: { lang: 'Tcl', options: /^$/, stdin: true },
  groovy: { lang: 'Groovy', options: /^-e$/ },
  elixir: { lang: 'Elixir', options: /^-e$/ },
  erl: { lang: 'Erlang', options: /^-eval$/ },
  bb: { lang: 'Clojure', options: /^-e$/ },
  clojure: { lang: 'Clojure', options: /^-e$/ },
  jshell: { lang: 'Java', options: /^$/, stdin: true },
  jrunscript: { lang: 'JavaScript', options: /^-e$/ },
  guile: { lang: 'Scheme', options: /^-c$/ },
  racket: { lang: 'Racket', options: /^-e$|^--eval$/ },
  sbcl: { lang: 'Lisp', options: /^--eval$/ },
  clisp: { lang: 'Lisp', options: /^-x$/ },
  ecl: { lang: 'Lisp', options: /^-eval$/ },
  emacs: { lang: 'Emacs Lisp', options: /^--?eval$|^--execute$/ },
  octave: { lang: 'Octave', options: /^--eval$/ },
  scala: { lang: 'Scala', options: /^-e$/ },
  kotlin: { lang: 'Kotlin', options: /^-e$/ },
  ghc: { lang: 'Haskell', options: /^-e$/ },
  runghc: { lang: 'Haskell', options: /^-e$/ },
  qjs: { lang: 'JavaScript', options: /^-e$|^--eval$/ },
  gjs: { lang: 'JavaScript', options: /^-c$/ },
  ipython: { lang: 'Python', options: /^-c$/ },
  wish: { lang: 'Tcl', options: /^$/, stdin: true },
  swipl: { lang: 'Prolog', options: /^-g$/ },
  crystal: { lang: 'Crystal', options: /^eval$/ },
};

export function interpreterOf(name: string): (typeof INLINE)[string] | undefined {
  if (/^python[\d.]*$|^pypy[\d.]*$/.test(name)) return INLINE.python;
  if (name === 'nodejs') return INLINE.node;
  if (name === 'powershell') return INLINE.pwsh;
  if (/^lua(jit|[\d.]+)?$/.test(name)) return INLINE.lua;
  if (/^perl[\d.]*$/.test(name)) return INLINE.perl;
  if (/^ruby[\d.]*$/.test(name)) return INLINE.ruby;
  if (/^php[\d.]*$/.test(name)) return INLINE.php;
  return INLINE[name];
}

export const interpreter: Rule = (inv, ctx) => {
  const spec = interpreterOf(inv.name)!;
  const args = inv.args;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) {
      unknownScriptFile(inv, ctx, args[i]!, 'a script');
      return;
    }
    if (!v.startsWith('-') && !(inv.name === 'deno' && v === 'eval')) {
      // `deno run -A https://…`, `bun run ./x.ts`: the script is the first operand after the subcommand.
      const script =
        (inv.name === 'deno' || inv.name === 'bun') && v === 'run'
          ? args.slice(i + 1).find((w) => w.value === null || !w.value.startsWith('-'))
          : args[i]!;
      if (script && /^https?:/.test(script.value ?? ''))
        ctx.add(inv, {
          group: 'indirection',
          rule: 'pipe_to_shell',
          reason: 'runs code downloaded from the network',
          at: [inv.word, script],
        });
      if (v === '-' && spec.stdin) return stdinCode(inv, ctx, spec.lang);
      ranDownloaded(inv, ctx, script?.value ?? null);
      const written = writtenText(ctx, script?.value ?? null, inv.cmd.cwd);
      if (written !== undefined) inlineCode(inv, ctx, spec.lang, { ...script!, value: written });
      return; // a script file (or module) of the project
    }
    if (v === '-m' && spec === INLINE.python) return; // a module
    const option = spec.options.exec(v);
    if (option) {
      // The code is the rest of the option (`-cCODE`, `-e'…'`) or the next word.
      const attached = v.slice(option[0].length);
      const code = attached ? { ...args[i]!, value: attached } : args[i + 1];
      if (code) inlineCode(inv, ctx, spec.lang, code);
      return;
    }
  }
  if (spec.stdin) stdinCode(inv, ctx, spec.lang);
};
