/**
 * Destroying files (group destroy_files) and the machine's disks (hardline): recursive and mass
 * deletes — of the root, a system folder or a home never allowed, elsewhere asked about — shredding,
 * `find -delete`, `rsync --delete`, moves and truncations outside the workspace, recursive and
 * world-writable permissions, raw writes to block devices, formatting and partitioning.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { hasOption, longMatches, operands, optionValue, optionWords } from '../options.js';
import { BLOCK_DEVICE, absolute, isCredentialPath, isSecretFile, isStartupPath, placeOf } from '../paths.js';
import type { Word } from '../shell.js';

/** A delete target's verdict: hardline for the root, a system folder or a home; null when not alarming by itself. */
function deleteTargetLevel(w: Word, cwd: string | null): 'hardline' | 'dangerous' | null {
  // `/home/$USER`, `/Users/${USER}/`: some user's whole home, whoever runs it.
  if (w.value === null && w.shape !== undefined && /^\/(home|Users)\/\uFFFC+\/?(\*|\.\*)?$/.test(w.shape))
    return 'hardline';
  const place = placeOf(w.value, cwd, w.glob);
  if (place === 'root' || place === 'system' || place === 'home') return 'hardline';
  if (place === 'unknown' || place === 'outside') return 'dangerous';
  return null;
}

