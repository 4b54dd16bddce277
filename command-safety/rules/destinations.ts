/**
 * Classes of harm that cut across tools, read from the shape of a command rather than its name
 * (an output option is a write: table/destinations.ts; installing from a URL or into a user or
 * global location is a row: table/rows/installs.ts); emptying files only known at run time (a loop variable, `find -exec`,
 * `xargs`) destroys many; a program told to read code from standard input or a file the gate cannot
 * read asks.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { operands } from '../options.js';
import { placeOf } from '../paths.js';
import type { Word } from '../shell.js';
import { editorWords } from '../table/destinations.js';
import { writtenText } from './written.js';

/** In-place editors, and the scripts that leave nothing of what they edit. */
const IN_PLACE_EDITORS: ReadonlyArray<{ name: RegExp; inPlace: RegExp; wipes: RegExp }> = [
  {
    // Every line deleted (`d`, `1,$d`, `/.*/d`) or replaced whole (`s/^.*$/x/`).
    name: /^g?sed$/,
    inPlace: /^-[a-zA-Z]*i|^--in-place/,
    wipes: /^\s*((\d+|\$)?\s*,?\s*(\d+|\$)?\s*d|\/\.\*\/d|\/\^\/d|s(.)\^?\.\*\$?\4(?:\\.|(?!\4).)*\4g?)\s*$/,
  },
  {
    // Each line or the whole file (`-0`, `-0777`) replaced by what the script puts in `$_`: `s/.*//s`, `$_ = ""`.
    name: /^perl[\d.]*$/,
    inPlace: /^-\w*i/,
    wipes: /^\s*(s(.)\^?\.[*+]\$?\2(?:\\.|(?!\2).)*\2[gsmxe]*|\$_\s*=\s*(""|''|q\(\)|undef)|undef\s*\$_)\s*;?\s*$/,
  },
];

function massTruncate(inv: Invocation, ctx: RuleContext): void {
  ctx.add(inv, {
    group: 'destroy_files',
    rule: 'mass_truncate',
    reason: `${inv.name} empties files only known at run time`,
  });
}

