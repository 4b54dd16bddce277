/**
 * A chaos run (`npm run chaos`, and test/integration/chaos.test.ts in short): servers of its own,
 * several worker processes, the deterministic model; first every conversation's script runs
 * without faults, then the same scripts run again in new conversations while faults are injected;
 * then each faulty conversation is judged against its fault-free twin (invariants.ts).
 *
 * Why a fault-free run rather than transcripts derived from the script: the transcript holds what
 * Herald's tools and formatting made of each call (line numbers, untrusted-data framing, "Wrote N
 * bytes"), and re-deriving that in the test would compare Herald with a copy of itself. The
 * fault-free run is Herald's own output for the same requests; the script still predicts each
 * turn's final answer exactly, so a fault-free run that went wrong fails too.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { HeraldClient } from '../../../client/client.js';
import type { Db } from '../../../store/db.js';
import { createDb } from '../../../store/db.js';
import { PAYLOAD_CONVERTER_PATH } from '../../../runtime/data-converter.js';
import { WORKFLOWS_PATH } from '../../../workers/worker.js';
import { FakeProvider } from '../fake-provider.js';
import { prng } from '../prng.js';
import type { ConversationRun } from './driver.js';
import { closeConversation, driveConversation } from './driver.js';
import type { FaultKind, FaultRecord } from './faults.js';
import { FaultInjector } from './faults.js';
import type { HistoryFacts, Verdict } from './invariants.js';
import { historyFacts, judge, loadForCheck } from './invariants.js';
import { chaosModel } from './model.js';
import { formatReport } from './report.js';
import { replayEveryRun } from './replay.js';
import { workspaceOf } from './script.js';
import type { ChaosServers } from './servers.js';
import { startChaosServers } from './servers.js';
import { WorkerPool } from './workers.js';

export interface ChaosOptions {
  conversations: number;
  turns: number;
  workers: number;
  seed: number;
  /** How long the faulty run's turns are spread over, and faults injected. */
  durationMs: number;
  /** After that, how long every conversation has to finish (else it is stuck). */
  settleMs: number;
  faults: readonly FaultKind[];
  meanFaultIntervalMs: number;
  /** A restarted server stays down for a time in this range. */
  downMs: [number, number];
  /** Conversations at once in the fault-free run. */
  baselineConcurrency: number;
  /** The most attempts any activity may take. */
  maxAttempts: number;
  /** Keep the run's folder (servers' data, workspaces, worker logs). */
  keep: boolean;
  log: (line: string) => void;
}

export const DEFAULTS: Omit<ChaosOptions, 'log'> = {
  conversations: 100,
  turns: 3,
  workers: 3,
  seed: 1,
  durationMs: 120_000,
  settleMs: 180_000,
  faults: ['kill-worker', 'restart-temporal', 'restart-postgres'],
  meanFaultIntervalMs: 10_000,
  downMs: [1000, 4000],
  baselineConcurrency: 20,
  maxAttempts: 6,
  keep: false,
};

export interface ChaosResult {
  ok: boolean;
  text: string;
  faults: FaultRecord[];
  verdicts: Verdict[];
  dir: string;
}

