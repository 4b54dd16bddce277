/**
 * The conversation fuzzer, run on demand (the short seed set runs in `npm test`):
 *
 *   npx tsx scripts/fuzz.ts --seeds 200                 seeds 1..200, two at a time
 *   npx tsx scripts/fuzz.ts --seed 17 -v                one seed, with its operation log as it runs
 *   npx tsx scripts/fuzz.ts --seed 17 --ops 0,3,9       replay a subset of a seed's operations
 *   npx tsx scripts/fuzz.ts --seed 17 --shrink          the smallest subset that still fails
 *
 * Options: --from N (first seed, default 1), --length N (operations per seed, default 25),
 * --profile NAME, --concurrency N (default 2), --call-timeout SECONDS (default 60),
 * --json FILE (every result). Uses DATABASE_URL when set (else an embedded Postgres) and a
 * Temporal dev server of its own (or HERALD_TEST_TEMPORAL_ADDRESS).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import { PAYLOAD_CONVERTER_PATH } from '../runtime/data-converter.js';
import { PROJECT_ROOT } from '../runtime/paths.js';
import { WORKFLOWS_PATH } from '../workers/worker.js';
import type { CaseResult } from '../test/support/fuzz/fuzz.js';
import { fuzzCase, shrink } from '../test/support/fuzz/fuzz.js';
import { shapeOf } from '../test/support/fuzz/invariants.js';
import type { Profile } from '../test/support/fuzz/ops.js';
import { PROFILES } from '../test/support/fuzz/ops.js';
import { quietTemporalLogs } from '../test/support/fuzz/quiet.js';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string' },
    seed: { type: 'string' },
    from: { type: 'string', default: '1' },
    length: { type: 'string', default: '25' },
    ops: { type: 'string' },
    profile: { type: 'string' },
    concurrency: { type: 'string', default: '2' },
    'call-timeout': { type: 'string', default: '60' },
    shrink: { type: 'boolean', default: false },
    json: { type: 'string' },
    verbose: { type: 'boolean', short: 'v', default: false },
  },
});

const log = (line: string) => process.stderr.write(`${line}\n`);
if (values.profile && !PROFILES.includes(values.profile as Profile)) {
  log(`unknown profile ${values.profile}; one of ${PROFILES.join(', ')}`);
  process.exit(2);
}
const seeds = values.seed
  ? [Number(values.seed)]
  : Array.from({ length: Number(values.seeds ?? 20) }, (_, i) => Number(values.from) + i);
const common = {
  ops: Number(values.length),
  callTimeoutMs: Number(values['call-timeout']) * 1000,
  ...(values.profile ? { profile: values.profile as Profile } : {}),
  ...(values.ops ? { only: values.ops.split(',').map(Number) } : {}),
  ...(values.verbose ? { log } : {}),
};

quietTemporalLogs(values.verbose ? log : undefined);

// One workflow bundle for every worker of the run (bundling per worker takes seconds).
process.env.HERALD_LOG_LEVEL ??= 'error';
if (!process.env.HERALD_WORKFLOW_BUNDLE) {
  const tmp = join(PROJECT_ROOT, 'test', '.tmp');
  mkdirSync(tmp, { recursive: true });
  const bundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    // The workers' own payload converter: without it an undecodable signal wedges the workflow.
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
  });
  const path = join(tmp, `fuzz-bundle-${process.pid}.js`);
  writeFileSync(path, bundle.code);
  process.env.HERALD_WORKFLOW_BUNDLE = path;
}

if (values.shrink) {
  const seed = seeds[0]!;
  log(`shrinking seed ${seed} …`);
  const out = await shrink(seed, {
    ...common,
    onTry: (ops, kept) => log(`  ${kept ? 'still fails' : 'passes    '} with ops ${ops.join(',')}`),
  });
  if (!out) log(`seed ${seed} does not fail`);
  else {
    log(`\nminimal: npx tsx scripts/fuzz.ts --seed ${seed} --length ${common.ops} --ops ${out.ops.join(',')}\n`);
    log(out.result.report);
  }
  process.exit(out ? 1 : 0);
}

const results: CaseResult[] = [];
const t0 = Date.now();
let next = 0;
const lane = async () => {
  while (next < seeds.length) {
    const seed = seeds[next++]!;
    try {
      const r = await fuzzCase(seed, common);
      results.push(r);
      log(
        `seed ${seed} (${r.scenario.profile}) ${(r.ms / 1000).toFixed(1)}s: ${r.violations.length ? `${r.violations.length} violation(s)` : 'ok'}`,
      );
      if (r.violations.length) log(r.report.replace(/^/gm, '    '));
    } catch (err) {
      log(`seed ${seed}: the fuzzer itself failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
  }
};
await Promise.all(Array.from({ length: Math.max(1, Number(values.concurrency)) }, lane));

// Distinct failures: the same invariant with the same message shape, and the seeds that found it.
const distinct = new Map<string, number[]>();
for (const r of results) {
  for (const v of r.violations) {
    const key = shapeOf(v);
    distinct.set(key, [...new Set([...(distinct.get(key) ?? []), r.seed])]);
  }
}
log(
  `\n${results.length} seeds in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${results.filter((r) => !r.violations.length).length} ok, ${distinct.size} distinct failure(s)`,
);
for (const [key, s] of [...distinct].sort((a, b) => b[1].length - a[1].length))
  log(`  ${key.slice(0, 220)}\n      seeds ${s.slice(0, 12).join(', ')}${s.length > 12 ? ` … (${s.length})` : ''}`);
if (values.json) {
  writeFileSync(
    values.json,
    JSON.stringify(
      results.map((r) => ({
        seed: r.seed,
        profile: r.scenario.profile,
        ms: r.ms,
        violations: r.violations,
        report: r.report,
      })),
      null,
      2,
    ),
  );
}
process.exitCode = distinct.size ? 1 : 0;
// Workers and connections of finished stacks are closed; the dev server started here is killed on exit.
process.exit();
