/**
 * Record the workflow histories the replay test replays (test/fixtures/histories), and the manifest
 * that says what each proves (test/replay/histories.json, written from the scenarios of scripts/histories/). Until a
 * release is tagged, a workflow change re-records the histories it affects (docs/architecture.md,
 * "Deploys and patches"); each file is named after its scenario and replaced in place.
 *
 *   npx tsx scripts/record-histories.ts [scenario …]
 *
 * Without scenarios, every one is recorded. It runs standalone: like scripts/run-tests.ts it starts
 * a Temporal dev server (unless HERALD_TEST_TEMPORAL_ADDRESS names one) and uses the Postgres of
 * HERALD_TEST_ADMIN_DATABASE_URL, else DATABASE_URL, else an embedded one it starts. Tools run
 * outside the sandbox with HERALD_TEST_SANDBOX=off (the default, required, needs bubblewrap):
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres HERALD_TEST_SANDBOX=off \
 *     npx tsx scripts/record-histories.ts fallback steer
 *
 * then `npx tsx scripts/run-tests.ts replay` replays every history. storage-wait puts a TCP relay
 * between every stack and Postgres and cuts it for a moment. The tool batch deadline (420 s, fixed
 * in workflows/turn.ts) is not recorded firing: no config or input shortens it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../runtime/paths.js';
import { freePort } from '../runtime/ports.js';
import { ensureTemporalCli } from '../runtime/temporal-cli.js';
import type { TestStack } from '../test/support/stack.js';
import { createTestStack } from '../test/support/stack.js';
import { startEmbeddedPostgres } from '../workers/embedded-postgres.js';
import { startTemporalDevServer } from '../workers/temporal-dev-server.js';
import { DbRelay, databaseRelay } from './histories/db-relay.js';
import { delegationScenarios } from './histories/delegation.js';
import { humanScenarios } from './histories/human.js';
import { loopGuardScenarios } from './histories/loop-guard.js';
import { mcpScenarios } from './histories/mcp.js';
import { modelCallsScenarios } from './histories/model-calls.js';
import type { Scenario, StackKind } from './histories/support.js';
import { HISTORIES_DIR, log, startRecording } from './histories/support.js';
import { turnsScenarios } from './histories/turns.js';

// Several scenarios fail on purpose: the worker's warnings about it are noise here.
process.env.HERALD_LOG_LEVEL ??= 'error';
mkdirSync(HISTORIES_DIR, { recursive: true });

/** The order scenarios record in: those of a shared stack run one after another on it. */
const RECORDING_ORDER = [
  'multi-turn-tools',
  'interrupt-then-continue-as-new',
  'invalid-input',
  'human-todo-compress',
  'delegation',
  'delegation-background',
  'fallback',
  'smart-approval',
  'storage-wait',
  'budget-summary',
  'truncation',
  'steer',
  'steer-stopped',
  'compression-in-turn',
  'signals',
  'web-ui',
  'reopened',
  'loop-guard',
  'loop-guard-pause',
  'loop-guard-edit-cycle',
  'auxiliary-usage',
  'credential-pool',
  'child-deadline',
  'mcp',
  'server-suggested-continue-as-new',
];

/** Every scenario, in recording order. */
const SCENARIOS: readonly Scenario[] = (() => {
  const all = [
    ...turnsScenarios,
    ...humanScenarios,
    ...delegationScenarios,
    ...modelCallsScenarios,
    ...loopGuardScenarios,
    ...mcpScenarios,
  ];
  const unordered = all.filter((s) => !RECORDING_ORDER.includes(s.name)).map((s) => s.name);
  if (unordered.length > 0) throw new Error(`scenarios with no place in RECORDING_ORDER: ${unordered.join(', ')}`);
  return RECORDING_ORDER.map((name) => {
    const scenario = all.find((s) => s.name === name);
    if (!scenario) throw new Error(`RECORDING_ORDER names ${name}, which no scenario module exports`);
    return scenario;
  });
})();

const chosen = new Set(process.argv.slice(2));
for (const name of chosen) {
  if (!SCENARIOS.some((s) => s.name === name))
    throw new Error(`unknown scenario ${name}; one of: ${SCENARIOS.map((s) => s.name).join(', ')}`);
}
const want = (name: string) => chosen.size === 0 || chosen.has(name);