function writeWorkspace(dir: string, seed: number, c: number): void {
  for (const [path, text] of Object.entries(workspaceOf(seed, c).files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** Run `fn` over 0..n-1, at most `limit` at once. */
async function pool<T>(n: number, limit: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, limit) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'herald-chaos-'));
  // The embedded Postgres runs as the `postgres` user when we are root: it must reach its folder.
  chmodSync(dir, 0o755);
  const harness: string[] = [];
  let servers: ChaosServers | undefined;
  let workers: WorkerPool | undefined;
  let client: HeraldClient | undefined;
  let db: Db | undefined;
  let fake: FakeProvider | undefined;
  let chaosStart = 0;
  const sinceChaos = () => (chaosStart ? Date.now() - chaosStart : 0);
  try {
    o.log(`chaos: folder ${dir}; starting Temporal, Postgres and ${o.workers} workers`);
    servers = await startChaosServers(dir, o.log);
    let bundle = process.env.HERALD_WORKFLOW_BUNDLE;
    if (!bundle) {
      const code = await bundleWorkflowCode({
        workflowsPath: WORKFLOWS_PATH,
        payloadConverterPath: PAYLOAD_CONVERTER_PATH,
        logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
      });
      bundle = join(dir, 'workflow-bundle.js');
      writeFileSync(bundle, code.code);
    }
    fake = await FakeProvider.start({ label: 'chaos model' });
    const model = chaosModel(o.seed);
    fake.respond(model.responder);
    const home = join(dir, 'home');
    mkdirSync(home);
    const taskQueue = 'herald-chaos';
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: servers.temporalAddress,
      DATABASE_URL: servers.databaseUrl,
      HERALD_TASK_QUEUE: taskQueue,
      HERALD_HOME: home,
      HERALD_PROVIDER: 'custom',
      HERALD_MODEL: 'fake-model',
      OPENAI_BASE_URL: fake.url,
      HERALD_LOG_LEVEL: process.env.HERALD_LOG_LEVEL ?? 'warn',
      HERALD_SANDBOX: process.env.HERALD_TEST_SANDBOX ?? 'required',
      HERALD_WORKFLOW_BUNDLE: bundle,
      // The conversations' workspaces (base/, chaos/) lie in the run's folder: it is their root.
      HERALD_WORKSPACE_ROOTS: dir,
    };
    delete env.HERALD_METRICS_PORT;
    workers = new WorkerPool(env, o.workers, dir, sinceChaos);
    await workers.start();
    client = await HeraldClient.connect({
      address: servers.temporalAddress,
      namespace: 'default',
      taskQueue,
      databaseUrl: servers.databaseUrl,
      uiUrl: undefined,
    });
    db = createDb(servers.databaseUrl, 4);
    const setupMs = Date.now() - started;

    // The fault-free run: every script once, as fast as the stack goes.
    const start = (c: number) => ({ source: 'chaos', ...(c % 2 ? { continueAsNewAfterTurns: 2 } : {}) });
    const baselineStarted = Date.now();
    o.log(`chaos: fault-free run of ${o.conversations} conversations × ${o.turns} turns`);
    // Only a safety net: the fault-free run is the reference, not what is under test.
    const baselineDeadline = Date.now() + Math.max(o.settleMs + o.durationMs, 30 * 60_000);
    const baseline = await pool(o.conversations, o.baselineConcurrency, async (c) => {
      const cwd = join(dir, 'base', `c${c}`);
      writeWorkspace(cwd, o.seed, c);
      const run = await driveConversation({
        client: client!,
        seed: o.seed,
        c,
        sessionId: `base-${c}`,
        cwd,
        turns: o.turns,
        pause: () => 0,
        deadline: baselineDeadline,
        start: start(c),
      });
      await closeConversation(client!, run, baselineDeadline);
      return run;
    });
    const baselineMs = Date.now() - baselineStarted;
    const baselineRequests = fake.requests.length;
    for (const a of model.anomalies) harness.push(`the fault-free run's model saw: c${a.conversation} ${a.what}`);
    model.anomalies.length = 0;

    // The same scripts under faults: turns spread over the duration, faults injected meanwhile.
    o.log(
      `chaos: the same scripts under faults (${o.faults.join(', ') || 'none'}) for ${Math.round(o.durationMs / 1000)} s`,
    );
    chaosStart = Date.now();
    const random = prng(o.seed);
    const offsets = Array.from({ length: o.conversations }, () => random() * 0.5 * o.durationMs);
    const pauses = Array.from({ length: o.conversations }, () =>
      Array.from({ length: o.turns }, () => (random() * 0.5 * o.durationMs) / o.turns),
    );
    const faults = new FaultInjector(
      { seed: o.seed, kinds: o.faults, meanIntervalMs: o.meanFaultIntervalMs, downMs: o.downMs },
      servers,
      workers,
      sinceChaos,
      o.log,
    );
    faults.start(o.durationMs);
    // The bound on finishing follows the machine: at least --settle, and at least twice what the
    // fault-free run of the same scripts took here (a loaded machine is slow, not wedged; a wedged
    // conversation never finishes at all).
    const settleMs = Math.max(o.settleMs, 2 * baselineMs);
    const deadline = chaosStart + o.durationMs + settleMs;
    const runs: ConversationRun[] = await Promise.all(
      Array.from({ length: o.conversations }, async (_, c) => {
        const cwd = join(dir, 'chaos', `c${c}`);
        writeWorkspace(cwd, o.seed, c);
        return await driveConversation({
          client: client!,
          seed: o.seed,
          c,
          sessionId: `chaos-${c}`,
          cwd,
          turns: o.turns,
          pause: (t) => (t === 1 ? offsets[c]! : pauses[c]![t - 1]!),
          deadline,
          start: start(c),
        });
      }),
    );
    await faults.stop();
    for (const f of faults.records)
      if (f.error) harness.push(`fault ${f.kind} at ${(f.at / 1000).toFixed(1)} s failed: ${f.error}`);
    await workers.settled(60_000).catch((err: unknown) => harness.push(String(err)));
    await Promise.all(runs.map((r) => closeConversation(client!, r, Math.max(deadline, Date.now() + 60_000))));
    const chaosMs = Date.now() - chaosStart;

    // Judge every conversation against its fault-free twin.
    const checkStarted = Date.now();
    const clientErrors = new Map<string, number>();
    for (const r of runs)
      for (const t of r.turns)
        for (const e of t.errors) {
          const key = e.replace(/\d+/g, 'N').slice(0, 120);
          clientErrors.set(key, (clientErrors.get(key) ?? 0) + 1);
        }
    const verdicts = await pool(o.conversations, 8, async (c) => {
      const run = runs[c]!;
      const [mine, theirs] = await Promise.all([
        loadForCheck(db!, run.sessionId),
        loadForCheck(db!, baseline[c]!.sessionId),
      ]);
      let history: HistoryFacts | undefined;
      let historyError: string | undefined;
      try {
        history = await historyFacts(client!.temporal, client!.conversation(run.sessionId).workflowId);
        const base = await historyFacts(client!.temporal, client!.conversation(baseline[c]!.sessionId).workflowId);
        if (base.workflowTaskFailures.length)
          harness.push(`fault-free ${baseline[c]!.sessionId}: failed workflow task: ${base.workflowTaskFailures[0]}`);
      } catch (err) {
        historyError = err instanceof Error ? err.message : String(err);
      }
      return judge({
        seed: o.seed,
        turns: o.turns,
        run,
        baseline: baseline[c]!,
        transcript: mine.transcript,
        baselineTranscript: theirs.transcript,
        storedRows: mine.rows,
        anomalies: model.anomalies.filter((a) => a.conversation === c).map((a) => a.what),
        history,
        ...(historyError ? { historyError } : {}),
        maxAttempts: o.maxAttempts,
      });
    });
    for (const b of baseline) {
      const bad = b.turns.find((t) => !t.result?.completed) ?? (!b.closed ? b.turns.at(-1) : undefined);
      if (bad)
        harness.push(
          `the fault-free run of ${b.sessionId} did not finish: ${bad.gaveUp ?? bad.result?.error ?? 'not closed'}`,
        );
    }
    // Every run of every conversation, fault-free and faulty, replays as it ran.
    const replay = await replayEveryRun(
      client.temporal,
      [...baseline, ...runs].map((r) => client!.conversation(r.sessionId).workflowId),
      bundle,
    );
    for (const f of replay.failures) harness.push(`replay: ${f}`);
    const checkMs = Date.now() - checkStarted;
    const report = formatReport({
      title: `Chaos run: seed ${o.seed}, ${o.conversations} conversations × ${o.turns} turns, ${o.workers} worker processes, faults ${o.faults.join(', ') || 'none'} every ~${Math.round(o.meanFaultIntervalMs / 1000)} s for ${Math.round(o.durationMs / 1000)} s; everything due within ${Math.round((o.durationMs + settleMs) / 1000)} s`,
      faults: faults.records,
      workerEvents: workers.events,
      verdicts,
      harness,
      clientErrors,
      modelRequests: { baseline: baselineRequests, chaos: fake.requests.length - baselineRequests },
      replay,
      phases: { setupMs, baselineMs, chaosMs, checkMs, wallMs: Date.now() - started },
      load: `load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    });
    return { ...report, faults: faults.records, verdicts, dir };
  } finally {
    await workers?.stop().catch(() => {});
    await client?.close().catch(() => {});
    await db?.end().catch(() => {});
    await fake?.stop().catch(() => {});
    await servers?.stop().catch(() => {});
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
    else o.log(`chaos: kept ${dir}`);
  }
}
