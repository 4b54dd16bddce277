/**
 * Planting something that runs later (group persist), the part that reads code or files: cron and
 * at jobs (and the job text on their stdin), package-manager settings that change where code comes
 * from. Services, login hooks and the like are rows (table/rows/persist.ts); writes by redirection,
 * `tee`, `cp`, `sed -i` and friends are judged by the file they write (table/rows/writes.ts).
 */
import type { Rule } from '../invocation.js';
import { hasOption } from '../options.js';
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

export const PERSIST_RULES: Record<string, Rule> = {
  crontab,
  at,
  batch: at,
  pip: packageConfig,
  pip3: packageConfig,
  npm: packageConfig,
  pnpm: packageConfig,
  yarn: packageConfig,
};
