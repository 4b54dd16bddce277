/**
 * Changing the machine itself (group system) — and taking it down (hardline): shutdown and
 * reboot in every form, killing every process, services, firewall rules, users and sudoers,
 * kernel modules and settings, mounts and swap, boot loaders, system packages, clock and hostname,
 * security switches (SELinux, SIP, Gatekeeper), privileged containers and namespace tricks.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { hasOption, operands, optionWords } from '../options.js';
import { privilegedContainer } from './infrastructure.js';
import { initShutdownSignal } from './devices.js';
import { systemctlPersist } from './persist.js';

const S = 'system' as const;
const hard = (ctx: RuleContext, inv: Invocation, rule: string, reason: string) =>
  ctx.add(inv, { level: 'hardline', group: S, rule, reason });
const ask = (ctx: RuleContext, inv: Invocation, rule: string, reason: string) =>
  ctx.add(inv, { group: S, rule, reason });

const shutdown: Rule = (inv, ctx) => {
  if (inv.args.some((w) => /^(-c|--cancel|--help|--show)$/.test(w.value ?? ''))) return;
  hard(ctx, inv, 'shutdown', 'shuts down or reboots the machine');
};

const initRule: Rule = (inv, ctx) => {
  const level = operands(inv.args)[0]?.value;
  if (level === '0' || level === '6' || level === 'S' || level === 's' || level === '1')
    hard(ctx, inv, 'shutdown', `changes the runlevel to ${level}`);
};

const systemctl: Rule = (inv, ctx) => {
  const verb = operands(inv.args)[0]?.value ?? '';
  const target = operands(inv.args)[1]?.value ?? '';
  if (
    /^(start|isolate|restart)$/.test(verb) &&
    /^(reboot|poweroff|halt|kexec|rescue|emergency|shutdown|soft-reboot)\.target$/.test(target)
  )
    return hard(ctx, inv, 'shutdown', `systemctl ${verb} ${target} takes the machine down`);
  if (/^(poweroff|reboot|halt|kexec|soft-reboot|rescue|emergency|default)$/.test(verb))
    return hard(ctx, inv, 'shutdown', `systemctl ${verb} takes the machine down`);
  if (/^(suspend|hibernate|hybrid-sleep|suspend-then-hibernate|isolate|set-default)$/.test(verb))
    return ask(ctx, inv, 'power_state', `systemctl ${verb}`);
  if (
    /^(stop|restart|try-restart|reload-or-restart|disable|mask|kill|reset-failed|daemon-reload|daemon-reexec|revert|freeze)$/.test(
      verb,
    )
  )
    return ask(ctx, inv, 'service_stop', `systemctl ${verb} changes running services`);
  systemctlPersist(inv, ctx);
};

const service: Rule = (inv, ctx) => {
  const verb = operands(inv.args)
    .map((w) => w.value ?? '')
    .find((v) =>
      /^(stop|restart|force-reload|force-restart|disable|kill|down|exit|--full-restart|force-stop)$/.test(v),
    );
  if (verb) ask(ctx, inv, 'service_stop', `${inv.name} ${verb}`);
};

export const initScript: Rule = (inv, ctx) => {
  if (
    /^\/etc\/(init\.d|rc\.d)\//.test(inv.path) &&
    /^(stop|restart|force-reload)$/.test(operands(inv.args)[0]?.value ?? '')
  )
    ask(ctx, inv, 'service_stop', `${inv.path} stops a service`);
};

const kill: Rule = (inv, ctx) => {
  const a = inv.args.map((w) => w.value ?? '');
  // A signal first (`-9`, `-KILL`, `-s KILL`, `-n 9`), then `--`, then the targets.
  let i = 0;
  let signal = '';
  if (a[0] === '-s' || a[0] === '-n' || a[0] === '--signal') {
    signal = a[1] ?? '';
    i = 2;
  } else if (a[0] && /^-[A-Za-z0-9+-]+$/.test(a[0]) && a[0] !== '-1' && (a.length > 1 || inv.operandsFromStdin)) {
    signal = a[0].slice(1);
    i = 1;
  }
  if (a[i] === '--') i++;
  const targets = a.slice(i);
  // `-1` as a target is every process; a lone `kill -1` is read the same way (fail closed).
  if (targets.includes('-1') || (a.length === 1 && a[0] === '-1'))
    return hard(ctx, inv, 'kill_all', 'kills every process');
  if (targets.includes('1') && signal !== '0') {
    if (initShutdownSignal(signal))
      return hard(
        ctx,
        inv,
        'shutdown',
        `signal ${signal || 'TERM'} to init (pid 1) shuts the machine down or reboots it`,
      );
    return ask(ctx, inv, 'kill_init', 'signals init (pid 1)');
  }
  if (inv.operandsFromStdin && signal !== '0')
    return ask(ctx, inv, 'kill_many', 'kills processes listed only at run time');
  if (/^(9|KILL|SIGKILL)$/i.test(signal)) ask(ctx, inv, 'force_kill', 'force-kills processes (no chance to clean up)');
};

const pkill: Rule = (inv, ctx) => {
  const a = inv.args.map((w) => w.value ?? '');
  if (
    a.some(
      (v, i) =>
        /^-(9|KILL|SIGKILL)$/i.test(v) ||
        (v === '-s' && /^(9|KILL)$/i.test(a[i + 1] ?? '')) ||
        /^--signal=(9|KILL)/.test(v),
    )
  )
    return ask(ctx, inv, 'force_kill', `${inv.name} -9 force-kills processes`);
  if (a.some((v, i) => /^-u$|^--(user|euid|uid)/.test(v) && /^(root|0)$/.test(a[i + 1] ?? v.split('=')[1] ?? '')))
    return ask(ctx, inv, 'force_kill', `${inv.name} of root's processes`);
  // `pkill -P 1` (every child of init), `pkill -f .` (a pattern every command line matches).
  if (
    a.some((v, i) => /^(-P|--parent)$/.test(v) && /^(1|0)$/.test(a[i + 1] ?? '')) ||
    a.some((v) => /^--parent=1$/.test(v))
  )
    return ask(ctx, inv, 'kill_many', `${inv.name} -P 1 kills every process init started`);
  const pattern = operands(inv.args).pop()?.value;
  if (
    inv.name !== 'killall' &&
    (pattern === undefined || pattern === null ? false : /^(\.|\.\*|\^|\$|\^\.\*\$?|\.\+|\[\^\]\*|)$/.test(pattern))
  )
    return ask(ctx, inv, 'kill_many', `${inv.name} with a pattern every process matches`);
  // killall kills every process of that name (and on some systems, every process): always a question.
  if (inv.name === 'killall') return ask(ctx, inv, 'force_kill', 'killall kills every process with that name');
  if (inv.name === 'killall5') return hard(ctx, inv, 'kill_all', 'kills every process');
};

/** Firewall tools: anything but listing changes what reaches the machine. */
const firewall: Rule = (inv, ctx) => {
  const o = optionWords(inv.args);
  const listing: Record<string, () => boolean> = {
    iptables: () =>
      o.some((x) => /^-[a-zA-Z]*[LS]$|^--(list|list-rules)$/.test(x)) &&
      !o.some((x) => /^-[a-zA-Z]*[FXPDAIRZN]$/.test(x)),
    ip6tables: () => listing.iptables!(),
    nft: () => /^(list|-a|monitor)/.test(operands(inv.args)[0]?.value ?? ''),
    ufw: () => /^(status|app|show)$/.test(operands(inv.args)[0]?.value ?? ''),
    'firewall-cmd': () => o.every((x) => /^--(list|get|query|state)/.test(x)),
    pfctl: () => o.every((x) => /^-s/.test(x)),
  };
  if (listing[inv.name]?.()) return;
  ask(ctx, inv, 'firewall', `${inv.name} changes the firewall`);
};

