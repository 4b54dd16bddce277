/**
 * Destroying files (group destroy_files): recursive and mass deletes — of the root, a system folder
 * or a home never allowed, elsewhere asked about — `find -delete`, `rsync --delete`, moves out of
 * the workspace, recursive and world-writable permissions. Writes, ownership, shredders, `dd` and
 * disk formatters are table rows (table/rows/writes.ts, devices.ts).
 */
import { findsOnlyGenerated, isGeneratedPath } from './workspace-work.js';
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { hasOption, longMatches, operands, optionWords } from '../options.js';
import {
  BLOCK_DEVICE,
  absolute,
  isCredentialPath,
  isStartupPath,
  isSystemTree,
  isUserCache,
  placeOf,
} from '../paths.js';
import type { Word } from '../shell.js';
import { MKTEMP_MARK } from '../shell-expand.js';
import type { Group } from '../verdict.js';

/** Places whose deletion is never allowed: /, a system folder, a home. */
const GRAVE = new Set(['root', 'system', 'home']);
const BOOT = /^\/boot\/(?:efi|EFI|grub2?|loader)(?:\/|$)/;

/** A delete target's verdict: hardline for the root, a system folder or a home; null when not alarming by itself. */
function deleteTargetLevel(w: Word, cwd: string | null): 'hardline' | 'dangerous' | null {
  // `/home/$USER`, `/Users/${USER}/`: some user's whole home, whoever runs it.
  if (w.value === null && w.shape !== undefined && /^\/(home|Users)\/\uFFFC+\/?(\*|\.\*)?$/.test(w.shape))
    return 'hardline';
  const place = placeOf(w.value, cwd, w.glob);
  // The boot loader and its files (`/boot/efi/EFI`, `/boot/grub`): the machine no longer starts.
  if (BOOT.test(absolute(w.value ?? '', cwd) ?? '')) return 'hardline';
  if (GRAVE.has(place) || w.maybe?.some((v) => GRAVE.has(placeOf(v, cwd)))) return 'hardline';
  if (place === 'unknown' || place === 'outside') return 'dangerous';
  return null;
}

/**
 * `tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT`: a name under /tmp that `mktemp` made on this line
 * (its random letters marked by the expansion), not a folder someone else keeps there.
 */
function madeByMktemp(t: Word): boolean {
  const path = t.value === null ? undefined : absolute(t.value, null);
  return !t.glob && !!path && MADE_BY_MKTEMP.test(path);
}

const MADE_BY_MKTEMP = new RegExp(`^/(?:var/)?tmp/[^/]*${MKTEMP_MARK}{3,}$`);

/**
 * `rm -rf /tmp/myapp-test-cache`: a named scratch path under /tmp, not /tmp itself, not a glob
 * over it, not the hidden sockets of the desktop and of tmux (`/tmp/.X11-unix`, `/tmp/tmux-1000`).
 * One name, no trailing slash: a deeper path or `name/` could pass through a link someone left there;
 * a glob only as the end of a name with a literal start (`/tmp/myapp-test-*`).
 */
function scratchPath(t: Word): boolean {
  const path = t.value === null ? undefined : absolute(t.value, null);
  // A glob only after a literal start of three characters (`/tmp/myapp-test-*`): names of one kind.
  const name = t.glob ? /^\/(?:var\/)?tmp\/[\w@+-][\w.@+-]{2,}\*$/.test(path ?? '') : true;
  return (
    !!path && name && /^\/(?:var\/)?tmp\/(?![.]|tmux-|systemd-)[\w@+-][\w.@*+-]*$/.test(path) && !t.value!.endsWith('/')
  );
}