/** The manifest the replay test checks the fixtures against: file → scenario → what it proves. */
function writeManifest(): void {
  const entries = SCENARIOS.flatMap((s) =>
    Object.entries(s.proves).map(([file, proves]) => [`${file}.json`, { scenario: s.name, proves }] as const),
  ).sort(([a], [b]) => a.localeCompare(b));
  const path = join(PROJECT_ROOT, 'test', 'replay', 'histories.json');
  writeFileSync(path, `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`);
}

// Standalone: the servers scripts/run-tests.ts would share, started here when not given.
const cleanups: Array<() => Promise<void>> = [];
if (!process.env.HERALD_TEST_TEMPORAL_ADDRESS) {
  const server = await startTemporalDevServer({
    cliPath: ensureTemporalCli(process.env, log),
    port: await freePort(),
    namespace: 'default',
  });
  cleanups.push(() => server.stop());
  // A crash skips the cleanups: never leave the server behind.
  process.once('exit', () => server.process.kill('SIGKILL'));
  process.env.HERALD_TEST_TEMPORAL_ADDRESS = server.address;
  log(`Temporal dev server ${server.address}`);
}
if (!process.env.HERALD_TEST_ADMIN_DATABASE_URL) {
  if (process.env.DATABASE_URL) process.env.HERALD_TEST_ADMIN_DATABASE_URL = process.env.DATABASE_URL;
  else {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-record-pg-'));
    const embedded = await startEmbeddedPostgres(dataDir, await freePort());
    cleanups.push(async () => {
      await embedded.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    process.once('exit', () => {
      // After a crash: stop the server too (a clean stop has removed its pid file).
      const pidFile = join(dataDir, 'postmaster.pid');
      if (!existsSync(pidFile)) return;
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      try {
        if (pid > 0) process.kill(pid, 'SIGINT');
      } catch {
        // already gone
      }
    });
    process.env.HERALD_TEST_ADMIN_DATABASE_URL = embedded.url;
    log('Postgres: embedded');
  }
}
delete process.env.DATABASE_URL;
delete process.env.TEMPORAL_ADDRESS;
// The storage-wait recording makes the database unreachable: every stack reaches it through a relay.
if (want('storage-wait')) {
  const started = await DbRelay.start(process.env.HERALD_TEST_ADMIN_DATABASE_URL);
  const relay = started.relay;
  databaseRelay.current = relay;
  cleanups.push(() => relay.cut());
  process.env.HERALD_TEST_ADMIN_DATABASE_URL = started.url;
}

// Every scenario of a shared stack records on one stack, made when the first of them is wanted.
const STACK_CONFIG: Record<Exclude<StackKind, 'own'>, string | undefined> = {
  plain: undefined,
  // Short backoff, as in test/integration/failures.test.ts; the policy shape is production's.
  'short-retries': 'retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\n',
  background: 'delegation: { mode: background }\n',
};

let exitCode = 0;
try {
  writeManifest();
  const stacks = new Map<StackKind, { stack: TestStack; ws: string }>();
  try {
    for (const scenario of SCENARIOS) {
      if (!want(scenario.name)) continue;
      startRecording(scenario);
      if (scenario.stack === 'own') {
        await scenario.record(null);
        continue;
      }
      let on = stacks.get(scenario.stack);
      if (!on) {
        const config = STACK_CONFIG[scenario.stack];
        const stack = await createTestStack(config ? { configYaml: config } : {});
        const ws = join(stack.workspaces, 'ws');
        mkdirSync(ws, { recursive: true });
        writeFileSync(join(ws, 'a.txt'), 'A\n');
        writeFileSync(join(ws, 'b.txt'), 'B\n');
        on = { stack, ws };
        stacks.set(scenario.stack, on);
      }
      await scenario.record(on);
    }
  } finally {
    for (const { stack } of stacks.values()) await stack.close();
  }
} catch (err) {
  console.error(err);
  exitCode = 1;
} finally {
  for (const c of cleanups.reverse()) await c().catch((err: unknown) => log(`cleanup failed: ${String(err)}`));
}
process.exit(exitCode);
