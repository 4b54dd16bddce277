/**
 * More of the machine itself (group system): process supervisors (`supervisorctl stop all`,
 * `pm2 kill`, `s6-svc -d`), traffic shaping and network settings (`tc qdisc`, `networksetup`),
 * trust stores (`security add-trusted-cert`, `update-ca-certificates`), macOS and SELinux security
 * switches (`systemsetup`, removing the quarantine attribute, `tccutil reset`, `semanage`), boot
 * and firmware (`update-initramfs`, `grub-reboot`, `mokutil`, `fwupdmgr`, `flashrom`), load
 * generators, packages installed outside the package manager's checks (`dpkg -i`, `rpm -i
 * --nosignature`, `snap install --dangerous`, `pacman -Syu`, `do-release-upgrade`), and language
 * package managers run as root (`sudo pip install`, `sudo npm install -g`).
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import type { Word } from '../shell.js';
import { hasOption, operands, optionValue, optionWords } from '../options.js';

/** The options of a command line (words starting with `-`, up to `--`). */
const flags = (args: readonly Word[]) => optionWords(args).filter((o) => o.startsWith('-'));

const S = 'system' as const;
const ask = (ctx: RuleContext, inv: Invocation, rule: string, reason: string) =>
  ctx.add(inv, { group: S, rule, reason });

/** Supervisors and the verbs that stop or remove what they supervise. */
const SUPERVISORS: Record<string, RegExp> = {
  supervisorctl: /^(stop|restart|shutdown|remove|reload|update|clear|signal)$/,
  pm2: /^(kill|stop|delete|del|restart|reload|flush|unstartup|reset|scale)$/,
  's6-svc': /^-[a-zA-Z]*[dkxtOqbiDKT]/,
  's6-rc': /^(-d|change|-D)$/,
  svc: /^-[a-zA-Z]*[dkxt]/,
  monit: /^(stop|unmonitor|restart|quit|reload)$/,
  circusctl: /^(stop|quit|restart|rm|decr|reload)$/,
  forever: /^(stop|stopall|restart|restartall|cleanlogs)$/,
  initctl: /^(stop|restart|reload)$/,
};

const supervisor: Rule = (inv, ctx) => {
  const re = SUPERVISORS[inv.name]!;
  const hit = inv.args.find((w) => w.value !== null && re.test(w.value));
  if (hit) ask(ctx, inv, 'service_stop', `${inv.name} ${hit.value} stops or restarts supervised services`);
};

/** Network tools that change the machine's traffic: anything but their listing forms. */
const NETWORK: Record<string, (inv: Invocation, ops: string[]) => boolean> = {
  tc: (_inv, ops) => ops.some((o) => /^(add|del|delete|change|replace|link|flush)$/.test(o)),
  networksetup: (inv) =>
    inv.args.some((w) => /^-(set|remove|create|delete|add|switch|order|detect)/i.test(w.value ?? '')),
  scutil: (inv) => hasOption(inv.args, { long: ['--set'] }),
  iw: (_inv, ops) => ops.some((o) => /^(set|del|disconnect|connect|add)$/.test(o)),
  wg: (_inv, ops) => /^(set|setconf|addconf|syncconf)$/.test(ops[0] ?? ''),
  'wg-quick': (_inv, ops) => /^(up|down|save|strip)$/.test(ops[0] ?? ''),
  netplan: (_inv, ops) => /^(apply|try|set)$/.test(ops[0] ?? ''),
  ifdown: () => true,
  ifup: () => true,
  dhclient: (inv) => hasOption(inv.args, { short: 'rx' }),
  ethtool: (inv) => hasOption(inv.args, { short: 'sKAGCLEfrW' }),
  brctl: (_inv, ops) => /^(add|del|set)/.test(ops[0] ?? ''),
  'ovs-vsctl': (_inv, ops) => /^(add|del|set|clear|remove|emer-reset)/.test(ops[0] ?? ''),
  iwconfig: (_inv, ops) => ops.length > 1,
  rfkill: (_inv, ops) => /^(block|unblock)$/.test(ops[0] ?? ''),
  ipset: (_inv, ops) => /^(add|del|create|destroy|flush|swap|restore)$/.test(ops[0] ?? ''),
  arp: (inv) => hasOption(inv.args, { short: 'sdf' }),
};

const network: Rule = (inv, ctx) => {
  const ops = operands(inv.args).map((w) => w.value ?? '');
  if (NETWORK[inv.name]!(inv, ops))
    ask(ctx, inv, 'network_config', `${inv.name} changes network traffic, interfaces or DNS`);
};