function reportDelete(ctx: RuleContext, inv: Invocation, all: Word[], what: string, recursive: boolean): void {
  const targets = all.filter((t) => !madeByMktemp(t));
  if (all.length && !targets.length) return;
  for (const t of targets) {
    const level = deleteTargetLevel(t, inv.cmd.cwd);
    if (level === 'hardline') {
      ctx.add(inv, {
        level,
        group: 'destroy_files',
        rule: 'delete_root',
        reason: `${what} of /, a system folder or a home folder`,
        at: [inv.word, t],
      });
      return;
    }
  }
  if (inv.operandsFromStdin || targets.some((t) => t.value === null)) {
    ctx.add(inv, { group: 'destroy_files', rule: 'mass_delete', reason: `${what} of paths only known at run time` });
    return;
  }
  // What comes back by itself, deleted here as this user: not as root, not on another machine, not
  // after a link made in the same line (`ln -s ~ build; rm -rf build/x` deletes through it).
  const regenerated = (made: (t: Word) => boolean) =>
    targets.length > 0 && !inv.asRoot && !inv.elsewhere && !ctx.facts.has('linked') && targets.every(made);
  // `rm -rf ~/.cache/pip`: caches come back on demand; scratch files under /tmp are nobody's work.
  if (regenerated((t) => isUserCache(t.value, inv.cmd.cwd) || scratchPath(t))) return;
  const outside = targets.find((t) => placeOf(t.value, inv.cmd.cwd, t.glob) === 'outside');
  if (outside) {
    ctx.add(inv, {
      group: 'destroy_files',
      rule: 'delete_outside',
      reason: `${what} outside the workspace`,
      at: [inv.word, outside],
    });
    return;
  }
  const sensitive = targets.find((t) => isCredentialPath(t.value, inv.cmd.cwd) || isStartupPath(t.value, inv.cmd.cwd));
  if (sensitive) {
    ctx.add(inv, {
      group: 'destroy_files',
      rule: 'delete_sensitive',
      reason: `${what} of a credential or startup file`,
      at: [inv.word, sensitive],
    });
    return;
  }
  if (recursive) {
    // Build output and dependency trees inside the workspace are regenerated by the next build.
    if (regenerated(isGeneratedPath)) return;
    ctx.add(inv, {
      group: 'destroy_files',
      rule: 'recursive_delete',
      reason: `${what} (the files cannot be recovered)`,
      at: [inv.word, ...targets.slice(0, 3)],
    });
    return;
  }
  const everything = targets.find((t) => t.glob && /^(\.\/)?\*$|^\.\*$/.test(t.value ?? ''));
  if (everything)
    ctx.add(inv, {
      group: 'destroy_files',
      rule: 'mass_delete',
      reason: `${what} of every file here`,
      at: [inv.word, everything],
    });
}

const rm: Rule = (inv, ctx) => {
  const recursive = hasOption(inv.args, { short: 'rR', long: ['--recursive'] });
  if (recursive && hasOption(inv.args, { long: ['--no-preserve-root'] }))
    return ctx.add(inv, {
      level: 'hardline',
      group: 'destroy_files',
      rule: 'delete_root',
      reason: 'recursive delete with --no-preserve-root',
    });
  const targets = operands(inv.args);
  if (!targets.length && !inv.operandsFromStdin) return;
  reportDelete(ctx, inv, targets, recursive ? 'recursive delete' : 'delete', recursive);
};

/** Node's and npm's recursive deleters (`npx rimraf dist`). */
const rimraf: Rule = (inv, ctx) => reportDelete(ctx, inv, operands(inv.args), 'recursive delete', true);

const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** Tests of find that take a value and only ever leave matches out. */
const FIND_VALUED = /^-(type|xtype|maxdepth|mindepth|[amc](time|min)|size|newer|user|group|perm|regextype)$/;
const FIND_ALONE = /^-(delete|prune|print0?|depth|xdev|mount|empty|daystart|noleaf|ignore_readdir_race)$/;

/**
 * The one name a find expression narrows its matches to (`find ~ -name '*.pyc' -delete`): a `-name`
 * pattern with a literal part, and nothing that widens the match (`-o`, a group). A find over a
 * home that deletes only such files deletes some files of the home, not the home; `-name '*'`,
 * `-name '.*'` or no name at all still reach everything.
 */
function narrowingName(a: Word[], from: number): string | null {
  let name: string | null = null;
  for (let i = from; i < a.length; i++) {
    const v = a[i]!.value;
    if (v === null) return null;
    if (v === '-name' || v === '-iname') {
      const pat = a[++i]?.value;
      if (!pat || name !== null || !/[^*?./]/.test(pat.replace(/\[[^\]]*\]/g, ''))) return null;
      name = pat;
    } else if (v === '-not' || v === '!') {
      if (!/^-(i?path|i?name|wholename)$/.test(a[++i]?.value ?? '') || a[++i]?.value == null) return null;
    } else if (FIND_EXEC.has(v)) {
      const end = a.findIndex((w, j) => j > i && (w.value === ';' || w.value === '+'));
      if (end < 0) return null;
      i = end;
    } else if (FIND_VALUED.test(v)) i++;
    else if (!FIND_ALONE.test(v)) return null;
  }
  return name;
}

