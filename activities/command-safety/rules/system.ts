/**
 * Changing the machine itself (group system), the part that reads values rather than words:
 * signals (`kill -9 1`, `kill -1`, `pkill -f .`), privileged containers, init scripts and the
 * units `systemctl` plants. Everything else about the system is rows in table/rows/system.ts.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { operands } from '../options.js';
import { privilegedContainer } from './infrastructure.js';
import { initShutdownSignal } from './devices.js';

const S = 'system' as const;
const hard = (ctx: RuleContext, inv: Invocation, rule: string, reason: string) =>
  ctx.add(inv, { level: 'hardline', group: S, rule, reason });
const ask = (ctx: RuleContext, inv: Invocation, rule: string, reason: string) =>
  ctx.add(inv, { group: S, rule, reason });

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

const privileged: Rule = (inv, ctx) => {
  const why = privilegedContainer(inv);
  if (why) ask(ctx, inv, 'privileged_container', `runs ${why}`);
};

export const SYSTEM_RULES: Record<string, Rule> = {
  kill,
  pkill,
  killall: pkill,
  docker: privileged,
  podman: privileged,
  nerdctl: privileged,
};