/** Emptying or shredding many files only known at run time: `find -exec truncate`, `xargs truncate`, `sed -i d`. */
export const emptiesMany: Rule = (inv, ctx) => {
  // A link made earlier in the line: later paths may lead through it (see the generated-folder cleanup).
  if (
    inv.name === 'ln' ||
    (inv.name === 'cp' && inv.args.some((w) => /^-[a-zA-Z]*s|^--symbolic-link$/.test(w.value ?? '')))
  )
    ctx.facts.set('linked', new Set(['yes']));
  const many = inv.operandsFromStdin || inv.spawned;
  if (inv.name === 'truncate' && many) return massTruncate(inv, ctx);
  if (/^(cp|dd|mv)$/.test(inv.name) && inv.args.some((w) => /^(if=)?\/dev\/(null|zero)$/.test(w.value ?? ''))) {
    // `for f in $(ls); do cp /dev/null "$f"; done`: a destination only known at run time is many files.
    const dest = inv.args[inv.args.length - 1];
    if (many || dest?.value === null || (/\$/.test(dest?.raw ?? '') && /[*?[]/.test(dest?.value ?? '')))
      return massTruncate(inv, ctx);
  }
  const editor = IN_PLACE_EDITORS.find((e) => e.name.test(inv.name));
  if (
    editor &&
    inv.args.some((w) => editor.inPlace.test(w.value ?? '')) &&
    editorWords(inv.args).scripts.some((s) => editor.wipes.test(s.value ?? ''))
  )
    massTruncate(inv, ctx);
};

/**
 * `: > "$f"`, `> "$0"`, `echo > $f`: a command whose only effect is to empty a file named at run
 * time — the shape of `for f in *; do : > "$f"; done` and `find -exec sh -c ': > "$0"' {} \;`.
 */
export function emptiesUnknownFile(inv: Invocation, ctx: RuleContext): void {
  const words = inv.cmd.words.map((w) => w.value);
  const nothing =
    words.length === 0 ||
    (words.length === 1 && /^(:|true|echo|printf)$/.test(words[0] ?? '')) ||
    (words.length === 2 && /^(echo|printf|cat)$/.test(words[0] ?? '') && /^(|-n|\/dev\/null)$/.test(words[1] ?? 'x'));
  if (!nothing) return;
  const target = inv.cmd.redirects.find(
    (r) =>
      /^(>|>\||&>)$/.test(r.op) &&
      (r.fd === null || r.fd === 1) &&
      (r.target?.value === null ||
        r.target?.glob === true ||
        (/\$/.test(r.target?.raw ?? '') && /[*?[]/.test(r.target?.value ?? ''))),
  );
  if (target)
    ctx.add(inv, {
      group: 'destroy_files',
      rule: 'mass_truncate',
      reason: 'empties a file only known at run time (a loop or a spawned shell over many files)',
      at: [target.target ?? undefined],
    });
}

/**
 * `make -f -`, `make -f /dev/stdin`: a makefile from standard input; `man -P CMD`: a pager command;
 * `psql -f x.sql`, `mysql db < x.sql`: SQL the gate cannot read (unless this line wrote it).
 */
export const codeFromElsewhere: Rule = (inv, ctx) => {
  const a = inv.args;
  const vals = a.map((w) => w.value);
  // `xargs -I% sh -c "%"`: each input line becomes the shell's script.
  if (inv.name === 'xargs') {
    const i = vals.findIndex((v) => /^(-I|-i|--replace)/.test(v ?? ''));
    const repl = i < 0 ? undefined : vals[i]!.replace(/^(-I|-i|--replace=?)/, '') || vals[i + 1] || '{}';
    const c = vals.findIndex(
      (v, k) => v === '-c' && /^(ba|da|z|k|c|tc|fi)?sh$/.test((vals[k - 1] ?? '').replace(/^.*\//, '')),
    );
    const script = c >= 0 ? vals[c + 1] : undefined;
    if (repl && script && script.includes(repl))
      ctx.add(inv, {
        group: 'indirection',
        rule: 'dynamic_script',
        reason: 'xargs makes each input line part of a shell script: cannot tell what it runs',
      });
  }
  if (/^g?make$/.test(inv.name)) {
    const i = vals.findIndex((v) => /^(-f|--file|--makefile)$/.test(v ?? ''));
    const f = i >= 0 ? vals[i + 1] : vals.find((v) => /^--(file|makefile)=/.test(v ?? ''))?.replace(/^[^=]*=/, '');
    if (f === '-' || f === '/dev/stdin' || /^\/dev\/fd\/|^\/proc\/self\/fd\//.test(f ?? ''))
      ctx.add(inv, {
        group: 'indirection',
        rule: 'dynamic_script',
        reason: 'make reads a makefile from standard input',
      });
    return;
  }
  if (inv.name === 'man') {
    const i = vals.findIndex((v) => /^(-P|--pager|-H|--html)$/.test(v ?? ''));
    const attached = a.find((w) => /^(--pager|--html)=/.test(w.value ?? '') || /^-P./.test(w.value ?? ''));
    const cmd = attached
      ? { ...attached, value: attached.value!.replace(/^(--pager=|--html=|-P)/, '') }
      : i >= 0
        ? a[i + 1]
        : undefined;
    if (cmd) {
      ctx.add(inv, {
        group: 'indirection',
        rule: 'inline_interpreter',
        reason: 'man runs its pager option as a command',
      });
      ctx.script(inv, cmd, 'man --pager');
    }
    return;
  }
  if (/^(psql|mysql|mariadb|sqlcmd|cqlsh|clickhouse-client|duckdb|sqlite3|sqlite)$/.test(inv.name)) {
    const i = vals.findIndex((v) => /^(-f|--file|-i|--input-file)$/.test(v ?? ''));
    const attached = vals.find((v) => /^--(file|input-file)=/.test(v ?? ''));
    const file = attached ? { ...a[0]!, value: attached.replace(/^[^=]*=/, '') } : i >= 0 ? a[i + 1] : undefined;
    const s = inv.cmd.stdin;
    const stdin = s?.kind === 'file' ? [{ word: s.path, cwd: inv.cmd.cwd }] : [];
    // `cat fix.sql | psql` feeds the file as `psql < fix.sql` does.
    if (s?.kind === 'pipe')
      for (const c of s.from)
        if (c.words[0]?.value?.replace(/^.*\//, '') === 'cat')
          for (const w of operands(c.words.slice(1))) if (w.value !== '-') stdin.push({ word: w, cwd: c.cwd });
    // `sqlite3 test.db < schema.sql`: a database file of the workspace, built from a file of the
    // workspace, holds no more than the workspace does (as a write to one workspace file).
    const db = /^sqlite3?$/.test(inv.name) ? operands(a)[0] : undefined;
    const local = (w: Word, cwd: string | null) => placeOf(w.value, cwd) === 'workspace' && !w.glob;
    const ownDb = !!db && !inv.asRoot && !inv.elsewhere && local(db, inv.cmd.cwd);
    for (const { word: f, cwd } of [...(file ? [{ word: file, cwd: inv.cmd.cwd }] : []), ...stdin]) {
      if (f.value === '/dev/null' || (ownDb && local(f, cwd))) continue;
      if (writtenText(ctx, f.value, cwd) !== undefined) continue; // read by the SQL rules
      ctx.add(inv, {
        group: 'destroy_data',
        rule: 'sql_file',
        reason: `${inv.name} runs the SQL in ${f.value ?? 'a file only known at run time'}, which the gate cannot read`,
        at: [inv.word, f],
      });
    }
  }
};

/** Programs that can send a file's content elsewhere. */
const SENDERS = /^(curl|wget|nc|ncat|netcat|socat|ssh|scp|sftp|rsync|ftp|telnet|openssl|http|https|xh)$/;

/**
 * `env > e.txt; curl -T e.txt …`: the environment (tokens, keys) dumped to a file, then the file
 * handed to a program that sends — exfiltration through a file the same line wrote.
 */
export const sendsDumpedEnvironment: Rule = (inv, ctx) => {
  const dumps =
    /^(env|printenv|set|export|declare|typeset)$/.test(inv.name) &&
    inv.args.every((w) => /^-[px0]?$/.test(w.value ?? 'x'));
  if (dumps) {
    for (const r of inv.cmd.redirects)
      if (/^(>|>>|>\||&>)$/.test(r.op) && r.target?.value) {
        const seen = ctx.facts.get('environment-dump') ?? new Set<string>();
        seen.add(r.target.value.replace(/^\.\//, ''));
        ctx.facts.set('environment-dump', seen);
      }
    return;
  }
  const dumped = ctx.facts.get('environment-dump');
  if (!dumped?.size || !SENDERS.test(inv.name)) return;
  const hit = inv.args.find((w) =>
    [...dumped].some((f) => w.value !== null && w.value.replace(/^.*[@=<]/, '').replace(/^\.\//, '') === f),
  );
  if (hit)
    ctx.add(inv, {
      group: 'exfiltrate',
      rule: 'environment_send',
      reason: `${inv.name} sends a file this line filled with the environment (tokens and keys)`,
      at: [inv.word, hit],
    });
};
