/**
 * Planting something that runs later (group persist): cron and at jobs, services enabled at boot
 * or login, launch agents, SSH keys for someone else, package-manager settings that change where
 * code comes from, and in-place edits of shell startup and system files. Writes by redirection,
 * `tee`, `cp` and friends are judged by the file they write (rules/files.ts, `writesTo`).
 */
import type { Rule } from '../invocation.js';
import { hasOption, operands } from '../options.js';
import { writesTo } from './files.js';
import { stdinCode } from './code.js';
import { packageConfig } from './supply-chain.js';

const P = 'persist' as const;

const crontab: Rule = (inv, ctx) => {
  if (hasOption(inv.args, { short: 'l' }) && !hasOption(inv.args, { short: 'r' })) return;
  if (hasOption(inv.args, { short: 'r' }))
    return ctx.add(inv, { group: P, rule: 'crontab_remove', reason: 'crontab -r removes every scheduled job' });
  ctx.add(inv, { group: P, rule: 'cron', reason: 'installs cron jobs (they run later, outside this session)' });
  stdinCode(inv, ctx, 'shell');
};

const at: Rule = (inv, ctx) => {
  if (hasOption(inv.args, { short: 'lcr', long: ['--list'] }) || inv.name === 'atq' || inv.name === 'atrm') return;
  ctx.add(inv, { group: P, rule: 'at_job', reason: `${inv.name} schedules a command to run later` });
  stdinCode(inv, ctx, 'shell');
};

const systemctl: Rule = (inv, ctx) => {
  const verb = operands(inv.args)[0]?.value ?? '';
  if (/^(enable|link|preset|preset-all|reenable|edit|add-wants|add-requires|set-property)$/.test(verb))
    ctx.add(inv, { group: P, rule: 'service_enable', reason: `systemctl ${verb}: a service that starts on its own` });
};

const launchctl: Rule = (inv, ctx) => {
  const verb = operands(inv.args)[0]?.value ?? '';
  if (/^(load|bootstrap|enable|submit|kickstart)$/.test(verb))
    ctx.add(inv, { group: P, rule: 'service_enable', reason: `launchctl ${verb}: an agent that starts on its own` });
};

const inPlace: Rule = (inv, ctx) => {
  const editing = inv.args.some((w) => /^-[a-zA-Z]*i|^--in-place/.test(w.value ?? ''));
  if (!editing) return;
  for (const t of operands(inv.args).slice(inv.name === 'sed' ? 0 : 0)) writesTo(ctx, inv, t, `${inv.name} -i`);
};

const defaults: Rule = (inv, ctx) => {
  const o = operands(inv.args).map((w) => w.value ?? '');
  if (o[0] === 'write' && /LoginHook|LogoutHook|loginwindow|LaunchAgents|AutoLaunch|StartupItems/i.test(o.join(' ')))
    ctx.add(inv, { group: P, rule: 'login_hook', reason: 'installs a login or logout hook' });
};

const sources: Rule = (inv, ctx) => {
  const o = operands(inv.args).map((w) => w.value ?? '');
  const adds = inv.args.some((w) => /^(--add|-a|--prepend|--append|--set)$/.test(w.value ?? ''));
  if (
    (inv.name === 'conda' &&
      o[0] === 'config' &&
      adds &&
      /channels?|channel_alias|custom_channels/.test(o.join(' '))) ||
    (inv.name === 'gem' && o[0] === 'sources' && adds)
  )
    ctx.add(inv, { group: P, rule: 'package_source', reason: `${inv.name} adds a package source` });
};

const npmPkgSet: Rule = (inv, ctx) => {
  const o = operands(inv.args).map((w) => w.value ?? '');
  if (
    o[0] === 'pkg' &&
    o[1] === 'set' &&
    o.slice(2).some((kv) => /^scripts\.(pre|post)?(install|prepare|prepublish|publish|pack|test|start|build)?/.test(kv))
  )
    ctx.add(inv, { group: P, rule: 'lifecycle_script', reason: 'adds a package script that runs on install or use' });
};

const restartAlways: Rule = (inv, ctx) => {
  if (
    inv.args.some(
      (w) =>
        (/^--restart(=|$)/.test(w.value ?? '') && /always|unless-stopped/.test(w.value ?? '')) ||
        (w.value === '--restart' && false),
    ) ||
    inv.args.some((w, i) => w.value === '--restart' && /always|unless-stopped/.test(inv.args[i + 1]?.value ?? ''))
  )
    ctx.add(inv, {
      group: P,
      rule: 'restart_always',
      reason: 'a container that restarts forever, outside this session',
    });
};

export const PERSIST_RULES: Record<string, Rule> = {
  crontab,
  at,
  batch: at,
  'ssh-copy-id': (inv, ctx) =>
    ctx.add(inv, { group: P, rule: 'ssh_key_install', reason: 'installs an SSH key for login' }),
  'update-rc.d': (inv, ctx) => ctx.add(inv, { group: P, rule: 'service_enable', reason: 'enables a boot service' }),
  chkconfig: (inv, ctx) => ctx.add(inv, { group: P, rule: 'service_enable', reason: 'enables a boot service' }),
  'rc-update': (inv, ctx) => ctx.add(inv, { group: P, rule: 'service_enable', reason: 'enables a boot service' }),
  'systemd-run': (inv, ctx) =>
    ctx.add(inv, {
      group: P,
      rule: 'transient_service',
      reason: 'runs a command as a system or user service, outside this call',
    }),
  loginctl: (inv, ctx) => {
    if (inv.args.some((w) => w.value === 'enable-linger'))
      ctx.add(inv, { group: P, rule: 'service_enable', reason: 'keeps user services running after logout' });
  },
  launchctl,
  defaults,
  conda: sources,
  gem: sources,
  direnv: (inv, ctx) => {
    if (operands(inv.args)[0]?.value === 'allow')
      ctx.add(inv, { group: P, rule: 'direnv_allow', reason: 'lets .envrc run whenever the folder is entered' });
  },
  docker: restartAlways,
  podman: restartAlways,
  sed: inPlace,
  perl: inPlace,
  pip: packageConfig,
  pip3: packageConfig,
  npm: (inv, ctx) => {
    packageConfig(inv, ctx);
    npmPkgSet(inv, ctx);
  },
  pnpm: packageConfig,
  yarn: packageConfig,
};

export { systemctl as systemctlPersist };
