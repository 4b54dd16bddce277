/**
 * `npm run bench:scale`: Herald at scale (docs/capacity.md). K conversations at once, each three
 * turns of model call (1–3 s latency from the fake provider) → read_file → answer, against real
 * worker processes (`herald worker`), a file-backed Temporal dev server (as `herald dev` runs it:
 * SQLite in WAL mode, workers/temporal-dev-server.ts) and Postgres. For each K and worker count it
 * prints the completion time against the ideal (the conversation's own model latency), turns/s,
 * the workers' RSS (peak, and idle after the load: MB per cached conversation), CPU per turn of
 * the workers and of the dev server, peak Postgres connections, workflow tasks and activities per
 * turn (from one conversation's history), and errors.
 *
 *   npm run bench:scale -- --k=50,200,500 --workers=1,3
 *
 * Without DATABASE_URL an embedded Postgres is started (and removed). Numbers, not assertions.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleWorkflowCode } from '@temporalio/worker';
import { PAYLOAD_CONVERTER_PATH } from '../runtime/data-converter.js';
import { ensureTemporalCli } from '../runtime/temporal-cli.js';
import { WORKFLOWS_PATH } from '../workers/worker.js';
import { freePort } from '../runtime/ports.js';
import { startTemporalDevServer } from '../workers/temporal-dev-server.js';
import type { DevServer } from '../workers/temporal-dev-server.js';
import { prng } from '../test/support/prng.js';
import { spawnHerald } from '../test/support/processes.js';
import type { HeraldProcess } from '../test/support/processes.js';
import { createTestStack, stopSharedInfra } from '../test/support/stack.js';
import type { TestStack } from '../test/support/stack.js';
import { SCALE_FILE, cpuMs, percentile, rssMb, scaleMessage, scaleResponder, table } from './scale-support.js';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const ks = arg('k', '50,200,500').split(',').map(Number);
const workerCounts = arg('workers', '1,3').split(',').map(Number);
const TURNS = Number(arg('turns', '3'));
/** A run that has not finished by then is reported as such (and its conversations as errors). */
const RUN_LIMIT_MS = Number(arg('limit-s', '900')) * 1000;
/** Workers load one pre-built workflow bundle (HERALD_WORKFLOW_BUNDLE), as a deployment should; `--bundle-on-start` makes each bundle its own. */
const prebuilt = !process.argv.includes('--bundle-on-start');
let bundlePath: string | undefined;
/** `--cache=N`: the workers' sticky cache (HERALD_MAX_CACHED_WORKFLOWS); their default otherwise. */
const cache = process.argv.find((a) => a.startsWith('--cache='))?.slice(8);

interface RunResult {
  k: number;
  workers: number;
  wallS: number;
  idealS: number;
  p50S: number;
  turnsPerS: number;
  peakRssMb: number;
  idleRssMb: number;
  mbPerCached: number;
  workerCpuMsPerTurn: number;
  serverCpuMsPerTurn: number;
  pgConnections: number;
  wftPerTurn: number;
  activitiesPerTurn: number;
  errors: number;
  firstError: string | undefined;
}

let server: DevServer | undefined;
let stack: TestStack | undefined;
let workers: HeraldProcess[] = [];
let dataDir: string | undefined;

async function cleanup(): Promise<void> {
  for (const w of workers) w.kill('SIGTERM');
  await Promise.all(workers.map((w) => Promise.race([w.exited, sleep(10_000)])));
  for (const w of workers) w.kill('SIGKILL');
  workers = [];
  await stack?.close().catch(() => {});
  stack = undefined;
  await server?.stop().catch(() => {});
  server = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the bench's servers…\n`);
    void cleanup()
      .then(stopSharedInfra)
      .finally(() => process.exit(130));
  });

