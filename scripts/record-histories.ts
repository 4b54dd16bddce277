/**
 * Record the workflow histories the replay test replays (test/fixtures/histories), and the manifest
 * that says what each proves (test/replay/histories.json, written from SCENARIOS below). Until a
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
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import type { AddressInfo, Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { StartOptions } from '../client/client.js';
import { parseDelegationResult } from '../common/delegation.js';
import { PROJECT_ROOT } from '../runtime/paths.js';
import { freePort } from '../runtime/ports.js';
import { ensureTemporalCli } from '../runtime/temporal-cli.js';
import type { RecordedRequest } from '../test/support/fake-provider.js';
import type { TestStack } from '../test/support/stack.js';
import { createTestStack, eventually } from '../test/support/stack.js';
import { EVERYTHING_SERVER } from '../test/support/mcp-servers.js';
import { approachSuggestion, suggestCanArgs } from '../test/support/continue-as-new.js';
import { startEmbeddedPostgres } from '../workers/embedded-postgres.js';
import { startTemporalDevServer } from '../workers/temporal-dev-server.js';

const dir = join(PROJECT_ROOT, 'test', 'fixtures', 'histories');
// Several scenarios fail on purpose: the worker's warnings about it are noise here.
process.env.HERALD_LOG_LEVEL ??= 'error';
mkdirSync(dir, { recursive: true });

/** Where a scenario records: scenarios of one kind share a stack; `own` ones make their own. */
type StackKind = 'plain' | 'short-retries' | 'background' | 'own';
interface Scenario {
  name: string;
  stack: StackKind;
  /** Each history the scenario saves (file name without `.json`), and what replaying it proves. */
  proves: Record<string, string>;
  /** Shared stacks pass their stack and workspace (a.txt holds "A"); `own` scenarios get null. */
  record: (on: { stack: TestStack; ws: string } | null) => Promise<void>;
}

/** Every scenario, in recording order. */
const SCENARIOS: readonly Scenario[] = [
  {
    name: 'multi-turn-tools',
    stack: 'plain',
    proves: {
      'multi-turn-tools':
        'several turns: parallel reads, a terminal call, an unknown tool answered with an error, then `end`',
    },
    record: (on) => recordMultiTurn(on!.stack, on!.ws),
  },
  {
    name: 'interrupt-then-continue-as-new',
    stack: 'plain',
    proves: {
      'interrupt-then-continue-as-new':
        'a stop during a model call, a queued message, and continue-as-new after two turns (the first run)',
      'after-continue-as-new': 'the run after continue-as-new: carried state parsed, a turn, `end`',
    },
    record: (on) => recordInterruptCan(on!.stack),
  },
  {
    name: 'invalid-input',
    stack: 'plain',
    proves: { 'invalid-input': 'a start input the schema refuses fails the run at once (InvalidInput)' },
    record: (on) => recordInvalidInput(on!.stack),
  },
  {
    name: 'human-todo-compress',
    stack: 'plain',
    proves: {
      'human-todo-compress':
        'a todo list, a dangerous command approved, a clarify answered, a manual compression, then a parallel batch with its deadline timer',
    },
    record: (on) => recordHuman(on!.stack, on!.ws),
  },
  {
    name: 'delegation',
    stack: 'plain',
    proves: {
      delegation: 'two child agents run and report; a child stopped with its parent turn (wind-down timer cancelled)',
      'delegation-child': 'a child agent run: its one task, its result back to the parent',
    },
    record: (on) => recordDelegation(on!.stack, on!.ws),
  },
  {
    name: 'delegation-background',
    stack: 'background',
    proves: {
      'delegation-background':
        'background delegation: reports come back as a new turn; a batch stopped, its report held for the next message',
    },
    record: (on) => recordBackground(on!.stack, on!.ws),
  },
  {
    name: 'fallback',
    stack: 'short-retries',
    proves: {
      fallback:
        'provider fallback after retries and at once on billing errors, the primary cooling down, the chain restarted once, every attempt counted',
    },
    record: (on) => recordFallback(on!.stack, on!.ws),
  },
  {
    name: 'smart-approval',
    stack: 'short-retries',
    proves: {
      'smart-approval': '`smart` approvals: the auxiliary model approves one command and escalates another, denied',
    },
    record: (on) => recordSmartApproval(on!.stack, on!.ws),
  },
  {
    name: 'storage-wait',
    stack: 'short-retries',
    proves: {
      'storage-wait':
        'the database unreachable while the model answers: the reply kept in the attempt and saved once it is back',
    },
    record: (on) => recordStorageWait(on!.stack, on!.ws),
  },
  {
    name: 'budget-summary',
    stack: 'short-retries',
    proves: { 'budget-summary': 'the iteration budget spent: one last tool-less call for a summary' },
    record: (on) => recordBudgetSummary(on!.stack, on!.ws),
  },
  {
    name: 'truncation',
    stack: 'short-retries',
    proves: {
      truncation:
        'a reply cut off by the output limit continued with a raised cap; broken arguments and an empty reply asked again',
    },
    record: (on) => recordTruncation(on!.stack, on!.ws),
  },
  {
    name: 'steer',
    stack: 'short-retries',
    proves: {
      steer:
        'busyPolicy `steer`: a message during a tool call reaches the next model call; late steer becomes the next message',
    },
    record: (on) => recordSteer(on!.stack, on!.ws),
  },
  {
    name: 'steer-stopped',
    stack: 'short-retries',
    proves: {
      'steer-stopped': 'steer carried by a model call that `/stop` cancelled comes back as the next user message',
    },
    record: (on) => recordSteerStopped(on!.stack, on!.ws),
  },
  {
    name: 'compression-in-turn',
    stack: 'short-retries',
    proves: {
      'compression-in-turn':
        'compression inside a turn: after a tool call over the threshold, and on a context overflow (retried in the new session)',
    },
    record: (on) => recordCompressionInTurn(on!.stack, on!.ws),
  },
  {
    name: 'signals',
    stack: 'short-retries',
    proves: {
      signals: 'raw signals: userMessage in both forms, a repeat and a malformed one ignored, approve by signal',
    },
    record: (on) => recordSignals(on!.stack, on!.ws),
  },
  {
    name: 'web-ui',
    stack: 'short-retries',
    proves: {
      'web-ui':
        'what the Web UI shows: HeraldStatus through an approval wait, setModel, a clarify, and a fallback chain that fails whole',
    },
    record: (on) => recordWebUi(on!.stack, on!.ws),
  },
  {
    name: 'reopened',
    stack: 'short-retries',
    proves: { reopened: 'an ended session started again under its id goes on from its stored totals and turn number' },
    record: (on) => recordReopened(on!.stack, on!.ws),
  },
  {
    name: 'loop-guard',
    stack: 'short-retries',
    proves: {
      'loop-guard':
        'the loop guard: a duplicate in one reply, repeats nudged, answered, refused, guardrail_halt; todo repeats; a fixed test run again',
      'budget-last-call': "the budget's last call answered with a tool call written as text becomes a note",
    },
    record: (on) => recordLoopGuard(on!.stack, on!.ws),
  },
  {
    name: 'loop-guard-pause',
    stack: 'short-retries',
    proves: {
      'loop-guard-pause':
        'after the guard answers a repeat the next request has no tools; a call written as text asked once more, then halted',
    },
    record: (on) => recordLoopGuardPause(on!.stack, on!.ws),
  },
  {
    name: 'loop-guard-edit-cycle',
    stack: 'short-retries',
    proves: { 'loop-guard-edit-cycle': 'edits that put a file back the way an earlier edit left it pause the tools' },
    record: (on) => recordLoopGuardEditCycle(on!.stack, on!.ws),
  },
  {
    name: 'auxiliary-usage',
    stack: 'short-retries',
    proves: {
      'auxiliary-usage':
        "the auxiliary model's requests counted: a `smart` assessment, manual and overflow compressions, one refused at the session cap",
    },
    record: (on) => recordAuxiliaryUsage(on!.stack, on!.ws),
  },
  {
    name: 'credential-pool',
    stack: 'own',
    proves: {
      'credential-pool':
        'a credential pool: rotation on rate limits, the refresh hook on an auth failure, rotation back',
    },
    record: () => recordCredentialPool(),
  },
  {
    name: 'child-deadline',
    stack: 'own',
    proves: {
      'child-deadline': 'a child agent past its deadline is stopped and reported as timed out',
      'child-deadline-child': 'the child agent run that was stopped at its deadline',
    },
    record: () => recordChildDeadline(),
  },
  {
    name: 'mcp',
    stack: 'own',
    proves: {
      mcp: 'MCP tools found at session start, a call, a list-changed notification with discovery before the next turn, reloadTools',
    },
    record: () => recordMcp(),
  },
  {
    name: 'server-suggested-continue-as-new',
    stack: 'own',
    proves: {
      'server-suggested-continue-as-new':
        'the server suggests continue-as-new in the task of a refused update: the run moves at the next signal, a recorded task',
      'after-server-suggested-continue-as-new': 'the run after a server-suggested continue-as-new: a turn, `end`',
    },
    record: () => recordServerSuggestedCan(),
  },
];

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

