/**
 * When a long-running command (`herald dev`, `herald worker`, `herald watch`) should stop: on
 * SIGINT or SIGTERM — and, when npm started it, when npm's shell goes away. `npx herald dev` runs
 * npm → `sh -c herald dev` → node; a SIGTERM to npm reaches the shell, which dies without passing
 * it on, and node is left running, orphaned, with the Temporal server and Postgres it started.
 * Node cannot ask the kernel for a parent-death signal (prctl), so under npm the parent pid is
 * polled: a new parent means the old one died, which is treated as a SIGTERM. Outside npm an
 * orphan is left alone (`nohup herald dev &` is meant to outlive its shell).
 */

export type StopReason = NodeJS.Signals | 'parent exited';

/** npm sets npm_command for `npm exec`/`npx` and `npm run` (npm ≥ 7). */
export function launchedByNpm(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.npm_command);
}

/** Call `handler` at the first stop request; the returned function removes the watch. */
export function onStopRequest(
  handler: (why: StopReason) => void,
  o: { env?: NodeJS.ProcessEnv; pollMs?: number } = {},
): () => void {
  let fired = false;
  const fire = (why: StopReason) => {
    if (fired) {
      if (why !== 'parent exited') process.stderr.write(`${why}: already stopping…\n`);
      return;
    }
    fired = true;
    handler(why);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
  for (const s of signals) process.on(s, fire);
  let timer: NodeJS.Timeout | undefined;
  if (launchedByNpm(o.env)) {
    const parent = process.ppid;
    timer = setInterval(() => {
      if (process.ppid !== parent) fire('parent exited');
    }, o.pollMs ?? 500);
    timer.unref();
  }
  return () => {
    for (const s of signals) process.removeListener(s, fire);
    if (timer) clearInterval(timer);
  };
}
