/**
 * Provider trouble never loses a conversation (docs/providers.md): retries honour Retry-After, failing
 * providers hand over to the fallback chain, credentials rotate, oversized contexts are
 * compressed, misbehaving models are steered back, budgets end turns cleanly, and when nothing
 * works the turn fails with a clear error while the conversation lives on.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { StartOptions } from '../../client/client.js';
import { BUDGET_FINAL_NOTE } from '../../common/budget.js';
import { CONTINUE_PROMPT, EMPTY_AFTER_TOOLS_NUDGE } from '../../common/model-response.js';
import { isValidOrder } from '../../shared/role-order.js';
import type { RecordedRequest, ScriptedReply } from '../support/fake-provider.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

type WireMessage = { role: string; content: string | null; tool_calls?: unknown[] };
const messagesOf = (r: RecordedRequest) => r.body.messages as WireMessage[];

/** A local URL whose port was free a moment ago (and nothing listens there now). */
async function unusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

describe('failures and recovery', () => {
  let stack: TestStack;
  let ws: string;
  let withBackup: StartOptions;
  let deadUrl: string;

  before(async () => {
    deadUrl = await unusedUrl();
    stack = await createTestStack({
      env: { POOL_KEY_A: 'key-a-1234567890', POOL_KEY_B: 'key-b-1234567890' },
      // Short backoff keeps the suite fast; the policy shape is the same as production's.
      // openrouter's endpoint is declared only so that a test can point a conversation at a port
      // where nothing listens.
      configYaml: `retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\nproviders:\n  openrouter:\n    baseUrl: '${deadUrl}'\n`,
    });
    ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'a.txt'), 'alpha\n');
    withBackup = {
      cwd: ws,
      fallbackProviders: [{ provider: 'custom', model: 'backup-model', baseUrl: stack.fake.url }],
    };
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  const primary = (n: number) => stack.fake.requests.filter((r) => r.body.model === 'fake-model').length >= n;
  const byModel = (model: string) => stack.fake.requests.filter((r) => r.body.model === model);

  it('honours Retry-After on a 429, then succeeds', async () => {
    stack.fake.script([
      { status: 429, headers: { 'retry-after': '1' }, error: { message: 'Rate limit reached for requests' } },
      { text: 'answered after waiting' },
    ]);
    const r = await stack.herald.conversation('f-429').send('hello', { start: { cwd: ws } });
    assert.equal(r.final_response, 'answered after waiting');
    const [first, second] = stack.fake.requests;
    const waited = second!.receivedAt - first!.receivedAt;
    assert.ok(waited >= 950 && waited < 3000, `waited ${waited} ms`);
    // The retry is visible in history: the activity completed on its second attempt.
    const history = await stack.temporal.workflow.getHandle('session-f-429').fetchHistory();
    const started = history.events
      ?.filter((e) => e.activityTaskStartedEventAttributes)
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    assert.ok(started?.includes(2));
  });

  it('falls back to the next provider after three server errors, and the next turn starts on the primary again', async () => {
    stack.fake.script([{ status: 500 }, { status: 500 }, { status: 500 }, { text: 'primary is back' }], 'fake-model');
    stack.fake.script([{ text: 'answered by the backup' }], 'backup-model');
    const conv = stack.herald.conversation('f-500');
    const r = await conv.send('hello', { start: withBackup });
    assert.equal(r.final_response, 'answered by the backup');
    assert.equal(r.model, 'backup-model');
    assert.equal(byModel('fake-model').length, 3);
    const status = (await stack.events('f-500')).filter((e) => e.kind === 'status' && e.payload.kind === 'fallback');
    assert.equal(status.length, 1);
    assert.match(
      status[0]!.payload.message as string,
      /switched from fake-model via custom to backup-model via custom \(server_error\)/,
    );
    const next = await conv.send('again');
    assert.equal(next.final_response, 'primary is back');
    assert.equal(next.model, 'fake-model');
    stack.fake.assertDone();
  });

  it('treats a refused connection as network: retried once, then the fallback', async () => {
    stack.fake.script([{ text: 'backup answered' }], 'backup-model');
    // Nothing listens at deadUrl: the primary's endpoint refuses every connection.
    const r = await stack.herald
      .conversation('f-refused')
      .send('hello', { start: { ...withBackup, baseUrl: deadUrl } });
    assert.equal(r.final_response, 'backup answered', JSON.stringify(r.error));
    assert.equal(r.model, 'backup-model');
    const events = await stack.events('f-refused');
    const errors = events.filter((e) => e.kind === 'status' && e.payload.kind === 'model_error');
    assert.deepEqual(
      errors.map((e) => [e.payload.reason, e.payload.willRetry]),
      [
        ['network', true],
        ['network', false],
      ],
    );
    assert.match(errors[0]!.payload.message as string, /ECONNREFUSED/);
    const fallback = events.filter((e) => e.kind === 'status' && e.payload.kind === 'fallback');
    assert.match(fallback[0]!.payload.message as string, /to backup-model via custom \(network\)/);
  });

  it('falls back after an authentication failure (the refresh hook finds no new key)', async () => {
    stack.fake.script([{ status: 401, error: { message: 'Incorrect API key provided' } }], 'fake-model');
    stack.fake.script([{ text: 'backup answered' }], 'backup-model');
    const r = await stack.herald.conversation('f-401').send('hello', { start: withBackup });
    assert.equal(r.final_response, 'backup answered');
    assert.equal(byModel('fake-model').length, 1, 'auth failures are not retried on the same key');
  });

  it('switches at once on a billing error and keeps the primary in cooldown for the next turn', async () => {
    stack.fake.script([{ status: 402, error: { message: 'Insufficient credits on this account' } }], 'fake-model');
    stack.fake.script([{ text: 'backup answered' }, { text: 'backup again, primary cooling down' }], 'backup-model');
    const conv = stack.herald.conversation('f-billing');
    const r = await conv.send('hello', { start: withBackup });
    assert.equal(r.final_response, 'backup answered');
    assert.equal(byModel('fake-model').length, 1);
    const next = await conv.send('again');
    assert.equal(next.final_response, 'backup again, primary cooling down');
    assert.equal(byModel('fake-model').length, 1, 'the primary is skipped during its cooldown');
    stack.fake.assertDone();
  });

  it('rotates to the next key of a credential pool on the second consecutive rate limit', async () => {
    const pooled = await createTestStack({
      env: { POOL_KEY_A: 'key-a-1234567890', POOL_KEY_B: 'key-b-1234567890' },
      configYaml:
        'retry: { baseDelaySeconds: 0.1, maxDelaySeconds: 0.5 }\nproviders:\n  custom:\n    credentialPool: [POOL_KEY_A, POOL_KEY_B]\n',
    });
    try {
      pooled.fake.script([{ status: 429 }, { status: 429 }, { text: 'second key works' }]);
      const r = await pooled.herald.conversation('f-pool').send('hello', { start: {} });
      assert.equal(r.final_response, 'second key works');
      const auth = pooled.fake.requests.map((q) => q.headers.authorization);
      assert.deepEqual(auth, ['Bearer key-a-1234567890', 'Bearer key-a-1234567890', 'Bearer key-b-1234567890']);
      const rotated = (await pooled.events('f-pool')).find((e) => e.payload.kind === 'credential_rotated');
      assert.match(rotated!.payload.message as string, /key 2 of 2/);
    } finally {
      await pooled.close();
    }
  });

  it('compresses the context after a context-overflow error and succeeds', async () => {
    const conv = stack.herald.conversation('f-overflow');
    const script = [];
    for (let i = 1; i <= 6; i++) script.push({ text: `answer ${i}: ${'lorem ipsum '.repeat(30)}` });
    stack.fake.script(script);
    for (let i = 1; i <= 6; i++) await conv.send(`question ${i}`, { start: { cwd: ws } });
    stack.fake.reset().script([
      {
        status: 400,
        error: {
          message:
            "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.",
          code: 'context_length_exceeded',
        },
      },
      { text: '## Goal\nAnswer the numbered questions.\n## Remaining work\nnone' },
      { text: 'answered after compression' },
    ]);
    const r = await conv.send('question 7');
    assert.equal(r.final_response, 'answered after compression', JSON.stringify(r.error));
    assert.equal(r.session_id, 'f-overflow.1');
    // The summary call went to the (auxiliary = main) model with the summariser instructions.
    assert.match(messagesOf(stack.fake.requests[1]!)[0]!.content ?? '', /compress the earlier part of a conversation/);
    // The retried call saw the summary, not the old middle.
    const retried = messagesOf(stack.fake.requests[2]!);
    assert.ok(retried.some((m) => m.content?.includes('[CONTEXT SUMMARY')));
    assert.ok(retried.length < 14);
    const lineage = await stack.db.query(
      "SELECT id, parent_id, title, end_reason FROM sessions WHERE conversation_id = 'f-overflow' ORDER BY started_at",
    );
    assert.deepEqual(
      lineage.rows.map((x) => [x.id, x.parent_id, x.end_reason]),
      [
        ['f-overflow', null, 'compression'],
        ['f-overflow.1', 'f-overflow', null],
      ],
    );
    assert.equal(lineage.rows[1].title, 'question 1 #2');
    assert.ok(isValidOrder(await stack.transcript('f-overflow.1')));
  });

  it('keeps a context window the provider stated for later turns: one overflow, then compression in time', async () => {
    const WINDOW = 4000;
    /** The provider's own count: about 4 characters a token, tool schemas included. */
    const estimate = (body: Record<string, unknown>) =>
      Math.ceil((JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length) / 4);
    let overflows = 0;
    stack.fake.reset().respond((req): ScriptedReply => {
      const tokens = estimate(req.body);
      if (tokens > WINDOW) {
        overflows += 1;
        return {
          status: 400,
          error: {
            message: `This model's maximum context length is ${WINDOW} tokens. However, your messages resulted in ${tokens} tokens.`,
            code: 'context_length_exceeded',
          },
        };
      }
      if ((messagesOf(req)[0]!.content ?? '').startsWith('You compress the earlier part'))
        return { text: '## Goal\nAnswer the numbered questions.\n## Remaining work\nnone', usage: { prompt: tokens } };
      return { text: `answer: ${'lorem ipsum '.repeat(100)}`, usage: { prompt: tokens } };
    });
    const conv = stack.herald.conversation('f-window');
    for (let i = 1; i <= 16; i++) {
      const r = await conv.send(`question ${i}: ${'why '.repeat(200)}`, { start: { cwd: ws, toolsets: ['todo'] } });
      assert.equal(r.failed, false, `turn ${i}: ${r.error}`);
    }
    assert.equal(overflows, 1, 'after the first overflow the stated window is used in every later turn');
  });

  it("learns the window from a llama.cpp server's context-size error: one overflow, then compression in time", async () => {
    const WINDOW = 4000;
    const estimate = (body: Record<string, unknown>) =>
      Math.ceil((JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length) / 4);
    let overflows = 0;
    stack.fake.reset().respond((req): ScriptedReply => {
      const tokens = estimate(req.body);
      if (tokens > WINDOW) {
        overflows += 1;
        // llama-server's words and error type (HTTP 400); once read as a format_error.
        return {
          status: 400,
          error: {
            message: `request (${tokens} tokens) exceeds the available context size (${WINDOW} tokens), try increasing it`,
            type: 'exceed_context_size_error',
          },
        };
      }
      if ((messagesOf(req)[0]!.content ?? '').startsWith('You compress the earlier part'))
        return { text: '## Goal\nAnswer the numbered questions.\n## Remaining work\nnone', usage: { prompt: tokens } };
      return { text: `answer: ${'lorem ipsum '.repeat(100)}`, usage: { prompt: tokens } };
    });
    const conv = stack.herald.conversation('f-llamacpp-window');
    for (let i = 1; i <= 16; i++) {
      const r = await conv.send(`question ${i}: ${'why '.repeat(200)}`, { start: { cwd: ws, toolsets: ['todo'] } });
      assert.equal(r.failed, false, `turn ${i}: ${r.error}`);
    }
    assert.equal(overflows, 1, 'the window llama.cpp stated is used in every later turn');
  });

  it('recovers from empty replies: a nudge after tool results, a silent retry otherwise', async () => {
    stack.fake.script([{ text: '' }, { text: 'not empty now' }]);
    assert.equal(
      (await stack.herald.conversation('f-empty').send('hello', { start: { cwd: ws } })).final_response,
      'not empty now',
    );

    stack.fake
      .reset()
      .script([
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { text: '   ' },
        { text: 'a.txt says alpha' },
      ]);
    const r = await stack.herald.conversation('f-empty-tools').send('read a.txt', { start: { cwd: ws } });
    assert.equal(r.final_response, 'a.txt says alpha');
    const nudged = messagesOf(stack.fake.requests[2]!);
    assert.ok(nudged.at(-1)!.content!.includes(EMPTY_AFTER_TOOLS_NUDGE));
    // The nudge rode on the request only.
    const stored = await stack.transcript('f-empty-tools');
    assert.ok(stored.every((m) => !m.content?.includes(EMPTY_AFTER_TOOLS_NUDGE)));
    assert.deepEqual(
      stored.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
  });

  it('lets the model correct an unknown tool name and invalid JSON arguments', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'raed_file', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'read_file', arguments: '{"path": "a.txt"' }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { text: 'a.txt says alpha' },
    ]);
    const r = await stack.herald.conversation('f-correct').send('read a.txt', { start: { cwd: ws } });
    assert.equal(r.final_response, 'a.txt says alpha');
    assert.equal(r.completed, true);
    const stored = await stack.transcript('f-correct');
    assert.deepEqual(
      stored.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'],
    );
    assert.match(stored[2]!.content!, /Tool 'raed_file' does not exist\. Did you mean 'read_file'\?/);
    // The broken-JSON reply was re-asked silently: it never entered the transcript.
    assert.equal(stored[3]!.tool_calls![0]!.function.arguments, '{"path":"a.txt"}');
    assert.match(stored[4]!.content!, /alpha/);
  });

  it('ends as partial after three responses in a row with unknown tools', async () => {
    const bad = { toolCalls: [{ name: 'nope', arguments: {} }] };
    stack.fake.script([bad, bad, bad]);
    const r = await stack.herald.conversation('f-unknown').send('go', { start: { cwd: ws } });
    assert.equal(r.partial, true);
    assert.equal(r.failed, false);
    assert.equal(r.turn_exit_reason, 'invalid_tool_calls');
    assert.match(r.error!, /tools that do not exist: nope/);
    assert.ok(isValidOrder(await stack.transcript('f-unknown')));
  });

  it('continues a reply cut off by the output limit, with a raised cap', async () => {
    stack.fake.script([{ text: 'The first half, ', finishReason: 'length' }, { text: 'and the second half.' }]);
    const r = await stack.herald.conversation('f-length').send('write', { start: { cwd: ws } });
    assert.equal(r.final_response, 'The first half, and the second half.');
    const second = stack.fake.requests[1]!;
    assert.equal(messagesOf(second).at(-1)!.content, CONTINUE_PROMPT);
    assert.equal(second.body.max_tokens, 8192);
  });

  it('stops at the iteration budget with one tool-less summary call', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { text: 'I read a.txt twice; next, summarise it.' },
    ]);
    const r = await stack.herald.conversation('f-budget').send('loop', { start: { cwd: ws, maxIterations: 2 } });
    assert.equal(r.turn_exit_reason, 'budget_exhausted');
    assert.equal(r.final_response, 'I read a.txt twice; next, summarise it.');
    assert.equal(r.completed, false);
    const last = stack.fake.requests[2]!;
    assert.equal(last.body.tool_choice, 'none');
    assert.ok(messagesOf(last).at(-1)!.content!.includes(BUDGET_FINAL_NOTE));
    // Budget notes ride on requests only.
    assert.ok((await stack.transcript('f-budget')).every((m) => !m.content?.includes('BUDGET')));
  });

  it('ends the turn with a clear error when the whole chain fails, and the conversation lives on', async () => {
    // Two rounds through the chain (one retry of the whole chain after a pause), then the turn fails.
    stack.fake.script([...Array.from({ length: 6 }, () => ({ status: 500 })), { text: 'working again' }], 'fake-model');
    stack.fake.script(
      Array.from({ length: 6 }, () => ({ status: 503, error: { message: 'The server is overloaded' } })),
      'backup-model',
    );
    const conv = stack.herald.conversation('f-exhausted');
    const r = await conv.send('hello', { start: withBackup });
    assert.equal(r.failed, true);
    assert.equal(r.turn_exit_reason, 'model_error');
    // The backup's own attempts, both rounds: what the ledger lists for it (six requests, below).
    assert.match(r.error!, /overloaded: the provider kept failing after 6 attempts/);
    assert.doesNotMatch(r.error!, /\(overloaded\).*\(overloaded\)/, 'the reason is said once');
    assert.ok(isValidOrder(await stack.transcript('f-exhausted')));
    const state = await conv.state();
    assert.equal(state.status, 'idle');
    assert.match(state.last_error!, /overloaded/);
    const next = await conv.send('and now?');
    assert.equal(next.final_response, 'working again');
    assert.ok(primary(7));
    assert.equal(byModel('backup-model').length, 6);
  });

  it('ends turns at the session token cap, before calling the model', async () => {
    stack.fake.script([
      { text: 'one', usage: { prompt: 100, completion: 10 } },
      { text: 'two', usage: { prompt: 100, completion: 10 } },
    ]);
    const conv = stack.herald.conversation('f-cap');
    assert.equal((await conv.send('1', { start: { cwd: ws, budget: { maxTokens: 150 } } })).final_response, 'one');
    assert.equal((await conv.send('2')).final_response, 'two');
    const third = await conv.send('3');
    assert.equal(third.failed, true);
    assert.equal(third.turn_exit_reason, 'session_budget_exceeded');
    assert.match(third.error!, /220 of 150 tokens/);
    assert.equal(stack.fake.requests.length, 2);
  });
});
