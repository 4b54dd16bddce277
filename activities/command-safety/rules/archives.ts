/**
 * Archives and tools that rewrite files in place (group destroy_files): archivers that delete what
 * they pack (`tar --remove-files`, `zip -m`, `7z -sdel`, `rar -df`), compressors that replace a
 * whole tree (`gzip -r`), extraction over `/`, a system folder or a home (`tar -xf x -C /`,
 * `tar -P`, `unzip -d /usr/local`), renames that overwrite (`rename -f … *`), in-place
 * encryption (`ccrypt -r ~/Documents`, `openssl … -in f -out f`), hole punching, and clearing the
 * shell's history.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { hasOption, operands, optionValue, optionWords } from '../options.js';
import { placeOf } from '../paths.js';
import type { Word } from '../shell.js';

const F = 'destroy_files' as const;
const say = (ctx: RuleContext, inv: Invocation, rule: string, reason: string, at?: Array<Word | undefined>) =>
  ctx.add(inv, { group: F, rule, reason, ...(at ? { at: [inv.word, ...at] } : {}) });

/** Extracting into a folder outside the workspace (not /tmp): files there are overwritten. */
function extractsOutside(ctx: RuleContext, inv: Invocation, dir: string | null, at?: Word): void {
  const place = placeOf(dir, inv.cmd.cwd);
  if (dir !== null && /^\/(tmp|var\/tmp)(\/|$)/.test(dir)) return;
  if (place === 'workspace') return;
  say(
    ctx,
    inv,
    'extract_outside',
    `${inv.name} extracts over ${dir ?? 'a folder only known at run time'} (existing files are replaced)`,
    [at],
  );
}

const tar: Rule = (inv, ctx) => {
  const first = inv.args[0]?.value ?? '';
  // Old-style bundles without a dash (`tar xzf a.tgz`) count as options.
  const bundle = /^[a-zA-Z]+$/.test(first) && !first.startsWith('-') ? `-${first}` : '';
  const opts = [bundle, ...optionWords(inv.args)].filter(Boolean);
  const short = (c: string) => opts.some((o) => /^-[a-zA-Z]+$/.test(o) && o.slice(1).includes(c));
  if (opts.some((o) => o === '--remove-files'))
    return say(ctx, inv, 'archive_delete', 'tar --remove-files deletes the files it archives');
  const extract = short('x') || opts.some((o) => /^--(extract|get)$/.test(o));
  if (!extract) return;
  if (short('P') || opts.includes('--absolute-names'))
    return say(ctx, inv, 'extract_outside', 'tar -P extracts to the absolute paths stored in the archive');
  const dirWord = inv.args.find(
    (w, i) => /^(-C|--directory)$/.test(inv.args[i - 1]?.value ?? '') || /^--directory=/.test(w.value ?? ''),
  );
  const dir = dirWord ? (dirWord.value?.replace(/^--directory=/, '') ?? null) : '.';
  extractsOutside(ctx, inv, dir, dirWord);
};

const unzip: Rule = (inv, ctx) => {
  if (hasOption(inv.args, { short: 'lZtv' }) && !hasOption(inv.args, { short: 'd' })) return;
  const d = optionValue(inv.args, 'd');
  extractsOutside(
    ctx,
    inv,
    d === undefined ? '.' : d,
    inv.args.find((w) => w.value === d),
  );
};

const sevenZip: Rule = (inv, ctx) => {
  const verb = operands(inv.args)[0]?.value ?? '';
  if (inv.args.some((w) => w.value === '-sdel'))
    return say(ctx, inv, 'archive_delete', '7z -sdel deletes the files it archives');
  if (/^(x|e)$/.test(verb)) {
    const o = inv.args.find((w) => /^-o/.test(w.value ?? ''));
    extractsOutside(ctx, inv, o ? (o.value?.slice(2) ?? null) : '.', o);
  }
};

const zip: Rule = (inv, ctx) => {
  if (inv.args.some((w) => /^-[a-zA-Z0-9]*m/.test(w.value ?? '') || w.value === '--move'))
    say(ctx, inv, 'archive_delete', 'zip -m deletes the files it archives');
};

