/**
 * Disks and power, the two ways to lose the whole machine at once (hardline).
 *
 * Disk tools whose verbs wipe and volume removals are rows (table/rows/devices.ts).
 *
 * Disks: any command that names a disk or partition (`/dev/sdb`, `of=/dev/nvme0n1`,
 * `--device=/dev/sda`) and is not a known read-only inspector is taken to write it — ddrescue,
 * bmaptool, nwipe, sg_format, hdparm's security erase, a tool Herald has never heard of — since
 * the one that reads is the exception and the one that writes destroys everything on it. Disk
 * tools whose verbs wipe without a /dev path (`gpart destroy ada0`, `zpool labelclear`, `diskutil
 * apfs deleteContainer disk3`) are listed with those verbs.
 *
 * Power: every way to reboot, power off or halt — login1 over D-Bus, desktop session managers,
 * macOS (`launchctl reboot`, `fdesetup authrestart`, `softwareupdate --restart`), Windows and
 * WSL (`shutdown.exe`, `wsl --shutdown`), the BMC (`ipmitool power cycle`), and the signals init
 * takes as a shutdown request (`kill -INT 1`, `kill -s SIGRTMIN+4 1`).
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { hasOption, operands, optionWords } from '../options.js';
import { isBlockDevice } from '../paths.js';
import { RUNNERS } from '../runners.js';
import type { Word } from '../shell.js';

/** The options of a command line (words starting with `-`, up to `--`). */
const flags = (args: readonly Word[]) => optionWords(args).filter((o) => o.startsWith('-'));

const hard = (ctx: RuleContext, inv: Invocation, rule: string, reason: string, at?: Array<Word | undefined>) =>
  ctx.add(inv, {
    level: 'hardline',
    group: rule === 'shutdown' ? 'system' : 'destroy_files',
    rule,
    reason,
    ...(at ? { at } : {}),
  });

/** A word that names a disk: an operand, `of=/dev/x`, `--device=/dev/x`. */
function diskIn(w: Word): boolean {
  const v = w.value;
  if (v === null) return false;
  const path = v.startsWith('/') ? v : v.includes('=') ? v.slice(v.indexOf('=') + 1) : '';
  return isBlockDevice(path);
}

/**
 * Programs that only look at a disk (or whose own rule judges what they do to it). A function
 * says when the invocation is read-only; `true` means always.
 */
const INSPECTS: Record<string, true | ((inv: Invocation) => boolean)> = {
  lsblk: true,
  blkid: true,
  findmnt: true,
  file: true,
  stat: true,
  ls: true,
  df: true,
  du: true,
  lsof: true,
  fuser: true,
  udevadm: true,
  udisksctl: (inv) => /^(info|status|dump)$/.test(operands(inv.args)[0]?.value ?? ''),
  smartctl: true,
  dumpe2fs: true,
  xfs_info: true,
  isoinfo: true,
  lsscsi: true,
  sg_inq: true,
  sg_readcap: true,
  iostat: true,
  partx: (inv) => hasOption(inv.args, { short: 's', long: ['--show'] }),
  partprobe: true,
  blockdev: (inv) => flags(inv.args).every((o) => /^--(get|report)/.test(o)),
  kpartx: (inv) => hasOption(inv.args, { short: 'l' }),
  hdparm: (inv) => flags(inv.args).every((o) => /^-[iIgtTCrBWHQ]+$/.test(o) && !/^-[a-zA-Z]*[WBHQ]\d/.test(o)),
  badblocks: (inv) => !hasOption(inv.args, { short: 'wn' }),
  nvme: (inv) =>
    /^(list|list-subsys|id-ctrl|id-ns|smart-log|error-log|fw-log|get-feature|show-regs|list-ns|get-log|read)$/.test(
      operands(inv.args)[0]?.value ?? '',
    ),
  pvs: true,
  pvdisplay: true,
  pvscan: true,
  vgs: true,
  lvs: true,
  e2fsck: (inv) => hasOption(inv.args, { short: 'n' }),
  fsck: (inv) => hasOption(inv.args, { short: 'nN' }),
  tune2fs: (inv) => flags(inv.args).every((o) => o === '-l'),
  btrfs: (inv) =>
    /^(filesystem|device|inspect-internal)$/.test(operands(inv.args)[0]?.value ?? '') &&
    /^(show|df|usage|stats|dump-super)$/.test(operands(inv.args)[1]?.value ?? ''),
  mdadm: (inv) =>
    flags(inv.args).every((o) => /^(-D|--detail|-E|--examine|-Q|--query|--scan|-s|-v|--verbose|-b|--brief)$/.test(o)),
  cryptsetup: (inv) =>
    /^(luksDump|status|isLuks|luksUUID|tcryptDump|bitlkDump|open|luksOpen|close|luksClose)$/.test(
      operands(inv.args)[0]?.value ?? '',
    ),
  // Readers: a raw read of a disk is not a write (exfiltration rules judge what is read).
  cat: true,
  head: true,
  tail: true,
  less: true,
  more: true,
  xxd: true,
  od: true,
  hexdump: true,
  hd: true,
  strings: true,
  cmp: true,
  md5sum: true,
  sha1sum: true,
  sha256sum: true,
  sha512sum: true,
  b2sum: true,
  cksum: true,
  pv: true,
  // Their own rules judge them: dd, mount and swap, formatting and partitioning, copies and redirections.
  dd: true,
  mount: true,
  umount: true,
  eject: true,
  losetup: true,
  swapon: true,
  swapoff: true,
  mkswap: true,
  wipefs: true,
  fdisk: true,
  sfdisk: true,
  cfdisk: true,
  gdisk: true,
  sgdisk: true,
  parted: true,
  blkdiscard: true,
  shred: true,
  wipe: true,
  chmod: true,
  chown: true,
  chgrp: true,
  tee: true,
  cp: true,
  install: true,
  mv: true,
  ln: true,
  echo: true,
  printf: true,
  grep: true,
  rg: true,
};

