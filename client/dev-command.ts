/**
 * `herald dev`: the embedded stack in the foreground until Ctrl-C, SIGTERM (also through
 * npm/npx, runtime/stop-signals.ts) or the death of a server it started. A dead server stops the
 * whole stack with a loud message and exit code 1 instead of being restarted: clients would fail
 * either way, and a crash that repeats would loop quietly (docs/architecture.md, "herald dev").
 */
import pc from 'picocolors';
import type { HeraldConfig } from '../runtime/config.js';
import { createLogger, wantsPretty } from '../runtime/logger.js';
import { onStopRequest } from '../runtime/stop-signals.js';
import { startDevStack } from '../workers/dev-stack.js';

export async function runDev(cfg: HeraldConfig, o: { ui: boolean; worker: boolean }): Promise<number> {
  // The foreground stack prints its own summary; logs only for problems unless asked.
  const log = createLogger(process.env.HERALD_LOG_LEVEL ? cfg.logLevel : 'warn', 'herald', {
    pretty: wantsPretty(true),
  });
  // Listen before starting: a Ctrl-C during start-up then stops what was started, instead of
  // killing this process and leaving the (own-process-group) Temporal server behind.
  let dispose = () => {};
  const requested = new Promise<string>((resolve) => {
    dispose = onStopRequest((why) => resolve(why));
  });
  let stack;
  try {
    stack = await startDevStack({
      config: cfg,
      log,
      ui: o.ui,
      worker: o.worker,
      ownProcessGroup: true,
      say: (l) => process.stderr.write(`${l}\n`),
    });
  } catch (err) {
    dispose();
    throw err;
  }
  process.stderr.write(pc.green('Herald is running. Ctrl-C stops everything.\n'));
  const outcome = await Promise.race([
    requested.then((why) => ({ died: false, why })),
    stack.died.then((why) => ({ died: true, why })),
  ]);
  if (outcome.died) process.stderr.write(pc.red(`\nherald dev: ${outcome.why}\nstopping the rest of the stack…\n`));
  else process.stderr.write(pc.dim(`\n${outcome.why}: stopping…\n`));
  await stack.stop();
  dispose();
  if (outcome.died) {
    process.stderr.write(pc.red('herald dev stopped because a server it started died (see above).\n'));
    return 1;
  }
  return 0;
}