/** Trust stores: a certificate added there is trusted for every TLS connection. */
const TRUST: Record<string, (inv: Invocation, ops: string[]) => boolean> = {
  security: (_inv, ops) =>
    /^(add-trusted-cert|add-certificates|remove-trusted-cert|delete-certificate|trust-settings-import|authorizationdb|import|set-keychain-settings|unlock-keychain|set-key-partition-list)$/.test(
      ops[0] ?? '',
    ),
  'update-ca-certificates': () => true,
  'update-ca-trust': () => true,
  trust: (_inv, ops) => /^(anchor|extract-compat)$/.test(ops[0] ?? ''),
  certutil: (inv) => inv.args.some((w) => /^-(A|D|M|N|addstore|delstore)$/i.test(w.value ?? '')),
  keytool: (inv) =>
    inv.args.some((w) => /^-(importcert|import|delete|storepasswd)$/.test(w.value ?? '')) &&
    inv.args.some((w) => /cacerts/.test(w.value ?? '')),
};

const trust: Rule = (inv, ctx) => {
  const ops = operands(inv.args).map((w) => w.value ?? '');
  if (TRUST[inv.name]!(inv, ops))
    ask(ctx, inv, 'trust_store', `${inv.name} changes which certificates or keychains the system trusts`);
};

/** macOS and SELinux security switches. */
const SECURITY: Record<string, (inv: Invocation, ops: string[]) => boolean> = {
  systemsetup: (inv) => inv.args.some((w) => /^-set/i.test(w.value ?? '')),
  xattr: (inv) =>
    hasOption(inv.args, { short: 'dc' }) &&
    (hasOption(inv.args, { short: 'c' }) ||
      inv.args.some((w) => /quarantine|com\.apple\.(provenance|macl)/.test(w.value ?? ''))),
  tccutil: (_inv, ops) => ops[0] === 'reset',
  semanage: (inv) => !inv.args.some((w) => /^(-l|--list|-E|--extract|-h)$/.test(w.value ?? '')),
  setsebool: () => true,
  'aa-teardown': () => true,
  profiles: (_inv, ops) => /^(install|remove|renew|-I|-R|-D)$/.test(ops[0] ?? ''),
};

const security: Rule = (inv, ctx) => {
  const ops = operands(inv.args).map((w) => w.value ?? '');
  if (SECURITY[inv.name]!(inv, ops))
    ask(ctx, inv, 'security_switch', `${inv.name} changes a security protection of the system`);
};

/** Boot and firmware: what the machine runs before the system does. */
const BOOT: Record<string, (inv: Invocation, ops: string[]) => boolean> = {
  'update-initramfs': (inv) => hasOption(inv.args, { short: 'cud' }),
  mkinitcpio: (inv) => hasOption(inv.args, { short: 'gPp', long: ['--allpresets', '--generate', '--preset'] }),
  dracut: () => true,
  'grub-reboot': () => true,
  'grub-set-default': () => true,
  'grub2-reboot': () => true,
  'grub2-set-default': () => true,
  'grub2-mkconfig': () => true,
  'grub2-install': () => true,
  'grub-editenv': (_inv, ops) => /^(set|unset|create)$/.test(ops[1] ?? ''),
  mokutil: (inv) =>
    !flags(inv.args).every((o) =>
      /^(-l|--list-enrolled|--sb-state|--list-new|--list-delete|-t|--test-key|--pk|--kek|--db|--dbx|-h|--help)$/.test(
        o,
      ),
    ),
  fwupdmgr: (_inv, ops) =>
    /^(update|install|downgrade|reinstall|switch-branch|unlock|activate|clear-results|modify-config|set-approved-firmware|enable-remote|modify-remote)$/.test(
      ops[0] ?? '',
    ),
  fwupdtool: (_inv, ops) =>
    /^(install|install-blob|update|firmware-dump|activate|reinstall|switch-branch)$/.test(ops[0] ?? ''),
  flashrom: (inv) => hasOption(inv.args, { short: 'wE', long: ['--write', '--erase'] }),
  sbctl: (_inv, ops) => /^(enroll-keys|sign|sign-all|reset|remove-file|create-keys|rotate-keys)$/.test(ops[0] ?? ''),
  kernelstub: () => true,
  bless: () => true,
  bcdedit: () => true,
};

const boot: Rule = (inv, ctx) => {
  const ops = operands(inv.args).map((w) => w.value ?? '');
  if (BOOT[inv.name]!(inv, ops))
    ask(ctx, inv, 'boot_firmware', `${inv.name} changes the boot configuration or firmware`);
};

/** Load generators: they take the machine's CPU, memory or disk on purpose. */
const LOAD = new Set(['stress-ng', 'stress', 'memtester', 'cpuburn', 'burnP6', 'fio']);

const load: Rule = (inv, ctx) => {
  if (
    inv.name === 'fio' &&
    !inv.args.some((w) => /^--(size|filename)=/.test(w.value ?? '') && /\/dev\/|[0-9]+[GT]/.test(w.value ?? ''))
  )
    return;
  if (hasOption(inv.args, { long: ['--help', '--version'] })) return;
  ask(ctx, inv, 'resource_exhaustion', `${inv.name} exhausts the machine's CPU, memory or disk`);
};