/** The scenario recording now: a history it saves must be one it says it proves. */
let recording: Scenario | undefined;

async function save(client: Client, name: string, workflowId: string, runId?: string): Promise<void> {
  if (!recording || !(name in recording.proves))
    throw new Error(`${name} is not a history of scenario ${recording?.name ?? '(none)'}: add it to its \`proves\``);
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  writeFileSync(join(dir, `${name}.json`), `${historyToJSON(history)}\n`);
  console.log(`recorded ${name}.json (${history.events?.length ?? 0} events)`);
}

/** A recording that did not take the path it is named after is worse than none. */
function expect(ok: unknown, what: string): void {
  if (!ok) throw new Error(`the recording went off script: ${what}`);
}

/** A TCP relay in front of Postgres: the storage-wait recording cuts it (the database unreachable) and restores it. */
class DbRelay {
  lastTraffic = 0;
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;

  private constructor(
    private readonly target: { host: string; port: number },
    private port: number,
  ) {}

  /** A relay to the database of `url`, and the same URL through the relay. */
  static async start(url: string): Promise<{ relay: DbRelay; url: string }> {
    const u = new URL(url);
    if (u.searchParams.has('host')) throw new Error('the database relay needs a TCP database URL');
    const relay = new DbRelay({ host: u.hostname || 'localhost', port: Number(u.port || 5432) }, 0);
    await relay.restore();
    u.hostname = '127.0.0.1';
    u.port = String(relay.port);
    return { relay, url: u.toString() };
  }

  /** Accept connections again (on the same port). */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target);
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(from);
        from.on('data', (chunk) => {
          this.lastTraffic = Date.now();
          to.write(chunk);
        });
        from.on('close', () => {
          this.sockets.delete(from);
          to.destroy();
        });
        from.on('error', () => to.destroy());
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Drop every connection and refuse new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

// Standalone: the servers scripts/run-tests.ts would share, started here when not given.
const cleanups: Array<() => Promise<void>> = [];
const log = (line: string) => process.stderr.write(`[record] ${line}\n`);
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
let relay: DbRelay | undefined;
if (want('storage-wait')) {
  const started = await DbRelay.start(process.env.HERALD_TEST_ADMIN_DATABASE_URL);
  relay = started.relay;
  cleanups.push(() => relay!.cut());
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
      recording = scenario;
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

type WireMessage = { role: string; content: string | null };
function messagesOf(r: RecordedRequest): WireMessage[] {
  return r.body.messages as WireMessage[];
}

async function endConversation(stack: TestStack, workflowId: string): Promise<void> {
  await stack.temporal.workflow.getHandle(workflowId).signal('end', { reason: 'recorded' });
  await stack.temporal.workflow.getHandle(workflowId).result();
}

async function statusEvents(stack: TestStack, sessionId: string, kind: string) {
  return (await stack.events(sessionId)).filter((e) => e.kind === 'status' && e.payload.kind === kind);
}

/**
 * Provider fallback: three server errors exhaust the primary → the backup; a billing error (never
 * retried) → the backup at once, the primary cooling down; during the cooldown the turn starts on
 * the backup, which keeps failing: once more round the chain after a pause, then the turn fails.
 */
async function recordFallback(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const byModel = (model: string) => stack.fake.requests.filter((r) => r.body.model === model).length;
  const start: StartOptions = {
    cwd: ws,
    fallbackProviders: [{ provider: 'custom', model: 'backup-model', baseUrl: stack.fake.url }],
  };
  const conv = stack.herald.conversation('replay-fallback');
  stack.fake.script([{ status: 500 }, { status: 500 }, { status: 500 }], 'fake-model');
  stack.fake.script([{ text: 'answered by the backup' }], 'backup-model');
  const r1 = await conv.send('hello', { id: 'fb1', start });
  expect(r1.model === 'backup-model' && r1.final_response === 'answered by the backup', 'turn 1 fell back');
  expect(r1.api_calls === 4, `turn 1 counted its 3 failed attempts and the backup's call: ${r1.api_calls}`);

  stack.fake.script([{ status: 402, error: { message: 'Insufficient credits on this account' } }], 'fake-model');
  stack.fake.script([{ text: 'the backup again' }], 'backup-model');
  const r2 = await conv.send('again', { id: 'fb2' });
  expect(r2.model === 'backup-model' && byModel('fake-model') === 4, 'turn 2 fell back after one billing error');

  stack.fake.script(
    Array.from({ length: 6 }, () => ({ status: 503, error: { message: 'The server is overloaded' } })),
    'backup-model',
  );
  const r3 = await conv.send('and now?', { id: 'fb3' });
  expect(r3.failed && r3.turn_exit_reason === 'model_error', `turn 3 failed: ${JSON.stringify(r3)}`);
  expect(r3.api_calls === 6, `turn 3 counted its 6 failed attempts: ${r3.api_calls}`);
  expect(byModel('fake-model') === 4 && byModel('backup-model') === 8, 'turn 3 skipped the cooling primary');
  expect((await statusEvents(stack, 'replay-fallback', 'fallback')).length === 2, 'two fallbacks');
  expect((await statusEvents(stack, 'replay-fallback', 'retry')).length === 1, 'one restart of the chain');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'fallback', conv.workflowId);
}