const users: Rule = (inv, ctx) => ask(ctx, inv, 'users', `${inv.name} changes users, groups or passwords`);

const sysctl: Rule = (inv, ctx) => {
  if (
    inv.args.some(
      (w) => /^-[a-zA-Z]*[wp]$|^--(write|load|system)$/.test(w.value ?? '') || /^[\w.]+=/.test(w.value ?? ''),
    )
  )
    ask(ctx, inv, 'kernel_setting', 'changes kernel settings');
};

const kernel: Rule = (inv, ctx) => {
  if (
    inv.name === 'modprobe' &&
    inv.args.some((w) => /^-[a-zA-Z]*[nc]$|^--(show|dry-run|show-config|show-depends)/.test(w.value ?? ''))
  )
    return;
  ask(ctx, inv, 'kernel_module', `${inv.name} loads or unloads kernel code`);
};

const mount: Rule = (inv, ctx) => {
  if (inv.name === 'mount' && inv.args.length === 0) return;
  if (
    inv.name === 'mount' &&
    inv.args.every((w) => /^-[lt]$|^--(list|types?)/.test(w.value ?? '') || w.value === 'ext4')
  )
    return;
  ask(ctx, inv, 'mount', `${inv.name} changes mounts or swap`);
};

const packages: Rule = (inv, ctx) => {
  const ops = operands(inv.args).map((w) => w.value ?? '');
  const removes: Record<string, RegExp> = {
    'apt-get': /^(remove|purge|autoremove|autopurge|dist-upgrade|clean)$/,
    apt: /^(remove|purge|autoremove|autopurge|full-upgrade)$/,
    aptitude: /^(remove|purge)$/,
    dpkg: /^$/,
    yum: /^(remove|erase|autoremove|history)$/,
    dnf: /^(remove|erase|autoremove|history|distro-sync)$/,
    rpm: /^$/,
    pacman: /^$/,
    zypper: /^(rm|remove|dup|dist-upgrade)$/,
    apk: /^(del)$/,
    brew: /^(uninstall|remove|rm|autoremove|cleanup)$/,
    snap: /^(remove|revert|disable)$/,
    flatpak: /^(uninstall|remove)$/,
    port: /^(uninstall|clean)$/,
    emerge: /^$/,
  };
  const re = removes[inv.name];
  if (!re) return;
  const flags = optionWords(inv.args);
  const flagged =
    (inv.name === 'dpkg' && flags.some((f) => /^-[a-zA-Z]*[rP]$|^--(remove|purge)$/.test(f))) ||
    (inv.name === 'rpm' && flags.some((f) => /^-[a-zA-Z]*e$|^--erase$/.test(f))) ||
    (inv.name === 'pacman' && flags.some((f) => /^-R/.test(f))) ||
    (inv.name === 'emerge' && flags.some((f) => /^--(unmerge|depclean|prune)|^-[a-zA-Z]*C/.test(f)));
  if (flagged || ops.some((o) => re.test(o) && o !== ''))
    ask(ctx, inv, 'package_remove', `${inv.name} removes system packages`);
};

