/**
 * Changing the machine itself (group system), the part that reads values rather than words:
 * privileged containers and init scripts. Everything else about the system, signals included, is
 * rows in table/rows/system.ts and table/rows/signals.ts.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { operands } from '../options.js';
import { privilegedContainer } from './infrastructure.js';

const S = 'system' as const;
const ask = (ctx: RuleContext, inv: Invocation, rule: string, reason: string) =>
  ctx.add(inv, { group: S, rule, reason });

export const initScript: Rule = (inv, ctx) => {
  if (
    /^\/etc\/(init\.d|rc\.d)\//.test(inv.path) &&
    /^(stop|restart|force-reload)$/.test(operands(inv.args)[0]?.value ?? '')
  )
    ask(ctx, inv, 'service_stop', `${inv.path} stops a service`);
};

const privileged: Rule = (inv, ctx) => {
  const why = privilegedContainer(inv);
  if (why) ask(ctx, inv, 'privileged_container', `runs ${why}`);
};

export const SYSTEM_RULES: Record<string, Rule> = {
  docker: privileged,
  podman: privileged,
  nerdctl: privileged,
};
