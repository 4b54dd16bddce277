/** A deadline for a piece of workflow work, as a durable timer in its own scope. */
import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import { timerLabel } from './labels.js';

/**
 * Run `fn` with a deadline; true when the deadline cancelled it. A `/stop` of the turn still
 * propagates (it cancels the parent scope, not the deadline). `what` labels the timer in the Web UI.
 */
export async function withDeadline(ms: number, fn: () => Promise<void>, what = 'deadline'): Promise<boolean> {
  const batch = new CancellationScope();
  const timerScope = new CancellationScope();
  let timedOut = false;
  const timer = timerScope
    .run(() => sleep(ms, { summary: timerLabel(what, ms) }))
    .then(
      () => {
        timedOut = true;
        batch.cancel();
      },
      () => {},
    );
  try {
    await batch.run(fn);
  } catch (err) {
    if (!(timedOut && isCancellation(err))) throw err;
  } finally {
    timerScope.cancel();
    await timer;
  }
  return timedOut;
}
