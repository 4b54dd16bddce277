/**
 * Where file tools write (`cp`, `install`, `ln`, `rsync` without `--delete`, `tee`, `truncate`,
 * and `mv`'s destination): a startup or credential file written persists or exposes (groups
 * persist, exfiltrate); writing over files outside the workspace is asked about (destroy_files).
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { operands, optionValue } from '../options.js';
import { BLOCK_DEVICE, absolute, isSecretFile, isStartupPath, placeOf } from '../paths.js';
import type { Word } from '../shell.js';

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

export const copy: Rule = (inv, ctx) => {
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
export const rsyncCopy: Rule = (inv, ctx) => {
  const ops = operands(inv.args);
  const dest = ops[ops.length - 1];
  if (!dest || ops.length < 2 || /^[^/]*:/.test(dest.value ?? '')) return;
  writesTo(ctx, inv, dest, 'rsync');
  intoFolder(ctx, inv, ops.slice(0, -1), dest, 'rsync');
};

export const tee: Rule = (inv, ctx) => {
  for (const t of operands(inv.args)) writesTo(ctx, inv, t, 'tee');
};

export const truncate: Rule = (inv, ctx) => {
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