const rar: Rule = (inv, ctx) => {
  const verb = operands(inv.args)[0]?.value ?? '';
  if (verb === 'm' || verb === 'mf' || inv.args.some((w) => /^-(df|dr)$/.test(w.value ?? '')))
    say(ctx, inv, 'archive_delete', 'rar deletes the files it archives');
  if (/^(x|e)$/.test(verb)) {
    const dest = operands(inv.args)
      .slice(2)
      .find((w) => w.value?.endsWith('/'));
    if (dest) extractsOutside(ctx, inv, dest.value, dest);
  }
};

/** gzip and friends replace each file by its compressed copy; recursively, a whole tree. */
const compressor: Rule = (inv, ctx) => {
  if (
    hasOption(inv.args, { short: 'r', long: ['--recursive'] }) &&
    !hasOption(inv.args, { short: 'ctlk', long: ['--stdout', '--test', '--list', '--keep'] })
  )
    say(ctx, inv, 'compress_tree', `${inv.name} -r replaces every file under the folder`);
};

/** Perl `rename -f` over a glob: later renames overwrite earlier ones. */
const rename: Rule = (inv, ctx) => {
  if (!hasOption(inv.args, { short: 'f', long: ['--force'] })) return;
  const glob = operands(inv.args).find((w) => w.glob);
  if (glob)
    say(ctx, inv, 'rename_overwrite', 'rename -f over many files overwrites files whose new names collide', [glob]);
};

/** Clearing or rewriting the shell's history. */
const history: Rule = (inv, ctx) => {
  if (inv.args.some((w) => /^-[a-zA-Z]*[cd]/.test(w.value ?? '')))
    say(ctx, inv, 'history_clear', 'history -c / -d erases the shell history');
};

/** `fallocate --punch-hole` zeroes part of a file; a huge `-l` fills the disk. */
const fallocate: Rule = (inv, ctx) => {
  if (
    inv.args.some((w) =>
      /^(-[a-zA-Z]*[pcz]|--punch-hole|--collapse-range|--zero-range|--insert-range)$/.test(w.value ?? ''),
    )
  )
    return say(ctx, inv, 'punch_hole', 'fallocate deallocates or shifts part of a file (its data is lost)');
  const len = optionValue(inv.args, 'l', ['--length']);
  if (len && bytes(len) >= 8 * 1024 ** 3)
    ctx.add(inv, { group: 'system', rule: 'resource_exhaustion', reason: `fallocate of ${len} can fill the disk` });
};

/** `500G`, `1.5TiB`, `2048M` in bytes (NaN when it is not a size). */
function bytes(size: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGTPE]?)(i?B)?$/i.exec(size);
  return m ? Number(m[1]) * 1024 ** ' KMGTPE'.indexOf(m[2]!.toUpperCase() || ' ') : NaN;
}

/** ccrypt encrypts files in place (the originals are gone). */
const ccrypt: Rule = (inv, ctx) => {
  if (hasOption(inv.args, { long: ['--help', '--version'] }) || hasOption(inv.args, { short: 'c', long: ['--cat'] }))
    return;
  say(ctx, inv, 'encrypt_in_place', `${inv.name} encrypts or decrypts files in place`);
};

/** openssl writing over the file it reads (`-in {} -out {}`), or loading an engine (a shared library). */
const openssl: Rule = (inv, ctx) => {
  const input = optionValue(inv.args, undefined, ['-in']);
  const output = optionValue(inv.args, undefined, ['-out']);
  if (input && input === output) say(ctx, inv, 'encrypt_in_place', 'openssl writes its output over its input file');
  const engine = inv.args.find((w, i) => /^-(engine|provider|provider-path)$/.test(inv.args[i - 1]?.value ?? ''));
  if (engine && (engine.value === null || /[/.]/.test(engine.value)))
    ctx.add(inv, {
      group: 'indirection',
      rule: 'loads_library',
      reason: 'openssl loads an engine or provider from a file (code it runs)',
      at: [inv.word, engine],
    });
};

export const ARCHIVE_RULES: Record<string, Rule> = {
  tar,
  bsdtar: tar,
  gtar: tar,
  unzip,
  '7z': sevenZip,
  '7za': sevenZip,
  '7zz': sevenZip,
  zip,
  rar,
  unrar: rar,
  gzip: compressor,
  pigz: compressor,
  rename,
  'file-rename': rename,
  prename: rename,
  history,
  fallocate,
  ccrypt,
  ccencrypt: ccrypt,
  ccdecrypt: ccrypt,
  openssl,
};
