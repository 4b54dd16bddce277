/** Scenarios of the model call's recovery and accounting: fallback, a credential pool, the database away, compression in a turn, the auxiliary model's usage. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StartOptions } from '../../client/client.js';
import type { TestStack } from '../../test/support/stack.js';
import { createTestStack, eventually } from '../../test/support/stack.js';
import type { Scenario } from './support.js';
import { endConversation, expect, save, statusEvents } from './support.js';
import { databaseRelay } from './db-relay.js';

export const modelCallsScenarios: readonly Scenario[] = [
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
    name: 'credential-pool',
    stack: 'own',
    proves: {
      'credential-pool':
        'a credential pool: rotation on rate limits, the refresh hook on an auth failure, rotation back',
    },
    record: () => recordCredentialPool(),
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
    name: 'compression-in-turn',
    stack: 'short-retries',
    proves: {
      'compression-in-turn':
        'compression inside a turn: after a tool call over the threshold, and on a context overflow (retried in the new session)',
    },
    record: (on) => recordCompressionInTurn(on!.stack, on!.ws),
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
];

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

/**
 * Storage wait: the database becomes unreachable while the model answers (every connection cut,
 * new ones refused). The reply cannot be saved; the model-call attempt keeps it and waits for the
 * database inside the attempt (heartbeating), then saves it once the database is back: one
 * provider request, no failed attempt, no second call.
 */
async function recordStorageWait(stack: TestStack, ws: string): Promise<void> {
  const db = databaseRelay.current;
  if (!db) throw new Error('the storage-wait recording needs the database relay');
  stack.fake.reset();
  const conv = stack.herald.conversation('replay-storage');
  stack.fake.script([{ text: 'the answer', delayMs: 3000 }]).respond(() => ({ text: 'the answer' }));
  const pending = conv.send('hello', { id: 'st1', start: { cwd: ws } });
  await stack.fake.waitForRequests(1);
  try {
    // Cut once the worker is quiet (waiting for the delayed reply): a pg client that loses its
    // connection inside withTransaction (store/db.ts) has no error listener, and its
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