const privileged: Rule = (inv, ctx) => {
  const why = privilegedContainer(inv);
  if (why) ask(ctx, inv, 'privileged_container', `runs ${why}`);
};

const ALWAYS: Record<string, string> = {
  setenforce: 'switches SELinux enforcement',
  csrutil: 'changes macOS System Integrity Protection',
  spctl: 'changes macOS Gatekeeper',
  nvram: 'changes firmware variables',
  'grub-install': 'rewrites the boot loader',
  'grub-mkconfig': 'rewrites the boot configuration',
  'update-grub': 'rewrites the boot configuration',
  efibootmgr: 'changes EFI boot entries',
  bootctl: 'changes the boot loader',
  chattr: 'changes file attributes (immutable files)',
  setcap: 'grants capabilities to a program',
  setfacl: 'changes access control lists',
  hostnamectl: 'changes the hostname',
  timedatectl: 'changes the clock or time zone',
  hwclock: 'changes the hardware clock',
  pmset: 'changes power management',
  insmod: 'loads kernel code',
  rmmod: 'unloads kernel code',
  kextload: 'loads kernel code',
  kextunload: 'unloads kernel code',
  swapoff: 'turns swap off',
  swapon: 'changes swap',
  visudo: 'edits sudoers',
  vipw: 'edits the password file',
  vigr: 'edits the group file',
  nsenter: 'enters another process’s namespaces (a way out of containers)',
  unshare: 'creates namespaces (privileges inside them)',
  chroot: 'runs a command as root in another root',
  sysadminctl: 'changes macOS users',
  dscl: 'changes directory services (users)',
};

/** Network interfaces, routes and resolvers: listing is fine, changing them cuts the machine off. */
const network: Rule = (inv, ctx) => {
  const words = operands(inv.args).map((w) => w.value ?? '');
  const changes =
    inv.name === 'ip'
      ? words.some((w) => /^(set|del|delete|add|flush|change|replace|down|up)$/.test(w))
      : inv.name === 'ifconfig'
        ? words.some((w) => /^(down|up|inet|netmask|alias|-alias|delete|mtu)$/.test(w))
        : inv.name === 'nmcli'
          ? words.some((w) => /^(off|down|delete|modify|disconnect)$/.test(w))
          : inv.name === 'resolvectl'
            ? words.some((w) => /^(dns|domain|default-route|llmnr|mdns|dnssec|dnsovertls|revert|flush-caches)$/.test(w))
            : inv.name === 'route'
              ? words.some((w) => /^(add|del|delete|flush|change)$/.test(w))
              : true;
  if (changes) ask(ctx, inv, 'network_config', `${inv.name} changes network interfaces, routes or DNS`);
};