/**
 * Credential pool: a second rate limit on key 1 rotates to key 2; an auth failure runs the refresh
 * hook, which finds a new value for key 2 in credentials.env; another auth failure finds nothing
 * new, so the pool rotates back to key 1.
 */
async function recordCredentialPool(): Promise<void> {
  const stack = await createTestStack({
    env: { POOL_KEY_A: 'key-a-1234567890', POOL_KEY_B: 'key-b-1234567890' },
    configYaml:
      'retry: { baseDelaySeconds: 0.1, maxDelaySeconds: 0.5 }\nproviders:\n  custom:\n    credentialPool: [POOL_KEY_A, POOL_KEY_B]\n',
  });
  try {
    const keys = () => stack.fake.requests.map((r) => r.headers.authorization);
    const conv = stack.herald.conversation('replay-pool');
    stack.fake.script([{ status: 429 }, { status: 429 }, { text: 'the second key works' }]);
    await conv.send('hello', { id: 'p1', start: {} });
    stack.fake.script([{ status: 401, error: { message: 'Incorrect API key provided' } }, { text: 'refreshed key' }]);
    writeFileSync(join(stack.home, 'credentials.env'), 'POOL_KEY_B=key-b-refreshed-0987654321\n');
    await conv.send('again', { id: 'p2' });
    stack.fake.script([{ status: 401, error: { message: 'Incorrect API key provided' } }, { text: 'back on key 1' }]);
    const r3 = await conv.send('once more', { id: 'p3' });
    expect(r3.final_response === 'back on key 1', 'turn 3 answered');
    const a = 'Bearer key-a-1234567890';
    const b = 'Bearer key-b-1234567890';
    const b2 = 'Bearer key-b-refreshed-0987654321';
    expect(JSON.stringify(keys()) === JSON.stringify([a, a, b, b, b2, b2, a]), `keys used: ${keys().join(', ')}`);
    expect((await statusEvents(stack, 'replay-pool', 'credential_rotated')).length === 2, 'two rotations');
    stack.fake.assertDone();
    await endConversation(stack, conv.workflowId);
    await save(stack.temporal, 'credential-pool', conv.workflowId);
  } finally {
    await stack.close();
  }
}

/** `smart` approvals: the auxiliary model approves a low-risk delete; it escalates another, which the user denies. */
async function recordSmartApproval(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  mkdirSync(join(ws, 'dist-old'), { recursive: true });
  const conv = stack.herald.conversation('replay-smart');
  stack.fake.script([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf dist-old' } }] },
    { text: 'APPROVE' },
    { text: 'cleaned dist' },
  ]);
  const r1 = await conv.send('clean', { id: 'sm1', start: { cwd: ws, approvals: { mode: 'smart' } } });
  expect(r1.final_response === 'cleaned dist', 'turn 1 answered');
  expect(
    /review shell commands/.test(messagesOf(stack.fake.requests[1]!)[0]!.content ?? ''),
    'the auxiliary model reviewed',
  );
  stack.fake.script([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'chmod 777 secrets' } }] },
    { text: 'ESCALATE' },
    { text: 'Left the permissions alone.' },
  ]);
  const p2 = conv.send('open up secrets', { id: 'sm2' });
  const approval = await eventually(async () => (await conv.state()).pending_approvals[0]);
  await conv.approve(approval.request_id, 'deny');
  expect((await p2).final_response === 'Left the permissions alone.', 'turn 2 answered');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'smart-approval', conv.workflowId);
}

/**
 * Storage wait: the database becomes unreachable while the model answers (every connection cut,
 * new ones refused). The reply cannot be saved; the model-call attempt keeps it and waits for the
 * database inside the attempt (heartbeating), then saves it once the database is back: one
 * provider request, no failed attempt, no second call.
 */
async function recordStorageWait(stack: TestStack, ws: string): Promise<void> {
  if (!relay) throw new Error('the storage-wait recording needs the database relay');
  const db = relay;
  stack.fake.reset();
  const conv = stack.herald.conversation('replay-storage');
  stack.fake.script([{ text: 'the answer', delayMs: 3000 }]).respond(() => ({ text: 'the answer' }));
  const pending = conv.send('hello', { id: 'st1', start: { cwd: ws } });
  await stack.fake.waitForRequests(1);
  try {
    // Cut once the worker is quiet (waiting for the delayed reply): a pg client that loses its
    // connection inside withTransaction (activities/store/db.ts) has no error listener, and its
    // 'error' event would take this process, worker and all, down.
    await eventually(() => Date.now() - db.lastTraffic > 300, 10_000, 50);
    await db.cut();
    // The reply arrives while the database is away, and waits in the attempt for it.
    await new Promise((r) => setTimeout(r, 10_000));
  } finally {
    await db.restore();
  }
  const r = await pending;
  expect(r.final_response === 'the answer', `answered: ${JSON.stringify(r)}`);
  expect(stack.fake.requests.length === 1, `one provider request (${stack.fake.requests.length})`);
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'storage-wait', conv.workflowId);
}

/** The iteration budget runs out: one last tool-less call asks for a summary. */
async function recordBudgetSummary(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const conv = stack.herald.conversation('replay-budget');
  stack.fake.script([
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { text: 'I read a.txt twice; next, summarise it.' },
  ]);
  const r = await conv.send('loop', { id: 'bu1', start: { cwd: ws, maxIterations: 2 } });
  expect(r.turn_exit_reason === 'budget_exhausted', 'the budget ran out');
  expect(stack.fake.requests[2]!.body.tool_choice === 'none', 'the summary call had no tools');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'budget-summary', conv.workflowId);
}

