/**
 * The approval gate's classification time (docs/command-safety.md), in a process of its own, as
 * `herald check-command` runs it: the labelled corpus, and two 2,000-character commands — a
 * pipeline of everyday commands and a script deep in nested shells and substitutions — timed in
 * steady state (each warmed up first: the first runs of a long command wait on the JIT, up to 10 ms
 * each). `bench/run.ts` runs it; `npx tsx bench/command-classification.ts [--quick]` runs it alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyCommand, loadCommandSafety } from '../command-safety/classify.js';

const quick = process.argv.includes('--quick');
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;
const timed = (c: string) => {
  const t0 = performance.now();
  classifyCommand(c);
  return performance.now() - t0;
};

await loadCommandSafety();
const dir = join(import.meta.dirname, '../test/fixtures/commands');
const commands = readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean))
  .map((l) => (JSON.parse(l) as { command: string }).command);
for (const c of commands.slice(0, 200)) classifyCommand(c);
const corpus = commands.map(timed);
console.log(
  `command classification, ${commands.length} corpus commands: p50 ${ms(pct(corpus, 50))}, p99 ${ms(pct(corpus, 99))}, max ${ms(Math.max(...corpus))}`,
);
const long = [
  Array.from({ length: 60 }, (_, i) => `grep -rn "needle${i}" src/ | sort | uniq -c`)
    .join(' && ')
    .slice(0, 2000),
  `bash -c "sh -c 'eval \\"$(printf %s ${'x'.repeat(20)})\\"'"; ${Array.from({ length: 80 }, (_, i) => `if [ -f f${i} ]; then rm -f f${i}; fi`).join('; ')}`.slice(
    0,
    2000,
  ),
];
for (const [i, c] of long.entries()) {
  for (let k = 0; k < (quick ? 100 : 200); k++) classifyCommand(c);
  const samples = Array.from({ length: quick ? 200 : 1000 }, () => timed(c));
  console.log(
    `command classification, 2,000-char ${i === 0 ? 'pipeline' : 'nested script'}: p50 ${ms(pct(samples, 50))}, p99 ${ms(pct(samples, 99))} (goal: p99 < 5 ms)`,
  );
}