/** `verb` words after which a tool changes the system (each entry: tool → its changing verbs). */
const CHANGING: Record<string, RegExp> = {
  launchctl: /^(unload|bootout|remove|stop|kill|disable)$/,
  brew: /^services$/,
  loginctl: /^(terminate-user|terminate-session|terminate-seat|kill-user|kill-session|disable-linger|lock-sessions)$/,
  tmutil: /^(disable|delete|deletelocalsnapshots|removeexclusion|disablelocal)$/,
  fdesetup: /^(disable|remove|removerecovery)$/,
  journalctl: /^--(vacuum-time|vacuum-size|vacuum-files|rotate|flush|relinquish-var)/,
  auditctl: /^-(D|e|W|a|d|w)$/,
  localectl: /^set-/,
  dseditgroup: /^-o$/,
  kmutil: /^(load|unload|install)$/,
  'update-alternatives': /^--(set|install|remove|remove-all|config|auto|all)$/,
  socketfilterfw: /^--(setglobalstate|setblockall|setstealthmode|add|remove|unblockapp)/,
  dmesg: /^-(C|c|D|n)$|^--(clear|read-clear|console-off|console-level)/,
  renice: /^-?-?\d|^-n$/,
  skill: /^-/,
  snice: /^/,
  'aa-disable': /^/,
  'aa-complain': /^/,
  apparmor_parser: /^-(R|--remove)/,
  sestatus: /^$/,
};

const changing: Rule = (inv, ctx) => {
  const re = CHANGING[inv.name];
  if (!re) return;
  if (inv.name === 'brew') {
    const w = operands(inv.args).map((x) => x.value);
    if (w[0] === 'services' && /^(stop|kill|restart)$/.test(w[1] ?? ''))
      ask(ctx, inv, 'service_stop', `brew services ${w[1]}`);
    return;
  }
  if (inv.args.some((w) => re.test(w.value ?? '')) || (inv.args.length === 0 && re.source === '^'))
    ask(ctx, inv, 'system_change', `${inv.name} changes the system`);
};

const loginctl: Rule = (inv, ctx) => {
  const verb = operands(inv.args)[0]?.value ?? '';
  if (/^(reboot|poweroff|halt|kexec)$/.test(verb))
    return hard(ctx, inv, 'shutdown', `loginctl ${verb} takes the machine down`);
  changing(inv, ctx);
};

export const SYSTEM_RULES: Record<string, Rule> = {
  ...Object.fromEntries(Object.keys(CHANGING).map((n) => [n, changing])),
  loginctl,
  ip: network,
  ifconfig: network,
  nmcli: network,
  resolvectl: network,
  route: network,
  shutdown,
  reboot: shutdown,
  halt: shutdown,
  poweroff: shutdown,
  init: initRule,
  telinit: initRule,
  systemctl,
  service,
  sv: service,
  'rc-service': service,
  kill,
  pkill,
  killall: pkill,
  kexec: (inv, ctx) => {
    if (hasOption(inv.args, { short: 'e', long: ['--exec'] }) || inv.args.length === 0)
      hard(ctx, inv, 'shutdown', 'kexec -e boots another kernel now');
    else ask(ctx, inv, 'kernel_module', 'loads another kernel');
  },
  killall5: (inv, ctx) => hard(ctx, inv, 'kill_all', 'kills every process'),
  fuser: (inv, ctx) => {
    if (hasOption(inv.args, { short: 'k', long: ['--kill'] }))
      ask(ctx, inv, 'kill_many', 'fuser -k kills every process using the files or mounts');
  },
  iptables: firewall,
  ip6tables: firewall,
  'iptables-restore': firewall,
  nft: firewall,
  ufw: firewall,
  'firewall-cmd': firewall,
  pfctl: firewall,
  useradd: users,
  adduser: users,
  userdel: users,
  deluser: users,
  usermod: users,
  passwd: users,
  chpasswd: users,
  groupadd: users,
  groupdel: users,
  groupmod: users,
  gpasswd: users,
  chsh: users,
  chage: users,
  newusers: users,
  sysctl,
  modprobe: kernel,
  mount,
  umount: mount,
  losetup: mount,
  'apt-get': packages,
  apt: packages,
  aptitude: packages,
  dpkg: packages,
  yum: packages,
  dnf: packages,
  rpm: packages,
  pacman: packages,
  zypper: packages,
  apk: packages,
  brew: (inv, ctx) => {
    packages(inv, ctx);
    changing(inv, ctx);
  },
  snap: packages,
  flatpak: packages,
  port: packages,
  emerge: packages,
  docker: privileged,
  podman: privileged,
  nerdctl: privileged,
  date: (inv, ctx) => {
    if (hasOption(inv.args, { short: 's', long: ['--set'] })) ask(ctx, inv, 'clock', 'sets the system clock');
  },
  diskutil: (inv, ctx) => {
    if (/^unmount/.test(operands(inv.args)[0]?.value ?? '')) ask(ctx, inv, 'mount', 'unmounts disks');
  },
  ...Object.fromEntries(
    Object.entries(ALWAYS).map(([name, reason]) => [
      name,
      (inv, ctx) => ask(ctx, inv, /kernel/.test(reason) ? 'kernel_module' : 'system_change', reason),
    ]),
  ),
};