/** The loop guard answers a repeated read itself; the next request goes out without tools. */
async function recordLoopGuardPause(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const read = { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] };
  const conv = stack.herald.conversation('replay-loop-guard-pause');
  stack.fake.script([read, read, read, { text: 'a.txt holds A.' }]);
  const r = await conv.send('read a.txt', { id: 'lgp1', start: { cwd: ws } });
  expect(r.final_response === 'a.txt holds A.', 'the paused request was answered');
  expect(stack.fake.requests[3]?.body.tool_choice === 'none', 'the fourth request offered no tools');
  stack.fake.assertDone();
  // Patch loop-guard-pause-retry: the paused reply is the call again, as text: asked once more, then
  // (the second turn) halted when the retry's reply is the call again too.
  const asText = { text: '```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```' };
  stack.fake.script([read, read, read, asText, { text: 'a.txt holds A.' }]);
  const r2 = await conv.send('read a.txt again', { id: 'lgp2' });
  expect(r2.final_response === 'a.txt holds A.', 'the retry was answered');
  stack.fake.assertDone();
  stack.fake.script([read, read, read, asText, asText]);
  const r3 = await conv.send('and once more', { id: 'lgp3' });
  expect(r3.turn_exit_reason === 'guardrail_halt', 'the second text call halted the turn');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'loop-guard-pause', conv.workflowId);
}

/** Patch loop-guard-edit-cycle: edits that put a file back the way an earlier edit left it pause the tools. */
async function recordLoopGuardEditCycle(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  writeFileSync(join(ws, 'port.ini'), 'port = 8080\n');
  const patch = (from: string, to: string) => ({
    toolCalls: [{ name: 'patch', arguments: { path: 'port.ini', old_string: from, new_string: to } }],
  });
  const conv = stack.herald.conversation('replay-loop-guard-edit-cycle');
  stack.fake.script([
    patch('8080', '9090'),
    patch('9090', '8080'),
    patch('port = 8080', 'port = 9090'),
    { text: '9090' },
  ]);
  const r = await conv.send('what is the port?', { id: 'lgc1', start: { cwd: ws } });
  expect(r.final_response === '9090', 'the paused request was answered');
  expect(stack.fake.requests[3]?.body.tool_choice === 'none', 'the fourth request offered no tools');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'loop-guard-edit-cycle', conv.workflowId);
}

/**
 * Tool-loop guardrails: a reply with a duplicate call, then the same read_file again and again
 * (nudge, answers from the earlier result, refusals, guardrail_halt); a repeated memory add; the
 * same todo list again and again; a failing test run, fixed and run again (twice). And
 * the budget's last call answered with a tool call written as text (budget-last-call).
 */
async function recordLoopGuard(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const read = { name: 'read_file', arguments: { path: 'a.txt' } };
  const conv = stack.herald.conversation('replay-loop-guard');
  stack.fake.script([{ toolCalls: [read, read] }, ...Array.from({ length: 6 }, () => ({ toolCalls: [read] }))]);
  const r = await conv.send('read a.txt', { id: 'lg1', start: { cwd: ws } });
  expect(r.turn_exit_reason === 'guardrail_halt', 'the loop guard ended the turn');
  stack.fake.assertDone();
  const add = { name: 'memory', arguments: { action: 'add', store: 'memory', content: 'a.txt holds A.' } };
  stack.fake.script([{ toolCalls: [add] }, { toolCalls: [add] }, { text: 'saved' }]);
  const r2 = await conv.send('remember it', { id: 'lg2' });
  expect(r2.final_response === 'saved', 'the second turn answered');
  stack.fake.assertDone();
  await stack.db.query('DELETE FROM memory_entries');
  // The same todo list again and again (patch loop-guard-todo: the guard counts todo calls too).
  const todo = { name: 'todo', arguments: { todos: [{ id: '1', content: 'read a.txt', status: 'pending' }] } };
  stack.fake.script(Array.from({ length: 12 }, () => ({ toolCalls: [todo] })));
  const rTodo = await conv.send('plan it', { id: 'lg3' });
  expect(rTodo.turn_exit_reason === 'guardrail_halt', 'the loop guard ended the todo loop');
  stack.fake.reset();
  // Run the tests, fix the code, run them again (the edit moves the workspace version: a first call),
  // and once more with nothing changed (it runs, nudged: a command is never answered from a result).
  writeFileSync(join(ws, 'app.py'), 'def add(a, b):\n    return a - b\n');
  // Dated an hour back, as a project's code is: Python's bytecode cache keys on the source's mtime in
  // whole seconds and its size, and the fix (same size) lands within the same second otherwise.
  const hourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(join(ws, 'app.py'), hourAgo, hourAgo);
  writeFileSync(
    join(ws, 'test_app.py'),
    'from app import add\nassert add(2, 3) == 5, add(2, 3)\nprint("all tests passed")\n',
  );
  const test = { name: 'terminal', arguments: { command: 'python3 test_app.py' } };
  const fix = { name: 'patch', arguments: { path: 'app.py', old_string: 'a - b', new_string: 'a + b' } };
  stack.fake.script([
    { toolCalls: [test] },
    { toolCalls: [fix] },
    { toolCalls: [test] },
    { toolCalls: [test] },
    { text: 'fixed' },
  ]);
  const rTest = await conv.send('fix the test', { id: 'lg4' });
  expect(rTest.final_response === 'fixed', 'the re-test turn answered');
  expect(
    JSON.stringify(stack.fake.requests[3]?.body.messages ?? []).includes('all tests passed'),
    'the test ran again after the fix',
  );
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'loop-guard', conv.workflowId);

  stack.fake.reset();
  const last = stack.herald.conversation('replay-budget-last-call');
  stack.fake.script([
    { toolCalls: [read] },
    { text: '<tool_call>\n{"name": "read_file", "arguments": {"path": "b.txt"}}\n</tool_call>' },
  ]);
  const r3 = await last.send('read', { id: 'blc1', start: { cwd: ws, maxIterations: 1 } });
  expect(
    r3.final_response?.startsWith('The model tried to call read_file') === true,
    'the text tool call became a note',
  );
  stack.fake.assertDone();
  await endConversation(stack, last.workflowId);
  await save(stack.temporal, 'budget-last-call', last.workflowId);
}

/**
 * A reply cut off by the output limit is continued (CONTINUE_PROMPT, a raised cap); then calls that
 * are asked again: broken JSON arguments (silently) and an empty reply after tools (with a nudge).
 */