const find: Rule = (inv, ctx) => {
  const a = inv.args;
  const exprAt = a.findIndex((w) => w.value === null || /^[-(!]/.test(w.value) || w.value === '(');
  const roots = (exprAt < 0 ? a : a.slice(0, exprAt)).filter((w) => w.value !== null);
  if (!roots.length) roots.push({ value: '.', raw: '.', start: inv.word.end, end: inv.word.end, glob: false });
  const deletes = a.some((w) => w.value === '-delete');
  // `find . -name '*.pyc' -delete`, `find . -name node_modules -prune -exec rm -rf {} +`: generated files only.
  const generatedOnly = findsOnlyGenerated(a, roots.length === a.slice(0, Math.max(exprAt, 0)).length ? roots : []);
  // `find ~ -name '*.pyc' -delete` reaches the files of that name below a home, not the home.
  const name = exprAt < 0 ? null : narrowingName(a, exprAt);
  const reached = (r: Word): Word =>
    name === null || r.value === null || deleteTargetLevel(r, inv.cmd.cwd) !== 'hardline'
      ? r
      : { raw: r.raw, start: r.start, end: r.end, value: `${r.value.replace(/\/+$/, '')}/${name}`, glob: false };
  if (deletes && !generatedOnly) reportDelete(ctx, inv, roots.map(reached), 'find -delete', true);
  // Reading every match under a home or the root (`find ~ -name '*.pem' -exec cat {} +`): a search for secrets.
  const wide = roots.some((r) => ['home', 'root'].includes(placeOf(r.value, inv.cmd.cwd, r.glob)));
  const reads = a.some(
    (w, i) =>
      FIND_EXEC.has(w.value ?? '') &&
      /^(cat|less|more|head|tail|base64|xxd|strings|cp|curl|nc|scp|tar|zip|od)$/.test(a[i + 1]?.value ?? ''),
  );
  if (wide && reads)
    ctx.add(inv, {
      group: 'exfiltrate',
      rule: 'credential_search',
      reason: 'reads files found all over a home folder or the root',
    });
  // `{}` stands for each path found: the command runs on the search roots' contents, many of them.
  // As an option's value (`of={}`), each path is the root joined to the name searched for (`/dev/sd?`).
  const named = a.findIndex((w) => w.value === '-name');
  const each =
    named >= 0 && /^[^/]+$/.test(a[named + 1]?.value ?? '') ? `${roots[0]!.value}/${a[named + 1]!.value}` : null;
  const root = reached(roots[0]!);
  for (let i = 0; i < a.length; i++) {
    if (!FIND_EXEC.has(a[i]!.value ?? '')) continue;
    const end = a.findIndex((w, j) => j > i && (w.value === ';' || w.value === '+'));
    const argv = a.slice(i + 1, end < 0 ? undefined : end);
    if (!argv.length || generatedOnly) continue;
    const placed = argv.map((w) =>
      w.value === '{}'
        ? { ...w, value: root.value, glob: root.glob }
        : /^[\w-]+=\{\}$/.test(w.value ?? '')
          ? { ...w, value: each === null ? null : w.value!.replace('{}', each) }
          : w,
    );
    ctx.nested(inv, placed, { operandsFromStdin: true });
  }
  for (const flag of ['-fprint', '-fprint0', '-fprintf', '-fls']) {
    const at = a.findIndex((w) => w.value === flag);
    if (at >= 0 && placeOf(a[at + 1]?.value ?? null, inv.cmd.cwd) !== 'workspace')
      ctx.add(inv, {
        group: 'destroy_files',
        rule: 'write_outside',
        reason: `${flag} writes a file outside the workspace`,
        at: [a[at], a[at + 1]],
      });
  }
};

const rsync: Rule = (inv, ctx) => {
  const o = optionWords(inv.args);
  const deletes = o.some((x) => x.startsWith('--del') || longMatches(x, '--remove-source-files'));
  // Without a delete, rsync copies: its destination is judged as every write is (table/rows/writes.ts).
  // `rsync -avn --delete`: a dry run lists what it would delete.
  if (!deletes || hasOption(inv.args, { short: 'n', long: ['--dry-run'] })) return;
  const ops = operands(inv.args);
  const dest = ops[ops.length - 1];
  if (!dest) return;
  if (/^[^/]*:/.test(dest.value ?? ''))
    return ctx.add(inv, {
      group: 'destroy_files',
      rule: 'sync_delete',
      reason: 'rsync --delete on another machine',
      at: [inv.word, dest],
    });
  reportDelete(ctx, inv, [dest], 'rsync --delete', true);
};

const mv: Rule = (inv, ctx) => {
  const ops = operands(inv.args);
  if (ops.length < 2) return;
  const dest = ops[ops.length - 1]!;
  const sources = ops.slice(0, -1);
  const say = (rule: string, reason: string, at: Word, group: Group = 'destroy_files') =>
    ctx.add(inv, { ...(rule === 'delete_root' ? { level: 'hardline' } : {}), group, rule, reason, at: [inv.word, at] });
  const destPlace = placeOf(dest.value, inv.cmd.cwd, dest.glob);
  if (destPlace !== 'workspace' && sources.some((s) => placeOf(s.value, inv.cmd.cwd, s.glob) === 'workspace'))
    return say('move_outside', 'moves workspace files out of the workspace', dest);
  const git = sources.find((s) => /(^|\/)\.git\/?$/.test(s.value ?? ''));
  if (git) return say('git_dir_move', 'moves the repository (.git) away', git, 'destroy_history');
  const everything = sources.find((s) => s.glob && /^(\.\/)?\*$/.test(s.value ?? ''));
  if (everything) return say('mass_move', 'moves every file here', everything);
  for (const s of sources) {
    const place = placeOf(s.value, inv.cmd.cwd, s.glob);
    if (place === 'root' || place === 'system' || place === 'home')
      return say('delete_root', 'moving /, a system folder or a home folder away', s);
    if (isCredentialPath(s.value, inv.cmd.cwd)) return say('move_sensitive', 'moving credentials away', s);
    if (place === 'outside') return say('move_outside', 'moving files outside the workspace', s);
  }
  if (dest.value === '/dev/null') say('delete_outside', 'moving files into /dev/null', dest);
};

const WORLD_WRITABLE = (mode: string) =>
  /^0?[0-7]?[0-7][0-7][2367]$/.test(mode) ||
  /(^|,)[ugo]*a[ugo]*[+=][rwxXst]*w/.test(mode) ||
  /(^|,)[ug]*o[ug]*[+=][rwxXst]*w/.test(mode) ||
  /^[+=][rwxXst]*w/.test(mode);

const chmod: Rule = (inv, ctx) => {
  const ops = operands(inv.args);
  const mode = ops[0]?.value ?? '';
  const targets = ops.slice(1);
  const recursive = hasOption(inv.args, { short: 'R', long: ['--recursive'] });
  for (const t of targets) {
    if (t.value !== null && BLOCK_DEVICE.test(t.value))
      return ctx.add(inv, {
        group: 'system',
        rule: 'device_permissions',
        reason: 'changing the permissions of a disk',
        at: [inv.word, t],
      });
    if (/(^|\/)\.git\/hooks(\/|$)/.test(t.value ?? t.raw) && /x|[1357]/.test(mode))
      return ctx.add(inv, {
        group: 'persist',
        rule: 'git_hook_write',
        reason: 'makes a git hook executable',
        at: [inv.word, t],
      });
    const place = placeOf(t.value, inv.cmd.cwd, t.glob);
    // `find / -exec chmod 000 {} +` reaches every file below the root as -R does.
    if ((recursive || inv.operandsFromStdin) && isSystemTree(t.value, inv.cmd.cwd, t.glob))
      return ctx.add(inv, {
        level: 'hardline',
        group: 'system',
        rule: 'system_permissions_wipe',
        reason: 'recursive permission change of / or a whole system folder (the machine stops working)',
        at: [inv.word, t],
      });
    if (recursive && (place === 'root' || place === 'system' || place === 'home'))
      return ctx.add(inv, {
        group: 'destroy_files',
        rule: 'recursive_permissions',
        reason: 'recursive permission change of /, a system folder or a home',
        at: [inv.word, t],
      });
    // `chmod 600 ~/.ssh/id_ed25519`: closing a credential to everyone but its owner, as ssh demands.
    if (!recursive && isCredentialPath(t.value, inv.cmd.cwd) && /^0?[4-7]00$|^(go|og)(-r?w?x?|=)$/.test(mode)) continue;
    if (place === 'root' || place === 'system' || (place === 'outside' && !/^\/(tmp|var\/tmp)\//.test(t.value ?? '')))
      return ctx.add(inv, {
        group: 'system',
        rule: 'system_permissions',
        reason: 'changing permissions outside the workspace',
        at: [inv.word, t],
      });
  }
  if (/(^|,)[ugoa]*\+[rwX]*x|^0?[0-7]?[0-7]*[1357][0-7]{0,2}$/.test(mode)) {
    const made = ctx.facts.get('made-executable') ?? new Set<string>();
    for (const t of targets) if (t.value) made.add(t.value.replace(/^\.\//, ''));
    ctx.facts.set('made-executable', made);
  }
  if (WORLD_WRITABLE(mode))
    ctx.add(inv, {
      group: 'destroy_files',
      rule: 'world_writable',
      reason: 'making files writable by everyone',
      at: [inv.word, ops[0]],
    });
  else if (/[ugoa]*[+=][rwx]*s|^[0-7]*[4-7][0-7]{3}$/.test(mode) && /s|^[4-7]/.test(mode))
    ctx.add(inv, { group: 'system', rule: 'setuid', reason: 'setting the setuid/setgid bit', at: [inv.word, ops[0]] });
  else if (recursive)
    ctx.add(inv, {
      group: 'destroy_files',
      rule: 'recursive_permissions',
      reason: 'recursive permission change',
      at: [inv.word, ops[0]],
    });
};

export const FILE_RULES: Record<string, Rule> = {
  rm,
  unlink: rm,
  rimraf,
  del: rimraf,
  'del-cli': rimraf,
  find,
  rsync,
  mv,
  chmod,
};
