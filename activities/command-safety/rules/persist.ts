/**
 * Planting something that runs later (group persist), the part that reads code or files: cron and
 * at jobs (and the job text on their stdin), package-manager settings that change where code comes
 * from, and in-place edits of shell startup and system files. Services, login hooks and the like
 * are rows (table/rows/persist.ts). Writes by redirection,
 * `tee`, `cp` and friends are judged by the file they write (rules/files.ts, `writesTo`).
 */
import type { Rule } from '../invocation.js';
import { hasOption, operands } from '../options.js';
import { writesTo } from './file-writes.js';
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

const inPlace: Rule = (inv, ctx) => {
  const editing = inv.args.some((w) => /^-[a-zA-Z]*i|^--in-place/.test(w.value ?? ''));
  if (!editing) return;
  for (const t of operands(inv.args).slice(inv.name === 'sed' ? 0 : 0)) writesTo(ctx, inv, t, `${inv.name} -i`);
};

export const PERSIST_RULES: Record<string, Rule> = {
  crontab,
  at,
  batch: at,
  sed: inPlace,
  perl: inPlace,
  pip: packageConfig,
  pip3: packageConfig,
  npm: packageConfig,
  pnpm: packageConfig,
  yarn: packageConfig,
};