async function recordTruncation(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const conv = stack.herald.conversation('replay-truncation');
  stack.fake.script([{ text: 'The first half, ', finishReason: 'length' }, { text: 'and the second half.' }]);
  const r1 = await conv.send('write', { id: 'tr1', start: { cwd: ws } });
  expect(r1.final_response === 'The first half, and the second half.', 'turn 1 continued');
  stack.fake.script([
    { toolCalls: [{ name: 'read_file', arguments: '{"path": "a.txt"' }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { text: '   ' },
    { text: 'a.txt says A' },
  ]);
  const r2 = await conv.send('read a.txt', { id: 'tr2' });
  expect(r2.final_response === 'a.txt says A', 'turn 2 answered');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'truncation', conv.workflowId);
}

/**
 * busyPolicy `steer`: a message posted during a tool call reaches the next model call; a steer
 * signal during a model call that ends the turn becomes the next user message.
 */
async function recordSteer(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const conv = stack.herald.conversation('replay-steer');
  stack.fake.script([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1.5; echo slept' } }] },
    { text: 'Switched to the new plan.' },
  ]);
  const p1 = conv.send('do the old plan', { id: 'se1', start: { cwd: ws, busyPolicy: 'steer' } });
  await eventually(async () => (await stack.events('replay-steer')).some((e) => e.kind === 'tool.started'));
  await conv.post('actually, use the new plan', 'se1-steer');
  expect((await p1).final_response === 'Switched to the new plan.', 'turn 1 answered');
  expect(/OUT-OF-BAND USER MESSAGE/.test(messagesOf(stack.fake.requests[1]!).at(-1)!.content ?? ''), 'steered');
  stack.fake.script([{ text: 'a slow first answer', chunkDelayMs: 200 }, { text: 'handled the steer' }]);
  const p2 = conv.send('hello', { id: 'se2' });
  await stack.fake.waitForRequests(3);
  await conv.steer('and mention the weather');
  await p2;
  await eventually(async () => {
    const s = await conv.state();
    return s.turn === 3 && s.status === 'idle';
  });
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'steer', conv.workflowId);
}

/** Steer carried by a model call that /stop cancelled: it comes back as the next user message (patched path). */
async function recordSteerStopped(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const conv = stack.herald.conversation('replay-steer-stopped');
  stack.fake.script([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo done' } }] },
    { text: 'too late', delayMs: 5_000 },
    { text: 'got the steer' },
  ]);
  const p1 = conv.send('go', { id: 'ss1', start: { cwd: ws, busyPolicy: 'steer' } });
  await stack.fake.waitForRequests(1);
  await conv.steer('use tabs');
  await stack.fake.waitForRequests(2);
  await conv.stop();
  const stopped = await p1;
  expect(stopped.interrupted, 'turn 1 stopped');
  expect(stopped.api_calls === 2, `turn 1 counted the stopped call: ${stopped.api_calls}`);
  await eventually(() => stack.fake.requests.length === 3);
  expect(messagesOf(stack.fake.requests[2]!).at(-1)!.content === 'use tabs', 'the steer became a message');
  await eventually(async () => (await conv.state()).status === 'idle');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'steer-stopped', conv.workflowId);
}

/**
 * Compression inside a turn: after a tool call the reported prompt is over the threshold of a
 * 8K window, so the turn compresses (post_tool) and continues in the new session; the next turn's
 * call overflows the window and is compressed and retried (overflow). The session starts from
 * seeded history, which keeps the recording short.
 */
async function recordCompressionInTurn(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const id = 'replay-compress-turn';
  const conv = stack.herald.conversation(id);
  // Earlier turns seeded as input history: enough transcript that the compression has a middle.
  const history = Array.from({ length: 5 }, (_, i) => [
    { role: 'user' as const, content: `question ${i}` },
    { role: 'assistant' as const, content: `note ${i} ${'detail '.repeat(250)}` },
  ]).flat();
  const start: StartOptions = { cwd: ws, contextLength: 8192, toolsets: ['read_file'], history };
  stack.fake.script([
    { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }], usage: { prompt: 4500 } },
    { text: '## Goal\nAnswer the questions.\n## Remaining work\nnone' },
    { text: 'a.txt holds A' },
  ]);
  const r = await conv.send('read a.txt', { id: 'ct1', start });
  expect(
    r.final_response === 'a.txt holds A' && r.session_id === `${id}.1`,
    `compressed in the turn: ${JSON.stringify(r)}`,
  );
  stack.fake.script([
    {
      status: 400,
      error: {
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.",
        code: 'context_length_exceeded',
      },
    },
    { text: '## Goal\nAnswer the questions.\n## Remaining work\nnone, still' },
    { text: 'answered after compression' },
  ]);
  const r2 = await conv.send('one more', { id: 'ct2' });
  expect(
    r2.final_response === 'answered after compression' && r2.session_id === `${id}.2`,
    `overflow: ${JSON.stringify(r2)}`,
  );
  const reasons = (await statusEvents(stack, id, 'compression'))
    .filter((e) => e.payload.state === 'started')
    .map((e) => e.payload.reason);
  expect(JSON.stringify(reasons) === '["post_tool","overflow"]', `compressions: ${reasons.join(', ')}`);
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'compression-in-turn', conv.workflowId);
}

/**
 * The auxiliary model's requests counted (patch auxiliary-calls-counted): a `smart` assessment in a
 * turn, a manual compression between turns, an overflow's compression whose summary passes the
 * session token cap (the call is not made again: the turn ends at the cap), and a manual compression
 * refused at the cap without an activity.
 */