async function run(k: number, workerCount: number): Promise<RunResult> {
  dataDir = mkdtempSync(join(tmpdir(), 'herald-scale-'));
  server = await startTemporalDevServer({
    cliPath: ensureTemporalCli(),
    port: await freePort(),
    dbFile: join(dataDir, 'temporal', 'history.db'),
  });
  // The shared test infrastructure uses this server too (no second, in-memory one).
  process.env.HERALD_TEST_TEMPORAL_ADDRESS ??= server.address;
  stack = await createTestStack({ worker: false, temporalAddress: server.address });
  const { herald, fake } = stack;
  fake.respond(scaleResponder);
  const ws = join(stack.workspaces, 'ws');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, SCALE_FILE), 'hello\n');

  const env = {
    ...stack.workerEnv(),
    HERALD_LOG_LEVEL: 'info',
    HERALD_LOG_FORMAT: 'json',
    ...(bundlePath ? { HERALD_WORKFLOW_BUNDLE: bundlePath } : {}),
    ...(cache ? { HERALD_MAX_CACHED_WORKFLOWS: cache } : {}),
  };
  workers = Array.from({ length: workerCount }, () => spawnHerald(['worker'], env));
  await Promise.all(workers.map((w) => w.waitFor('worker started', 120_000)));
  const pids = workers.map((w) => w.child.pid!);
  const serverPid = server.process.pid!;

  // Warm-up: bundles loaded, connections open, the first workflow tasks done.
  await Promise.all(
    Array.from({ length: 2 * workerCount }, (_, i) =>
      herald.conversation(`warm-${i}`).send(scaleMessage(1, 0), { start: { cwd: ws } }),
    ),
  );
  await sleep(2000);
  const baselineRss = pids.reduce((n, p) => n + rssMb(p), 0);
  const cpu0 = pids.reduce((n, p) => n + cpuMs(p), 0);
  const serverCpu0 = cpuMs(serverPid);

  let peakRss = baselineRss;
  let pgConnections = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(
      peakRss,
      pids.reduce((n, p) => n + rssMb(p), 0),
    );
    fake.requests.length = 0; // the bench's own memory: bodies are not needed
    void stack?.db
      .query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database()')
      .then((r) => (pgConnections = Math.max(pgConnections, Number(r.rows[0]!.n))))
      .catch(() => {});
  }, 1000);

  const random = prng(k * 7919 + workerCount);
  const plans = Array.from({ length: k }, () =>
    Array.from({ length: TURNS }, () => 1000 + Math.floor(random() * 2000)),
  );
  const errors: string[] = [];
  const done: number[] = [];
  const t0 = performance.now();
  // Unref'd: the limit must not keep the bench alive once everything finished.
  const deadline = new Promise<'limit'>((resolve) => setTimeout(() => resolve('limit'), RUN_LIMIT_MS).unref());
  const all = Promise.all(
    plans.map(async (delays, i) => {
      const conv = herald.conversation(`scale-${k}-${i}`);
      try {
        for (const [t, delay] of delays.entries()) {
          const r = await conv.send(scaleMessage(t + 1, delay), { start: { cwd: ws } });
          if (!r.completed || r.failed) throw new Error(`turn ${t + 1}: ${r.turn_exit_reason} ${r.error ?? ''}`);
        }
        done.push((performance.now() - t0) / 1000);
      } catch (err) {
        errors.push(`scale-${k}-${i}: ${(err as Error).message.slice(0, 300)}`);
      }
    }),
  );
  const finished = await Promise.race([all.then(() => 'done' as const), deadline]);
  const wallS = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  if (finished === 'limit') errors.push(`${k - done.length - errors.length} conversations unfinished after the limit`);
  const cpu1 = pids.reduce((n, p) => n + cpuMs(p), 0);
  const serverCpu1 = cpuMs(serverPid);

  // Idle: every conversation waits for its next message, cached on its worker.
  await sleep(3000);
  const idleRss = pids.reduce((n, p) => n + rssMb(p), 0);

  // One conversation's history: workflow tasks and activities per turn.
  const history = await stack.temporal.workflow
    .getHandle(herald.conversation(`scale-${k}-0`).workflowId)
    .fetchHistory()
    .catch(() => undefined);
  const events = history?.events ?? [];
  const count = (type: string) => events.filter((e) => e[type as keyof typeof e] != null).length;
  const wft = count('workflowTaskCompletedEventAttributes');
  const acts = count('activityTaskScheduledEventAttributes');

  const turns = done.length * TURNS;
  const result: RunResult = {
    k,
    workers: workerCount,
    wallS,
    idealS: Math.max(...plans.map((d) => d.reduce((a, b) => a + b, 0))) / 1000,
    p50S: percentile(done, 50),
    turnsPerS: turns / wallS,
    peakRssMb: peakRss,
    idleRssMb: idleRss,
    mbPerCached: (idleRss - baselineRss) / k,
    workerCpuMsPerTurn: (cpu1 - cpu0) / Math.max(1, turns),
    serverCpuMsPerTurn: (serverCpu1 - serverCpu0) / Math.max(1, turns),
    pgConnections,
    wftPerTurn: events.length ? wft / TURNS : NaN,
    activitiesPerTurn: events.length ? acts / TURNS : NaN,
    errors: errors.length,
    firstError: errors[0],
  };
  await cleanup();
  return result;
}

