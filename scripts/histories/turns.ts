/** Scenarios of the conversation loop itself: turns, a stop, continue-as-new, raw signals, a reopened session, the Web UI, budget and truncation. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StartOptions } from '../../client/client.js';
import { freePort } from '../../runtime/ports.js';
import { ensureTemporalCli } from '../../runtime/temporal-cli.js';
import type { TestStack } from '../../test/support/stack.js';
import { createTestStack, eventually } from '../../test/support/stack.js';
import { approachSuggestion, suggestCanArgs } from '../../test/support/continue-as-new.js';
import { startTemporalDevServer } from '../../workers/temporal-dev-server.js';
import type { Scenario } from './support.js';
import { endConversation, expect, log, save } from './support.js';

export const turnsScenarios: readonly Scenario[] = [
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
