/**
 * The words a command writes to, for rows that ask `writes: [...]`: the destination operand of a
 * copying tool (`cp a DEST`, `install -t DEST`), every operand of a tool that writes each one
 * (`tee`, `truncate`, `sed -i`), `dd of=`, and output options of any program (`--output=F`, `-o F`,
 * wget's `-O F`). A copy into a folder also writes folder/name for each source, so `cp .zshrc ~/`
 * is judged as `~/.zshrc`. Tables, not code: a tool that writes another way is one more entry.
 */
import type { Invocation } from '../invocation.js';
import { operands, optionValue } from '../options.js';
import { placeOf } from '../paths.js';
import type { Word } from '../shell.js';

/** Tools whose last operand (or `-t DIR`) is where they write; the other operands are sources. */
const COPIERS = new Set(['cp', 'install', 'ln', 'mv', 'rsync', 'ginstall', 'gcp', 'gmv']);
/** Tools that write every operand. */
const EVERY_OPERAND = new Set(['tee', 'ed', 'red']);
/** Tools that rewrite every operand when told to edit in place (`sed -i`, `perl -pi`). */
const IN_PLACE = new Set(['sed', 'gsed', 'perl']);
/** Editors driven by a script (`ex -sc 'call append(…)|x' FILE`, `vim -es +'…' FILE`): they write what they open. */
const SCRIPTED_EDITORS = new Set(['ex', 'vim', 'vi', 'nvim', 'view', 'vimdiff']);
/** Tools known by where they write: their other words are not read as an unknown tool's verbs. */
export const WRITERS: ReadonlySet<string> = new Set([
  'sort',
  'truncate',
  'cp',
  'install',
  'ln',
  'tee',
  'ginstall',
  'gcp',
]);

/**
 * Tools whose n-th operand (from 0) is a file they write: `uniq IN OUT`, `split IN PREFIX`. Their
 * options that take a separate value are listed so the value is not counted as an operand.
 */
const NTH_OPERAND: Record<string, { at: number; valued: RegExp }> = {
  uniq: { at: 1, valued: /^-[fsw]$|^--(skip-fields|skip-chars|check-chars)$/ },
  split: {
    at: 1,
    valued: /^-[lbCnat]$|^--(lines|bytes|line-bytes|number|suffix-length|separator|additional-suffix|filter)$/,
  },
  // `xxd IN OUT`, `xxd -r dump.hex OUT`: the second operand is written.
  xxd: { at: 1, valued: /^-[cglnosC]$|^-(cols|groupsize|len|name|seek|offset)$/ },
  // `patch FILE < fix.diff`: the first operand is the file patched in place.
  patch: {
    at: 0,
    valued:
      /^-[pFdDiBrVYzgo]$|^--(strip|fuzz|directory|input|backup|prefix|reject-file|version-control|suffix|quoting-style|output)$/,
  },
};

/** Tools whose last operand is the file they write: `convert in.png -resize 64x64 OUT`, `ffmpeg -i in OUT`. */
const LAST_OPERAND = new Set(['convert', 'magick', 'ffmpeg', 'gm']);

/** Options whose value is a file the program writes (`--output=x`, `-o x`, `--log-file x`), any program. */
const OUTPUT_LONG = /^--?(o|out|output|output-document|output-file|outfile|out-file|log-file|logfile)$/;
/** Programs whose `-o` (alone or ending a bundle: `-sLo`) is the output file. */
const DASH_O = /^(curl|sort|gcc|cc|clang|g\+\+|go|rustc)$/;