const results: RunResult[] = [];
console.log(
  `Herald scale bench · ${new Date().toISOString()} · node ${process.version} · ${cpus().length} cores · ${TURNS} turns of model call (1–3 s) → read_file → answer · ${prebuilt ? 'pre-built bundle' : 'bundled on start'}${cache ? ` · sticky cache ${cache}` : ''}`,
);
const bundleDir = mkdtempSync(join(tmpdir(), 'herald-scale-bundle-'));
try {
  if (prebuilt) {
    const bundle = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      payloadConverterPath: PAYLOAD_CONVERTER_PATH,
      logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
    });
    bundlePath = join(bundleDir, 'workflow-bundle.js');
    writeFileSync(bundlePath, bundle.code);
  }
  for (const w of workerCounts) {
    for (const k of ks) {
      console.log(`\nK=${k} on ${w} worker${w > 1 ? 's' : ''}…`);
      const r = await run(k, w);
      results.push(r);
      console.log(JSON.stringify(r));
    }
  }
} finally {
  await cleanup();
  await stopSharedInfra();
  rmSync(bundleDir, { recursive: true, force: true });
}
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');
console.log(
  `\n${table(
    [
      'K',
      'workers',
      'done s',
      'ideal s',
      '×ideal',
      'p50 s',
      'turns/s',
      'RSS peak MB',
      'RSS idle MB',
      'MB/conv',
      'worker CPU ms/turn',
      'server CPU ms/turn',
      'PG conns',
      'WFT/turn',
      'acts/turn',
      'errors',
    ],
    results.map((r) => [
      String(r.k),
      String(r.workers),
      f(r.wallS),
      f(r.idealS),
      f(r.wallS / r.idealS, 2),
      f(r.p50S),
      f(r.turnsPerS),
      f(r.peakRssMb, 0),
      f(r.idleRssMb, 0),
      f(r.mbPerCached, 2),
      f(r.workerCpuMsPerTurn, 0),
      f(r.serverCpuMsPerTurn, 0),
      String(r.pgConnections),
      f(r.wftPerTurn),
      f(r.activitiesPerTurn),
      String(r.errors),
    ]),
  )}`,
);
for (const r of results) if (r.firstError) console.log(`K=${r.k}×${r.workers}: first error: ${r.firstError}`);
// The goals for the 2-core development machine (docs/capacity.md), each against this run's figures.
const one = results.filter((r) => r.workers === 1);
const maxRate = Math.max(...one.map((r) => r.turnsPerS));
const k500 = one.find((r) => r.k === 500);
const gain = (k: number) => {
  const a = one.find((r) => r.k === k);
  const b = results.find((r) => r.k === k && r.workers === 3);
  return a && b ? `${f(b.turnsPerS / a.turnsPerS, 2)}× at K=${k}` : undefined;
};
const gains = ks.map(gain).filter(Boolean);
console.log(
  [
    `goals: one worker ≥ 30 turns/s → best ${f(maxRate)}`,
    k500
      ? `K=500 within 3× ideal → ${f(k500.wallS / k500.idealS, 2)}×; worker RSS ≤ 1 GB at K=500 → ${f(k500.peakRssMb, 0)} MB`
      : 'K=500 not run',
    gains.length ? `three workers near 3× one → ${gains.join(', ')}` : 'three workers not run',
  ].join('; '),
);