/** Packages installed around the package manager's checks, or the whole system upgraded. */
const localPackages: Rule = (inv, ctx) => {
  const o = flags(inv.args);
  const ops = operands(inv.args).map((w) => w.value ?? '');
  const local =
    (inv.name === 'dpkg' && o.some((x) => /^-[a-zA-Z]*i|^--(install|unpack)$/.test(x))) ||
    // rpm's -i in query mode (`rpm -qi bash`) is "info".
    (inv.name === 'rpm' &&
      o.some((x) => /^-[a-zA-Z]*[iUF]|^--(install|upgrade|freshen|reinstall)$/.test(x)) &&
      !o.some((x) => /^-[a-zA-Z]*[qV]|^--(query|verify)$/.test(x))) ||
    (inv.name === 'snap' && ops[0] === 'install' && o.some((x) => /^--(dangerous|devmode|jailmode)$/.test(x))) ||
    (inv.name === 'pacman' && o.some((x) => /^-[a-zA-Z]*(S[a-zA-Z]*u|U)/.test(x))) ||
    ((inv.name === 'apt' || inv.name === 'apt-get') && ops[0] === 'install' && ops.some((p) => /\.deb$/.test(p))) ||
    ((inv.name === 'yum' || inv.name === 'dnf') && ops[0] === 'install' && o.some((x) => /^--nogpgcheck$/.test(x))) ||
    (inv.name === 'installer' && o.includes('-pkg')) ||
    /^(do-release-upgrade|pkcon)$/.test(inv.name);
  if (local)
    ask(
      ctx,
      inv,
      'package_install',
      `${inv.name} installs packages outside the checks of the system's repositories, or upgrades the whole system`,
    );
};

/** Language package managers run as root: install scripts run as root, files land in system folders. */
const ROOT_INSTALL: Record<string, RegExp> = {
  pip: /^(install|uninstall|download)$/,
  pip3: /^(install|uninstall)$/,
  npm: /^(install|i|add|uninstall|rm|update|ci|link)$/,
  pnpm: /^(add|install|i|remove)$/,
  yarn: /^(global|add)$/,
  gem: /^(install|update|uninstall)$/,
  cargo: /^(install)$/,
  go: /^(install)$/,
  composer: /^(global|require|install)$/,
  cpan: /^/,
  cpanm: /^/,
};

export const rootInstall: Rule = (inv, ctx) => {
  if (!inv.asRoot) return;
  const re = ROOT_INSTALL[/^pip\d[\d.]*$/.test(inv.name) ? 'pip3' : inv.name];
  if (!re) return;
  const verb = operands(inv.args)[0]?.value ?? '';
  if (re.test(verb) || (re.source === '^' && inv.args.length))
    ask(
      ctx,
      inv,
      'root_package_install',
      `${inv.name} ${verb} as root: install scripts run as root and files land in system folders`,
    );
};

/** `nmap --script=/tmp/x.nse`: NSE scripts are Lua programs (a file, not a built-in category). */
const nmap: Rule = (inv, ctx) => {
  const script = optionValue(inv.args, undefined, ['--script']);
  if (script === undefined) return;
  if (script === null || script.split(',').some((s) => /[/.]/.test(s) && !/^[\w-]+$/.test(s)))
    ctx.add(inv, { group: 'indirection', rule: 'script_file', reason: 'nmap runs an NSE script file (Lua code)' });
};

/** `scp -S prog`, `sftp -S prog`: another program instead of ssh. */
const sshProgram: Rule = (inv, ctx) => {
  const p = optionValue(inv.args, 'S');
  if (p !== undefined && p !== 'ssh' && p !== '/usr/bin/ssh')
    ctx.add(inv, {
      group: 'indirection',
      rule: 'alternate_program',
      reason: `${inv.name} -S runs ${p ?? 'a program only known at run time'} instead of ssh`,
    });
};

/** `install -m 4755`, `install -m =xs`: a setuid program. */
const installMode: Rule = (inv, ctx) => {
  const mode = optionValue(inv.args, 'm', ['--mode']);
  if (mode && (/s/.test(mode) || /^0?[4-7][0-7]{3}$/.test(mode)))
    ask(ctx, inv, 'setuid', 'installs a setuid or setgid program');
};

const table = <T>(names: Record<string, T> | Set<string>, rule: Rule) =>
  Object.fromEntries([...(names instanceof Set ? names : Object.keys(names))].map((n) => [n, rule]));

export const SERVICE_RULES: Record<string, Rule> = {
  ...table(SUPERVISORS, supervisor),
  ...table(NETWORK, network),
  ...table(TRUST, trust),
  ...table(SECURITY, security),
  ...table(BOOT, boot),
  ...table(LOAD, load),
  ...table(
    new Set([
      'dpkg',
      'rpm',
      'snap',
      'pacman',
      'apt',
      'apt-get',
      'yum',
      'dnf',
      'installer',
      'do-release-upgrade',
      'pkcon',
    ]),
    localPackages,
  ),
  ...table(ROOT_INSTALL, rootInstall),
  pip3: rootInstall,
  nmap,
  scp: sshProgram,
  sftp: sshProgram,
  install: installMode,
};