/** What `inv` writes: each word with the path it writes (a copy into a folder names the file it lands as). */
export function writtenWords(inv: Invocation): Word[] {
  const out: Word[] = [];
  const a = inv.args;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!.value;
    if (v === null) continue;
    if (v === '--') break;
    const eq = v.indexOf('=');
    let dest: Word | undefined;
    if (v.startsWith('--') && eq > 0 && OUTPUT_LONG.test(v.slice(0, eq))) dest = { ...a[i]!, value: v.slice(eq + 1) };
    else if (OUTPUT_LONG.test(v) || (inv.name === 'wget' && /^-[a-zA-Z]*O$/.test(v))) dest = a[i + 1];
    else if (/^-[a-zA-Z]+o$/.test(v) && DASH_O.test(inv.name)) dest = a[i + 1];
    else if (/^-o./.test(v) && DASH_O.test(inv.name)) dest = { ...a[i]!, value: v.slice(2) };
    else if (inv.name === 'dd' && v.startsWith('of=')) dest = { ...a[i]!, value: v.slice(3) };
    if (dest && dest.value !== '-') out.push(dest);
  }
  if (COPIERS.has(inv.name)) {
    const ops = operands(a);
    const t = optionValue(a, 't', ['--target-directory']);
    const dest = t !== undefined ? { ...inv.word, value: t } : ops.length >= 2 ? ops.at(-1) : undefined;
    // rsync to `host:path` writes another machine (its own rows).
    if (dest && !(inv.name === 'rsync' && /^[^/]*:/.test(dest.value ?? ''))) {
      out.push(dest);
      if (inv.name !== 'mv') out.push(...intoFolder(inv, t !== undefined ? ops : ops.slice(0, -1), dest));
    }
  }
  if (LAST_OPERAND.has(inv.name)) {
    const ops = operands(a);
    const last = ops.at(-1);
    if (last && last.value !== '-' && ops.length >= 2) out.push(last);
  }
  const nth = NTH_OPERAND[inv.name];
  if (nth) {
    const ops: Word[] = [];
    for (let i = 0; i < a.length; i++) {
      const v = a[i]!.value;
      if (v !== null && v.startsWith('-') && v !== '-') {
        if (nth.valued.test(v)) i++;
        continue;
      }
      ops.push(a[i]!);
    }
    const w = ops[nth.at];
    if (w && w.value !== '-') out.push(w);
  }
  if (EVERY_OPERAND.has(inv.name)) out.push(...operands(a));
  else if (SCRIPTED_EDITORS.has(inv.name) && a.some((w) => /^-[a-zA-Z]*[cse]|^\+/.test(w.value ?? '')))
    out.push(...operands(a).filter((w) => !/^\+/.test(w.value ?? '') && !/^-/.test(w.value ?? '')));
  else if (IN_PLACE.has(inv.name) && a.some((w) => /^-[a-zA-Z]*i|^--in-place/.test(w.value ?? '')))
    out.push(...editorWords(a).files);
  return out;
}

/**
 * An in-place editor's words (`sed`, `perl -pi`): its scripts — each `-e X` (also bundled, `-ne X`,
 * or attached, `-es/a/b/`) and `--expression=X`, else the first operand — and the files it edits,
 * the operands after the script. A script file (`-f x.sed`) is neither.
 */
export function editorWords(a: readonly Word[]): { scripts: Word[]; files: Word[] } {
  const scripts: Word[] = [];
  const operands: Word[] = [];
  let explicit = false;
  for (let i = 0; i < a.length; i++) {
    const w = a[i]!;
    const v = w.value;
    if (v === null || !v.startsWith('-') || v === '-') operands.push(w);
    else if (/^-[a-zA-Z]*e$|^--expression$/.test(v)) {
      explicit = true;
      if (a[i + 1]) scripts.push(a[++i]!);
    } else if (/^-[a-zA-Z]*f$|^--file$/.test(v)) {
      explicit = true;
      i++;
    } else if (v.startsWith('--expression=')) {
      explicit = true;
      scripts.push({ ...w, value: v.slice('--expression='.length) });
    } else if (v.startsWith('--file=')) explicit = true;
    else if (/^-[a-zA-Z]*?e./.test(v)) {
      explicit = true;
      scripts.push({ ...w, value: v.replace(/^-[a-zA-Z]*?e/, '') });
    }
  }
  if (!explicit && operands.length) scripts.push(operands.shift()!);
  return { scripts, files: operands };
}

/** `cp dotfiles/.zshrc ~/`: copied into a folder, each source lands at folder/name. */
function intoFolder(inv: Invocation, sources: Word[], dest: Word): Word[] {
  const d = dest.value;
  if (
    d === null ||
    !(d.endsWith('/') || d === '~' || d === '.' || ['home', 'root', 'system'].includes(placeOf(d, inv.cmd.cwd)))
  )
    return [];
  return sources.slice(0, 8).flatMap((src) => {
    const name = src.value?.replace(/\/+$/, '').split('/').pop();
    return name ? [{ ...dest, value: `${d.replace(/\/+$/, '')}/${name}` }] : [];
  });
}