function reportDelete(ctx: RuleContext, inv: Invocation, targets: Word[], what: string, recursive: boolean): void {
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

/** Tools whose every use destroys file contents or trees. */
const shredder: Rule = (inv, ctx) => {
  const targets = operands(inv.args);
  for (const t of targets) {
    if (t.value !== null && BLOCK_DEVICE.test(t.value))
      return ctx.add(inv, {
        level: 'hardline',
        group: 'destroy_files',
        rule: 'raw_device_write',
        reason: 'overwriting a disk',
        at: [inv.word, t],
      });
  }
  const level = targets.some((t) => deleteTargetLevel(t, inv.cmd.cwd) === 'hardline') ? 'hardline' : 'dangerous';
  ctx.add(inv, {
    level,
    group: 'destroy_files',
    rule: level === 'hardline' ? 'delete_root' : 'shred',
    reason: `${inv.name} destroys files beyond recovery`,
  });
};

/** Node's and npm's recursive deleters (`npx rimraf dist`). */
const rimraf: Rule = (inv, ctx) => reportDelete(ctx, inv, operands(inv.args), 'recursive delete', true);

const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

const find: Rule = (inv, ctx) => {
  const a = inv.args;
  const exprAt = a.findIndex((w) => w.value === null || /^[-(!]/.test(w.value) || w.value === '(');
  const roots = (exprAt < 0 ? a : a.slice(0, exprAt)).filter((w) => w.value !== null);
  if (!roots.length) roots.push({ value: '.', raw: '.', start: inv.word.end, end: inv.word.end, glob: false });
  const deletes = a.some((w) => w.value === '-delete');
  if (deletes) reportDelete(ctx, inv, roots, 'find -delete', true);
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
  for (let i = 0; i < a.length; i++) {
    if (!FIND_EXEC.has(a[i]!.value ?? '')) continue;
    const end = a.findIndex((w, j) => j > i && (w.value === ';' || w.value === '+'));
    const argv = a.slice(i + 1, end < 0 ? undefined : end);
    if (!argv.length) continue;
    // `{}` stands for each path found: the command runs on the search roots' contents, many of them.
    const placed = argv.map((w) => (w.value === '{}' ? { ...w, value: roots[0]!.value } : w));
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
  if (!deletes) return rsyncCopy(inv, ctx);
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
  const destPlace = placeOf(dest.value, inv.cmd.cwd, dest.glob);
  if (destPlace !== 'workspace' && sources.some((s) => placeOf(s.value, inv.cmd.cwd, s.glob) === 'workspace'))
    return ctx.add(inv, {
      group: 'destroy_files',
      rule: 'move_outside',
      reason: 'moves workspace files out of the workspace',
      at: [inv.word, dest],
    });
  const git = sources.find((s) => /(^|\/)\.git\/?$/.test(s.value ?? ''));
  if (git)
    return ctx.add(inv, {
      group: 'destroy_history',
      rule: 'git_dir_move',
      reason: 'moves the repository (.git) away',
      at: [inv.word, git],
    });
  const everything = sources.find((s) => s.glob && /^(\.\/)?\*$/.test(s.value ?? ''));
  if (everything)
    return ctx.add(inv, {
      group: 'destroy_files',
      rule: 'mass_move',
      reason: 'moves every file here',
      at: [inv.word, everything],
    });
  for (const s of sources) {
    const place = placeOf(s.value, inv.cmd.cwd, s.glob);
    if (place === 'root' || place === 'system' || place === 'home')
      return ctx.add(inv, {
        level: 'hardline',
        group: 'destroy_files',
        rule: 'delete_root',
        reason: 'moving /, a system folder or a home folder away',
        at: [inv.word, s],
      });
    if (isCredentialPath(s.value, inv.cmd.cwd))
      return ctx.add(inv, {
        group: 'destroy_files',
        rule: 'move_sensitive',
        reason: 'moving credentials away',
        at: [inv.word, s],
      });
    if (place === 'outside')
      return ctx.add(inv, {
        group: 'destroy_files',
        rule: 'move_outside',
        reason: 'moving files outside the workspace',
        at: [inv.word, s],
      });
  }
  if (dest.value === '/dev/null')
    return ctx.add(inv, {
      group: 'destroy_files',
      rule: 'delete_outside',
      reason: 'moving files into /dev/null',
      at: [inv.word, dest],
    });
  writesTo(ctx, inv, dest, 'mv');
};

/** A file tool writing `dest`: a startup or credential file persists; outside the workspace, asked about. */
export function writesTo(ctx: RuleContext, inv: Invocation, dest: Word, what: string): void {
  if (dest.value === null) {
    if (/(^|\/)(\.git\/|hooks\/)|\$\(git rev-parse/.test(dest.raw))
      ctx.add(inv, {
        group: 'persist',
        rule: 'git_hook_write',
        reason: `${what} into git hooks or config`,
        at: [inv.word, dest],
      });
    return;
  }
  if (dest.value === '/proc/sysrq-trigger')
    return ctx.add(inv, {
      level: 'hardline',
      group: 'system',
      rule: 'shutdown',
      reason: 'a sysrq request (reboots, powers off or crashes the machine)',
      at: [inv.word, dest],
    });
  if (/^\/proc\/sys\//.test(dest.value))
    return ctx.add(inv, {
      group: 'system',
      rule: 'kernel_setting',
      reason: 'changes a kernel setting',
      at: [inv.word, dest],
    });
  if (BLOCK_DEVICE.test(dest.value))
    return ctx.add(inv, {
      level: 'hardline',
      group: 'destroy_files',
      rule: 'raw_device_write',
      reason: 'writing a disk directly',
      at: [inv.word, dest],
    });
  if (/(^|\/)\.git\/(hooks|config|modules\/)/.test(dest.value) || /(^|\/)\.git\/hooks/.test(dest.value))
    return ctx.add(inv, {
      group: 'persist',
      rule: 'git_hook_write',
      reason: `${what} into git hooks or config`,
      at: [inv.word, dest],
    });
  if (isStartupPath(dest.value, inv.cmd.cwd))
    return ctx.add(inv, {
      group: 'persist',
      rule: 'startup_file_write',
      reason: `${what} into a file that runs at login, boot or git use`,
      at: [inv.word, dest],
    });
  if (isSecretFile(dest.value, inv.cmd.cwd))
    return ctx.add(inv, {
      group: 'persist',
      rule: 'credential_write',
      reason: `${what} over credentials`,
      at: [inv.word, dest],
    });
  const abs = absolute(dest.value, inv.cmd.cwd);
  if (abs && /^\/(tmp|var\/tmp|dev\/(null|stdout|stderr|fd\/\d+|tty))(\/|$)/.test(abs)) return;
  const place = placeOf(dest.value, inv.cmd.cwd, dest.glob);
  if (place === 'root' || place === 'system' || place === 'outside' || place === 'home')
    ctx.add(inv, {
      group: 'destroy_files',
      rule: 'write_outside',
      reason: `${what} outside the workspace`,
      at: [inv.word, dest],
    });
}

const copy: Rule = (inv, ctx) => {
  const ops = operands(inv.args);
  const t = optionValue(inv.args, 't', ['--target-directory']);
  const dest = t !== undefined ? { ...inv.word, value: t } : ops[ops.length - 1];
  if (dest && (ops.length >= 2 || t !== undefined)) {
    writesTo(ctx, inv, dest, inv.name);
    intoFolder(ctx, inv, t !== undefined ? ops : ops.slice(0, -1), dest, inv.name);
  }
};

/**
 * `cp dotfiles/.zshrc ~/`, `rsync x/.bashrc ~`: copied into a folder, each file lands at
 * folder/name — judged as that path (a startup file there persists).
 */
function intoFolder(ctx: RuleContext, inv: Invocation, sources: Word[], dest: Word, what: string): void {
  const d = dest.value;
  if (
    d === null ||
    !(d.endsWith('/') || d === '~' || d === '.' || ['home', 'root', 'system'].includes(placeOf(d, inv.cmd.cwd)))
  )
    return;
  for (const src of sources.slice(0, 8)) {
    const name = src.value?.replace(/\/+$/, '').split('/').pop();
    if (name) writesTo(ctx, inv, { ...dest, value: `${d.replace(/\/+$/, '')}/${name}` }, what);
  }
}

/** rsync copying locally: the destination is written like cp's. */
const rsyncCopy: Rule = (inv, ctx) => {
  const ops = operands(inv.args);
  const dest = ops[ops.length - 1];
  if (!dest || ops.length < 2 || /^[^/]*:/.test(dest.value ?? '')) return;
  writesTo(ctx, inv, dest, 'rsync');
  intoFolder(ctx, inv, ops.slice(0, -1), dest, 'rsync');
};

const tee: Rule = (inv, ctx) => {
  for (const t of operands(inv.args)) writesTo(ctx, inv, t, 'tee');
};

const truncate: Rule = (inv, ctx) => {
  for (const t of operands(inv.args)) {
    if (placeOf(t.value, inv.cmd.cwd, t.glob) !== 'workspace' || isStartupPath(t.value, inv.cmd.cwd))
      return ctx.add(inv, {
        group: 'destroy_files',
        rule: 'truncate_outside',
        reason: 'emptying a file outside the workspace',
        at: [inv.word, t],
      });
  }
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
    if (recursive && (place === 'root' || place === 'system' || place === 'home'))
      return ctx.add(inv, {
        group: 'destroy_files',
        rule: 'recursive_permissions',
        reason: 'recursive permission change of /, a system folder or a home',
        at: [inv.word, t],
      });
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

const chown: Rule = (inv, ctx) => {
  const ops = operands(inv.args);
  const recursive = hasOption(inv.args, { short: 'R', long: ['--recursive'] });
  const targets = ops.slice(1);
  if (targets.some((t) => ['root', 'system', 'home', 'outside'].includes(placeOf(t.value, inv.cmd.cwd, t.glob))))
    return ctx.add(inv, {
      group: 'system',
      rule: 'system_ownership',
      reason: 'changing ownership outside the workspace',
    });
  if (recursive)
    ctx.add(inv, { group: 'destroy_files', rule: 'recursive_permissions', reason: 'recursive ownership change' });
};

const dd: Rule = (inv, ctx) => {
  const arg = (k: string) => inv.args.find((w) => w.value?.startsWith(`${k}=`));
  const of = arg('of');
  const iF = arg('if');
  const ofValue = of?.value?.slice(3) ?? null;
  if (ofValue !== null && BLOCK_DEVICE.test(ofValue))
    return ctx.add(inv, {
      level: 'hardline',
      group: 'destroy_files',
      rule: 'raw_device_write',
      reason: 'writing a disk directly',
      at: [inv.word, of],
    });
  const ifValue = iF?.value?.slice(3) ?? null;
  if (ifValue !== null && isCredentialPath(ifValue, inv.cmd.cwd))
    return ctx.add(inv, {
      group: 'exfiltrate',
      rule: 'credential_read',
      reason: 'reading credentials',
      at: [inv.word, iF],
    });
  if (of && ofValue !== null) writesTo(ctx, inv, { ...of, value: ofValue }, 'dd');
  // dd copies raw bytes wherever it is pointed; one wrong letter overwrites a disk: always a question.
  ctx.add(inv, { group: 'destroy_files', rule: 'disk_copy', reason: 'raw copy with dd', at: [inv.word, iF ?? of] });
};

/** Formatting, wiping and partitioning a disk. Read-only forms (`fdisk -l`, `parted -l`) are fine. */
const formatter: Rule = (inv, ctx) => {
  const o = optionWords(inv.args);
  const readOnly: Record<string, (o: string[]) => boolean> = {
    fdisk: (x) => x.includes('-l') || x.includes('--list'),
    sfdisk: (x) => x.some((a) => /^-(l|d|J|s|V)$|^--(list|dump|json|show-size|verify)/.test(a)),
    parted: (x) =>
      x.includes('-l') ||
      x.includes('--list') ||
      (inv.args.some((w) => w.value === 'print') &&
        !inv.args.some((w) => /^(mklabel|mkpart|rm|resizepart|mkfs)$/.test(w.value ?? ''))),
    sgdisk: (x) => x.some((a) => /^-(p|i|v)$|^--(print|info|verify)/.test(a)),
    gdisk: (x) => x.includes('-l'),
    wipefs: (x) => !x.some((a) => /^-[a-zA-Z]*a|^--all|^-o|^--offset/.test(a)),
    cryptsetup: () => !inv.args.some((w) => /^(luksFormat|erase|luksErase|reencrypt)$/.test(w.value ?? '')),
    diskutil: () =>
      !inv.args.some((w) => /^(erase|zero|partition|secureErase|randomDisk|reformat)/i.test(w.value ?? '')),
    blkdiscard: () => false,
  };
  const check = readOnly[inv.name];
  if (check?.(o)) return;
  if (
    inv.name === 'diskutil' &&
    !inv.args.some((w) => /^(erase|zero|partition|secureErase|randomDisk|reformat)/i.test(w.value ?? ''))
  )
    return;
  ctx.add(inv, {
    level: 'hardline',
    group: 'destroy_files',
    rule: 'mkfs',
    reason: 'formatting, wiping or partitioning a disk',
  });
};

const sort: Rule = (inv, ctx) => {
  const out = optionValue(inv.args, 'o', ['--output']);
  if (out) writesTo(ctx, inv, { ...inv.word, value: out }, 'sort -o');
};

export const FILE_RULES: Record<string, Rule> = {
  sort,
  rm,
  unlink: rm,
  shred: shredder,
  wipe: shredder,
  srm: shredder,
  rimraf,
  del: rimraf,
  'del-cli': rimraf,
  find,
  rsync,
  mv,
  cp: copy,
  install: copy,
  ln: copy,
  tee,
  truncate,
  chmod,
  chown,
  chgrp: chown,
  dd,
  mkfs: formatter,
  mke2fs: formatter,
  mkswap: formatter,
  mkdosfs: formatter,
  mkntfs: formatter,
  newfs: formatter,
  wipefs: formatter,
  fdisk: formatter,
  sfdisk: formatter,
  cfdisk: formatter,
  gdisk: formatter,
  sgdisk: formatter,
  parted: formatter,
  blkdiscard: formatter,
  cryptsetup: formatter,
  diskutil: formatter,
};

/** mkfs.ext4, mkfs.xfs, newfs_hfs, … */
export function fileRuleFor(name: string): Rule | undefined {
  if (/^mkfs\.|^mke2fs|^newfs_|^mkfs$/.test(name)) return formatter;
  return FILE_RULES[name];
}