/** Repairs and resizes: they change the disk without wiping it (asked about, not forbidden). */
const REPAIRS =
  /^(fsck(\.\w+)?|e2fsck|xfs_repair|resize2fs|tune2fs|e2label|xfs_admin|ntfsfix|ntfsresize|fatlabel|btrfs|mdadm|cryptsetup|udisksctl|dmsetup|vgchange|lvchange|pvmove)$/;

/** Every command with a disk among its words, unless it only reads it. */
export const diskOperand: Rule = (inv, ctx) => {
  // A runner's words include its command's (`sudo fdisk -l /dev/sda`): the command is judged itself.
  if (RUNNERS[inv.name]) return;
  const disk = inv.args.find(diskIn);
  if (!disk) return;
  const name = inv.name.replace(/^mkfs\..*|^mke2fs$|^newfs.*/, 'mkfs');
  if (name === 'mkfs') return;
  const inspects = INSPECTS[name];
  if (inspects === true || (inspects && inspects(inv))) return;
  if (REPAIRS.test(inv.name))
    return ctx.add(inv, {
      group: 'destroy_files',
      rule: 'disk_change',
      reason: `${inv.name} changes the filesystem or layout of a disk`,
      at: [inv.word, disk],
    });
  // ddrescue reads its first operand and writes the second.
  if (inv.name === 'ddrescue' && operands(inv.args)[1] && !diskIn(operands(inv.args)[1]!)) return;
  hard(ctx, inv, 'raw_device_write', `${inv.name} on a disk (${disk.value}): cannot tell it only reads it`, [
    inv.word,
    disk,
  ]);
};

/** D-Bus methods that take the machine down (login1, systemd, ConsoleKit, session managers). */
const DBUS_POWER =
  /\b(Reboot|PowerOff|Halt|KExec|RebootWithFlags|PowerOffWithFlags|HaltWithFlags|Shutdown|RequestShutdown|RequestReboot|Stop)\b/;
const DBUS_SERVICE = /login1|systemd1|ConsoleKit|SessionManager|ksmserver|KSMServer|org\.xfce\.Session|lxqt/i;

const dbus: Rule = (inv, ctx) => {
  const text = inv.args.map((w) => w.value ?? w.raw).join(' ');
  if (!DBUS_SERVICE.test(text)) return;
  if (DBUS_POWER.test(text) || (/ksmserver/i.test(text) && /\blogout\b/.test(text)))
    return hard(ctx, inv, 'shutdown', `${inv.name} asks the system to reboot, power off or halt`);
  if (/\b(Suspend|Hibernate|HybridSleep|SuspendThenHibernate|Terminate\w*|Kill\w*|LockSessions)\b/.test(text))
    ctx.add(inv, { group: 'system', rule: 'power_state', reason: `${inv.name} suspends the machine or ends sessions` });
};

/** Options and verbs of other tools that reboot, power off or log out. */
const POWER: Record<string, (a: string[]) => boolean> = {
  'gnome-session-quit': (a) => a.some((v) => /^--(power-off|reboot|logout)$/.test(v)),
  'xfce4-session-logout': (a) =>
    a.some((v) => /^--(halt|reboot|logout|poweroff|suspend|hibernate)$|^-[hrl]$/.test(v)) || !a.length,
  'lxqt-leave': (a) => a.some((v) => /^--(shutdown|reboot|logout)$/.test(v)),
  'mate-session-save': (a) => a.some((v) => /^--(shutdown-dialog|logout|force-logout)$/.test(v)),
  launchctl: (a) => a[0] === 'reboot',
  fdesetup: (a) => a[0] === 'authrestart',
  softwareupdate: (a) => a.some((v) => /^--restart$|^-[a-zA-Z]*R/.test(v)),
  ipmitool: (a) => {
    const p = a.indexOf('power');
    return p >= 0 && /^(off|cycle|reset|soft|diag)$/.test(a[p + 1] ?? '');
  },
  wsl: (a) => a.some((v) => v === '--shutdown'),
  racadm: (a) =>
    a.includes('serveraction') && a.some((v) => /^(powerdown|powercycle|hardreset|graceshutdown)$/.test(v)),
  'openrc-shutdown': () => true,
  'runit-init': (a) => a[0] === '0' || a[0] === '6',
  'x-session-manager': (a) => a.some((v) => /logout|shutdown|reboot/.test(v)),
};

const power: Rule = (inv, ctx) => {
  const a = inv.args.map((w) => w.value ?? '');
  if (POWER[inv.name]!(a)) hard(ctx, inv, 'shutdown', `${inv.name} reboots, powers off or logs out the machine`);
};

/**
 * Signals init reads as a shutdown request: INT (ctrl-alt-del: reboot), TERM (the default),
 * PWR (power failure), and systemd's real-time signals (RTMIN+3 halt, +4 power off, +5 reboot, …).
 * 0 only checks the process exists.
 */
export function initShutdownSignal(signal: string): boolean {
  const s = signal.toUpperCase().replace(/^SIG/, '');
  return s === '' || /^(INT|TERM|PWR|2|15|30|RTMIN\+\d+|RTMAX(-\d+)?|3[4-9]|[4-5]\d|6[0-4])$/.test(s);
}

export const DEVICE_RULES: Record<string, Rule> = {
  'dbus-send': dbus,
  busctl: dbus,
  gdbus: dbus,
  qdbus: dbus,
  'qdbus-qt5': dbus,
  'dbus-launch': dbus,
  ...Object.fromEntries(Object.keys(POWER).map((n) => [n, power])),
};
