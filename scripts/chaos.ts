/**
 * `npm run chaos`: Herald under faults, at scale (test/support/chaos/harness.ts). Runs N
 * conversations with tool loops across several worker processes while it kills workers
 * (SIGKILL), restarts the Temporal dev server and restarts Postgres — servers of its own, on
 * loopback, in a temporary folder — then checks every conversation against a fault-free run of
 * the same script. Exits 1 when any invariant failed.
 *
 *   npm run chaos                                   100 conversations, every fault kind
 *   npm run chaos -- --conversations 10 --duration 30 --faults kill-worker
 *
 * Options: --conversations N (100), --turns N (3), --workers N (3), --seed N (1),
 * --duration SECONDS (120: turns are spread over it and faults injected during it),
 * --settle SECONDS (180: then every conversation must finish within this),
 * --faults LIST (kill-worker,restart-temporal,restart-postgres; `none` for a fault-free control run),
 * --fault-interval SECONDS (10, mean pause between faults), --down MIN-MAX (1-4, seconds a
 * restarted server stays down), --max-attempts N (6), --keep (keep the folder: worker logs, data).
 */
import { parseArgs } from 'node:util';
import { DEFAULTS, runChaos } from '../test/support/chaos/harness.js';
import type { FaultKind } from '../test/support/chaos/faults.js';
import { FAULT_KINDS } from '../test/support/chaos/faults.js';

const { values } = parseArgs({
  options: {
    conversations: { type: 'string', default: String(DEFAULTS.conversations) },
    turns: { type: 'string', default: String(DEFAULTS.turns) },
    workers: { type: 'string', default: String(DEFAULTS.workers) },
    seed: { type: 'string', default: String(DEFAULTS.seed) },
    duration: { type: 'string', default: String(DEFAULTS.durationMs / 1000) },
    settle: { type: 'string', default: String(DEFAULTS.settleMs / 1000) },
    faults: { type: 'string', default: DEFAULTS.faults.join(',') },
    'fault-interval': { type: 'string', default: String(DEFAULTS.meanFaultIntervalMs / 1000) },
    down: { type: 'string', default: DEFAULTS.downMs.map((x) => x / 1000).join('-') },
    'max-attempts': { type: 'string', default: String(DEFAULTS.maxAttempts) },
    keep: { type: 'boolean', default: false },
  },
});

const log = (line: string) => process.stderr.write(`${line}\n`);
function positive(name: string, text: string, min = 1): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < min) {
    log(`--${name} must be a number ≥ ${min}, got ${text}`);
    process.exit(2);
  }
  return n;
}
const faults = values.faults === 'none' ? [] : values.faults.split(',').map((f) => f.trim());
for (const f of faults)
  if (!FAULT_KINDS.includes(f as FaultKind)) {
    log(`unknown fault ${f}; one of ${FAULT_KINDS.join(', ')} (or none)`);
    process.exit(2);
  }
const [downLo, downHi = downLo] = values.down.split('-').map((x) => positive('down', x, 0) * 1000);

process.env.HERALD_LOG_LEVEL ??= 'error';
const result = await runChaos({
  conversations: positive('conversations', values.conversations),
  turns: positive('turns', values.turns),
  workers: positive('workers', values.workers),
  seed: positive('seed', values.seed, 0),
  durationMs: positive('duration', values.duration) * 1000,
  settleMs: positive('settle', values.settle) * 1000,
  faults: faults as FaultKind[],
  meanFaultIntervalMs: positive('fault-interval', values['fault-interval'], 0.1) * 1000,
  downMs: [downLo!, Math.max(downLo!, downHi!)],
  baselineConcurrency: DEFAULTS.baselineConcurrency,
  maxAttempts: positive('max-attempts', values['max-attempts']),
  keep: values.keep,
  log,
});
process.stdout.write(`${result.text}\n`);
process.exitCode = result.ok ? 0 : 1;
// Workers, servers and connections are closed; anything an SDK left pending must not hold the exit.
process.exit();