async function recordAuxiliaryUsage(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  mkdirSync(join(ws, 'dist-aux'), { recursive: true });
  const id = 'replay-aux-usage';
  const conv = stack.herald.conversation(id);
  const history = Array.from({ length: 5 }, (_, i) => [
    { role: 'user' as const, content: `question ${i}` },
    { role: 'assistant' as const, content: `note ${i} ${'detail '.repeat(100)}` },
  ]).flat();
  const start: StartOptions = { cwd: ws, history, approvals: { mode: 'smart' }, budget: { maxTokens: 4000 } };
  stack.fake.script([
    {
      toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf dist-aux' } }],
      usage: { prompt: 100, completion: 10 },
    },
    { text: 'APPROVE', usage: { prompt: 60, completion: 1 } },
    { text: 'cleaned', usage: { prompt: 120, completion: 2 } },
  ]);
  const r1 = await conv.send('clean', { id: 'ax1', start });
  expect(r1.final_response === 'cleaned' && r1.usage.turn.input_tokens === 280, `turn 1: ${JSON.stringify(r1)}`);
  stack.fake.script([{ text: '## Goal\nAnswer the questions.', usage: { prompt: 900, completion: 80 } }]);
  const c1 = await conv.compress();
  expect(c1.compressed && (await conv.state()).usage.input_tokens === 1180, `manual compression: ${c1.message}`);
  stack.fake.script([
    {
      status: 400,
      error: {
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.",
        code: 'context_length_exceeded',
      },
    },
    { text: '## Goal\nAnswer the questions, still.', usage: { prompt: 3000, completion: 100 } },
  ]);
  const r2 = await conv.send('one more', { id: 'ax2' });
  expect(r2.turn_exit_reason === 'session_budget_exceeded', `turn 2 at the cap: ${JSON.stringify(r2)}`);
  const c2 = await conv.compress();
  expect(!c2.compressed && /token cap is reached/.test(c2.message), `refused compression: ${c2.message}`);
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'auxiliary-usage', conv.workflowId);
}

/**
 * Raw signals instead of updates: `userMessage` (object and string forms, a repeat and a malformed
 * one ignored) and `approve` (and one for a request that does not exist, ignored).
 */
async function recordSignals(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  mkdirSync(join(ws, 'build2'), { recursive: true });
  const conv = await stack.herald.start({ sessionId: 'replay-signals', cwd: ws });
  const handle = stack.temporal.workflow.getHandle(conv.workflowId);
  const idleAfter = (turn: number) =>
    eventually(async () => {
      const s = await conv.state();
      return s.turn === turn && s.status === 'idle';
    });
  stack.fake.script([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build2 && echo removed' } }] },
    { text: 'Removed build2.' },
  ]);
  await handle.signal('userMessage', { text: 'Clean build2', id: 'sig-1' });
  const approval = await eventually(async () => (await conv.state()).pending_approvals[0]);
  await handle.signal('approve', { requestId: 'no-such-request', decision: 'once' });
  await handle.signal('approve', { requestId: approval.request_id, decision: 'once' });
  await idleAfter(1);
  await handle.signal('userMessage', { text: 'Clean build2', id: 'sig-1' });
  await handle.signal('userMessage', { nonsense: true });
  // v8f: an id of 202 UTF-16 units of emoji (101 code points): over its bound (200) since patch utf16-bounds.
  const ignored = await eventually(async () => {
    const s = await conv.state();
    return s.ignored_messages.count >= 2 ? s.ignored_messages.count : undefined;
  });
  await handle.signal('userMessage', { text: 'Not run', id: '\u{1f600}'.repeat(101) });
  await eventually(async () => (await conv.state()).ignored_messages.count === ignored + 1);
  stack.fake.script([{ text: 'Second answer.' }]);
  await handle.signal('userMessage', 'And a plain string');
  await idleAfter(2);
  expect((await conv.state()).last_result?.final_response === 'Second answer.', 'turn 2 answered');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'signals', conv.workflowId);
}

/** A child agent runs past `delegation.childTimeoutSeconds`: stopped, reported as timed out. */
async function recordChildDeadline(): Promise<void> {
  const stack = await createTestStack({
    configYaml: 'retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\ndelegation: { childTimeoutSeconds: 3 }\n',
  });
  try {
    const ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    stack.fake.respond((r) => {
      const messages = messagesOf(r);
      if (messages.some((m) => m.role === 'user' && m.content?.startsWith('YOUR TASK')))
        return { text: 'slow', hangAfterChunks: 1 };
      if (messages.at(-1)!.role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Take forever' } }] };
      return { text: 'The child timed out.' };
    });
    const conv = stack.herald.conversation('replay-child-deadline');
    const r = await conv.send('go', { id: 'cd1', start: { cwd: ws } });
    expect(r.final_response === 'The child timed out.', 'the parent answered');
    const tool = (await stack.transcript('replay-child-deadline')).find((m) => m.role === 'tool');
    const [report] = parseDelegationResult(tool?.content ?? '');
    expect(report?.status === 'timeout', `the child timed out: ${JSON.stringify(report)}`);
    const child = `session-${report!.session_id}`;
    await stack.temporal.workflow.getHandle(child).result();
    await endConversation(stack, conv.workflowId);
    await save(stack.temporal, 'child-deadline', conv.workflowId);
    await save(stack.temporal, 'child-deadline-child', child);
  } finally {
    await stack.close();
  }
}

/**
 * What the Web UI shows, and setModel (v6): an approval wait during which the model is switched
 * (it applies from the next turn), a clarify question answered, then a fallback chain that fails
 * whole and names both providers' errors. HeraldStatus follows each of these.
 */
async function recordWebUi(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  mkdirSync(join(ws, 'build-webui'), { recursive: true });
  const conv = stack.herald.conversation('replay-webui');
  const start: StartOptions = {
    cwd: ws,
    fallbackProviders: [{ provider: 'custom', model: 'backup-model', baseUrl: stack.fake.url }],
  };
  stack.fake.script(
    [
      { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build-webui && echo removed' } }] },
      { text: 'Removed it.' },
    ],
    'fake-model',
  );
  const p1 = conv.send('Clean build-webui', { id: 'wu1', start });
  const approval = await eventually(async () => (await conv.state()).pending_approvals[0]);
  const switched = await conv.setModel({ model: 'other-model' });
  expect(switched.applies === 'next_turn', `setModel during a turn: ${JSON.stringify(switched)}`);
  await conv.approve(approval.request_id, 'once');
  const r1 = await p1;
  expect(r1.final_response === 'Removed it.' && r1.model === 'fake-model', 'turn 1 finished on its model');

  stack.fake.script(
    [
      { toolCalls: [{ name: 'clarify', arguments: { question: 'Which database?', choices: ['postgres', 'sqlite'] } }] },
      { text: 'Postgres it is.' },
    ],
    'other-model',
  );
  const p2 = conv.send('Set up a database', { id: 'wu2' });
  await eventually(async () => (await conv.state()).status === 'awaiting_clarify');
  await conv.answer('postgres');
  const r2 = await p2;
  expect(r2.final_response === 'Postgres it is.' && r2.model === 'other-model', 'turn 2 on the new model');

  stack.fake.script([{ status: 401, error: { message: 'Incorrect API key provided' } }], 'other-model');
  stack.fake.script([{ status: 404, error: { message: 'The model backup-model does not exist' } }], 'backup-model');
  const r3 = await conv.send('and now?', { id: 'wu3' });
  expect(
    r3.failed &&
      /^every provider failed \(2\): 1\. custom\/other-model \(primary\): auth: .*; 2\. custom\/backup-model: model_not_found/.test(
        r3.error ?? '',
      ),
    `turn 3 names both errors: ${JSON.stringify(r3)}`,
  );
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'web-ui', conv.workflowId);
}

/**
 * A conversation that ended is started again under the same id (`herald chat --resume … --reopen`):
 * the new run goes on from the session's stored totals and turn number (patch resume-keeps-totals).
 */
async function recordReopened(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const conv = stack.herald.conversation('replay-reopened');
  stack.fake.script([{ text: 'Noted: PLUM.' }]);
  await conv.send('remember PLUM', { id: 'ro1', start: { cwd: ws } });
  await endConversation(stack, conv.workflowId);
  stack.fake.script([{ text: 'Yes: PLUM.' }]);
  const r = await conv.send('what was the word?', { id: 'ro2', start: { cwd: ws } });
  expect(
    r.turn === 2 && r.usage.session.total_tokens > r.usage.turn.total_tokens,
    `turn 2 on turn 1's totals: ${JSON.stringify(r)}`,
  );
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'reopened', conv.workflowId);
}

