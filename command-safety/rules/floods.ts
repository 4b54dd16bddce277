/**
 * Shell code that floods the machine (classify.ts reports what these find): a function that spawns
 * copies of itself, an endless loop that starts background processes, and an endless loop that
 * writes files without pausing. The walk only records the loops (shell-walk.ts); which of them
 * flood is judged here.
 */
import { stdoutTargets } from '../invocation.js';
import { keepsWrites } from '../paths.js';
import type { ParsedScript, SimpleCommand } from '../shell.js';

/** Commands in a loop body that pace it or end it: a loop with one does not pile up processes. */
const PACES = /^(?:sleep|wait|read|break|exit|return|timeout)$/;

/**
 * Endless loops that start background processes and never wait, sleep or leave (`while true; do
 * sleep 1 & done`): the processes pile up until the machine stops.
 */
export function processFloods(loops: NonNullable<ParsedScript['endlessLoops']>): Array<{ start: number; end: number }> {
  return loops.filter(
    (l) =>
      l.commands.some((c) => c.background) &&
      !l.commands.some((c) => !c.background && PACES.test(c.words[0]?.value ?? '')),
  );
}

/** Commands that add a file or folder on each pass of a loop (`while :; do mkdir x && cd x; done`). */
const FILLS = /^(?:mkdir|touch|fallocate|mktemp)$/;

/**
 * Endless loops that write files as fast as they can (`while true; do head -c 1G /dev/urandom >
 * "f$RANDOM"; done`, `while :; do echo x >> log; done`): they fill the disk. A loop that sleeps,
 * waits or reads between writes (a monitor appending a line a minute) is not one.
 */
export function diskFloods(loops: NonNullable<ParsedScript['endlessLoops']>): Array<{ start: number; end: number }> {
  return loops.filter(
    (l) =>
      !l.commands.some((c) => PACES.test(c.words[0]?.value ?? '')) &&
      l.commands.some(
        (c) =>
          FILLS.test(c.words[0]?.value ?? '') ||
          stdoutTargets(c).some((t) => t.value === null || keepsWrites(t.value, c.cwd)),
      ),
  );
}

/** A function that calls itself in a pipe or in the background, and is called: a fork bomb. */
export function forkBombs(functions: Map<string, SimpleCommand[]>, commands: SimpleCommand[]): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  for (const [name, body] of functions) {
    const selfCalls = body.filter((c) => c.words[0]?.value === name);
    const spreads = selfCalls.filter((c) => c.background || c.pipedOut || c.stdin?.kind === 'pipe');
    const called = commands.some((c) => c.words[0]?.value === name && c.inFunction !== name);
    if (spreads.length && (selfCalls.length >= 2 || spreads.some((c) => c.background)) && called) out.push(spreads[0]!);
  }
  return out;
}