/**
 * MCP tools (patch mcp-tools): server-everything over stdio, found at session start; a call; its
 * list-changed notification followed by discovery before turn 2; the `reloadTools` update.
 */
async function recordMcp(): Promise<void> {
  const stack = await createTestStack({
    configYaml: [
      'mcp:',
      '  servers:',
      '    everything:',
      '      command: node',
      `      args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]`,
      '',
    ].join('\n'),
  });
  try {
    const ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    const conv = stack.herald.conversation('replay-mcp');
    stack.fake.script([
      { toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'replayed' } }] },
      { text: 'echoed' },
      { text: 'turn two' },
    ]);
    const r1 = await conv.send('echo', { id: 'mcp1', start: { cwd: ws } });
    expect(r1.final_response === 'echoed', `turn 1 answered: ${JSON.stringify(r1)}`);
    const r2 = await conv.send('again', { id: 'mcp2' });
    expect(r2.final_response === 'turn two', 'turn 2 answered');
    const reloaded = await conv.reloadTools();
    expect(reloaded.tools.includes('mcp_everything_echo'), 'reloadTools listed the tools');
    const history = await stack.temporal.workflow.getHandle(conv.workflowId).fetchHistory();
    expect(
      history.events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'discoverMcpTools')
        .length === 2,
      'discovered after the list-changed notification and on reloadTools',
    );
    stack.fake.assertDone();
    await endConversation(stack, conv.workflowId);
    await save(stack.temporal, 'mcp', conv.workflowId);
  } finally {
    await stack.close();
  }
}

/** Several turns: parallel reads, a terminal call, an unknown tool, then `end`. */
async function recordMultiTurn(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  stack.fake.script([
    {
      text: 'Reading both.',
      toolCalls: [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'read_file', arguments: { path: 'b.txt' } },
      ],
    },
    { toolCalls: [{ name: 'terminal', arguments: { command: 'cat a.txt b.txt | wc -l' } }] },
    { toolCalls: [{ name: 'grep', arguments: { pattern: 'A' } }] },
    { text: 'Two files, two lines.' },
    { text: 'Anything else?' },
  ]);
  const conv = stack.herald.conversation('replay-multi-turn');
  await conv.send('Read a.txt and b.txt and count lines', { id: 'r1', start: { cwd: ws } });
  await conv.send('Thanks', { id: 'r2' });
  await conv.end('recorded');
  await stack.temporal.workflow.getHandle(conv.workflowId).result();
  await save(stack.temporal, 'multi-turn-tools', conv.workflowId);
}

/** A stop during a model call, a queued signal message, continue-as-new after two turns. */
async function recordInterruptCan(stack: TestStack): Promise<void> {
  stack.fake.reset();
  stack.fake.script([{ text: 'slow…', hangAfterChunks: 1 }, { text: 'second turn' }, { text: 'third turn, new run' }]);
  const c2 = stack.herald.conversation('replay-interrupt-can');
  const pending = c2.send('start something slow', {
    id: 's1',
    start: { continueAsNewAfterTurns: 2, busyPolicy: 'queue' },
  });
  await stack.fake.waitForRequests(1);
  await c2.stop('recording');
  await pending;
  await c2.send('next', { id: 's2' });
  await eventually(async () => {
    const d = await stack.temporal.workflow.getHandle(c2.workflowId).describe();
    return d.runId !== d.raw.workflowExecutionInfo?.firstRunId;
  });
  await c2.send('after continue-as-new', { id: 's3' });
  const first =
    (await stack.temporal.workflow.getHandle(c2.workflowId).describe()).raw.workflowExecutionInfo?.firstRunId ??
    undefined;
  await save(stack.temporal, 'interrupt-then-continue-as-new', c2.workflowId, first);
  await c2.end('recorded');
  await stack.temporal.workflow.getHandle(c2.workflowId).result();
  await save(stack.temporal, 'after-continue-as-new', c2.workflowId);
}

/** Invalid input. */
async function recordInvalidInput(stack: TestStack): Promise<void> {
  const bad = await stack.temporal.workflow.start('conversation', {
    taskQueue: stack.taskQueue,
    workflowId: 'session-replay-invalid',
    args: [{ maxIterations: 0 }],
  });
  await bad.result().catch(() => {});
  await save(stack.temporal, 'invalid-input', 'session-replay-invalid');
}

/**
 * A todo list, a dangerous command approved, a clarify question answered, a manual compression,
 * then a parallel batch (with the batch deadline) in the compressed session.
 */
async function recordHuman(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  mkdirSync(join(ws, 'build-old'), { recursive: true });
  stack.fake.script([
    {
      toolCalls: [
        {
          name: 'todo',
          arguments: {
            todos: [
              { id: '1', content: 'clean the build', status: 'in_progress' },
              { id: '2', content: 'pick a database', status: 'pending' },
            ],
          },
        },
      ],
    },
    { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build-old && echo cleaned' } }] },
    {
      toolCalls: [{ name: 'clarify', arguments: { question: 'Which database?', choices: ['postgres', 'sqlite'] } }],
    },
    { text: 'Cleaned the build; using postgres.' },
  ]);
  const c4 = stack.herald.conversation('replay-human');
  const p4 = c4.send('Clean the build, then set up a database', { id: 'h1', start: { cwd: ws } });
  const approval = await eventually(async () => (await c4.state()).pending_approvals[0]);
  await c4.approve(approval.request_id, 'once');
  await eventually(async () => (await c4.state()).clarify);
  await c4.answer('postgres');
  await p4;
  // Enough transcript that the compression has a middle to summarise.
  stack.fake.script(Array.from({ length: 5 }, (_, i) => ({ text: `note ${i} ${'detail '.repeat(60)}` })));
  for (let i = 0; i < 5; i++) await c4.send(`question ${i}`, { id: `q${i}` });
  stack.fake.script([{ text: '## Goal\nClean and set up.\n## Remaining work\nnone' }]);
  const compressed = await c4.compress('the database choice');
  if (!compressed.compressed) throw new Error(`the recording needs a real compression: ${compressed.message}`);
  stack.fake.script([
    {
      toolCalls: [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'search_files', arguments: { pattern: 'B' } },
      ],
    },
    { text: 'Both read.' },
  ]);
  await c4.send('Read a.txt and find B', { id: 'h2' });
  await c4.end('recorded');
  await stack.temporal.workflow.getHandle(c4.workflowId).result();
  await save(stack.temporal, 'human-todo-compress', c4.workflowId);
}

/** Delegation: two child agents that read a file each, then a child stopped with its parent. */
async function recordDelegation(stack: TestStack, ws: string): Promise<void> {
  const brief = (r: RecordedRequest) =>
    (r.body.messages as Array<{ role: string; content: string | null }>).find((m) => m.content?.startsWith('YOUR TASK'))
      ?.content;
  let stopping = false;
  stack.fake.reset().respond((r) => {
    const messages = r.body.messages as Array<{ role: string; content: string | null }>;
    const last = messages.at(-1)!;
    const task = brief(r);
    if (task) {
      if (stopping) return { text: 'thinking…', hangAfterChunks: 1 };
      const file = /\w\.txt/.exec(task)?.[0] ?? 'a.txt';
      return last.role === 'user'
        ? { toolCalls: [{ name: 'read_file', arguments: { path: file } }] }
        : { text: `${file} holds ${last.content ?? ''}` };
    }
    if (last.role !== 'user') return { text: 'The children reported.' };
    return {
      toolCalls: [
        {
          name: 'delegate_task',
          arguments: stopping
            ? { goal: 'Think about a.txt' }
            : { tasks: [{ goal: 'Read a.txt', context: 'In the workspace root.' }, { goal: 'Read b.txt' }] },
        },
      ],
    };
  });
  const c5 = stack.herald.conversation('replay-delegation');
  await c5.send('What do a.txt and b.txt hold?', { id: 'd1', start: { cwd: ws } });
  stopping = true;
  const p5 = c5.send('Think about a.txt', { id: 'd2' });
  await eventually(() => stack.fake.requests.filter((r) => brief(r)?.includes('Think')).length > 0);
  await c5.stop('recording');
  await p5;
  await c5.end('recorded');
  await stack.temporal.workflow.getHandle(c5.workflowId).result();
  await save(stack.temporal, 'delegation', c5.workflowId);
  await save(stack.temporal, 'delegation-child', 'session-replay-delegation.d1-2-0');
}

/** Background delegation: the reports come back as a second turn; a second batch is stopped. */
async function recordBackground(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  let hang = false;
  stack.fake.respond((r) => {
    const messages = r.body.messages as Array<{ role: string; content: string | null }>;
    const last = messages.at(-1)!;
    if (messages.some((m) => m.content?.startsWith('YOUR TASK'))) {
      if (hang) return { text: 'thinking…', hangAfterChunks: 1 };
      return last.role === 'user'
        ? { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }
        : { text: `a.txt holds ${last.content ?? ''}` };
    }
    // Reports come back as a user message behind Herald's marker (`[herald:…] [Background task results] …`).
    if (last.content?.includes('[Background task results]')) return { text: 'The child reported.' };
    if (last.role === 'user' && last.content !== 'carry on')
      return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Read a.txt' } }] };
    return { text: 'Dispatched.' };
  });
  const c6 = stack.herald.conversation('replay-background');
  await c6.send('What does a.txt hold?', { id: 'b1', start: { cwd: ws } });
  await eventually(async () => {
    const s = await c6.state();
    return s.turn === 2 && s.status === 'idle';
  });
  hang = true;
  await c6.send('Read it again', { id: 'b2' });
  await eventually(async () => (await c6.state()).background_sessions.length === 1, 60_000);
  await c6.stop('recording');
  // The child ends its turn (its model call aborted) and reports: slow on a loaded machine.
  await eventually(async () => (await c6.state()).background_sessions.length === 0, 60_000);
  await c6.send('carry on', { id: 'b3' });
  await c6.end('recorded');
  await stack.temporal.workflow.getHandle(c6.workflowId).result();
  await save(stack.temporal, 'delegation-background', c6.workflowId);
}

/**
 * Continue-as-new the server suggests (a dev server of its own, suggesting at a low history
 * length): an update refused in the first task that carries the suggestion moves nothing; the next
 * signal, a recorded task, moves the run.
 */
async function recordServerSuggestedCan(): Promise<void> {
  const server = await startTemporalDevServer({
    cliPath: ensureTemporalCli(process.env, log),
    port: await freePort(),
    namespace: 'default',
    extraArgs: suggestCanArgs(),
  });
  try {
    const stack = await createTestStack({ temporalAddress: server.address });
    try {
      stack.fake.script([{ text: 'first answer' }]);
      const conv = stack.herald.conversation('replay-server-suggested-can');
      await conv.send('hello', { id: 'sc1', start: {} });
      const handle = stack.temporal.workflow.getHandle(conv.workflowId);
      const first = (await handle.describe()).runId;
      await approachSuggestion(stack.temporal, conv.workflowId, 'sc1');
      const refused = await conv.approve('no-such-request', 'once').then(
        () => false,
        () => true,
      );
      expect(refused, 'the approve update was refused');
      expect((await handle.describe()).runId === first, 'the refused update moved nothing');
      await handle.signal('approve', { requestId: 'no-such-request', decision: 'once' });
      await eventually(async () => (await handle.describe()).runId !== first);
      const history = await stack.temporal.workflow.getHandle(conv.workflowId, first).fetchHistory();
      expect(
        history.events?.some((e) => e.workflowTaskStartedEventAttributes?.suggestContinueAsNew),
        'the server suggested continue-as-new',
      );
      await save(stack.temporal, 'server-suggested-continue-as-new', conv.workflowId, first);
      stack.fake.script([{ text: 'second answer' }]);
      await conv.send('and now?', { id: 'sc2' });
      await endConversation(stack, conv.workflowId);
      await save(stack.temporal, 'after-server-suggested-continue-as-new', conv.workflowId);
    } finally {
      await stack.close();
    }
  } finally {
    await server.stop();
  }
}
