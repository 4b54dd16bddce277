/**
 * Local servers as first-class providers (docs/providers.md): a `llamacpp` preset learns its model's window
 * from the server's `/props` before the first call, so a 2K window compresses where the default
 * 128K would not; the same conversation through `custom` (no discovery) does not compress.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { existsSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest, ScriptedReply } from '../support/fake-provider.js';
import type { TestStack } from '../support/stack.js';
import { FAKE_MODEL, createTestStack, eventually } from '../support/stack.js';

const isSummaryCall = (r: RecordedRequest) =>
  ((r.body.messages as Array<{ content: string | null }> | undefined)?.[0]?.content ?? '').startsWith(
    'You compress the earlier part',
  );

describe('local servers', () => {
  let stack: TestStack;
  before(async () => {
    stack = await createTestStack({
      env: { HERALD_PROVIDER: 'llamacpp' },
      configYaml: (fake) => `providers:\n  llamacpp:\n    baseUrl: ${fake.url}\n`,
    });
  });
  after(async () => {
    await stack.close();
  });

  const talk = async (id: string, start: Record<string, unknown>) => {
    const conv = stack.herald.conversation(id);
    // Each turn adds ~250 tokens: the prompt passes half of a 2K window early, nowhere near 128K; the
    // verbatim head (3) and tail (8) leave something to summarise from the seventh turn.
    for (let turn = 1; turn <= 8; turn++)
      await conv.send(`turn ${turn}: ${'please keep this note in mind. '.repeat(30)}`, turn === 1 ? { start } : {});
  };

  it('a llama.cpp model learns its 2K window from /props and compresses; custom keeps 128K and does not', async () => {
    stack.fake.reset();
    stack.fake.localServer.set('/props', {
      default_generation_settings: { id: 0, n_ctx: 2048, params: { n_predict: -1 } },
      total_slots: 1,
      model_path: '/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    });
    stack.fake.respond((req): ScriptedReply =>
      isSummaryCall(req) ? { text: 'Goal: keep the notes.' } : { text: 'ok' },
    );

    await talk('c-llamacpp', { toolsets: [] });
    const probes = stack.fake.requests.filter((r) => r.path === '/props');
    assert.equal(probes.length, 1, 'the server is asked once');
    assert.ok(
      probes[0]!.n < stack.fake.requests.find((r) => r.path.endsWith('/chat/completions'))!.n,
      'before the first model call',
    );
    assert.ok(stack.fake.requests.some(isSummaryCall), 'a compression summarised the earlier turns');
    const sessions = await stack.db.query('SELECT id FROM sessions WHERE conversation_id = $1', ['c-llamacpp']);
    assert.ok(sessions.rows.length >= 2, 'the compression continued in a new session');

    stack.fake.reset();
    stack.fake.respond((req): ScriptedReply =>
      isSummaryCall(req) ? { text: 'Goal: keep the notes.' } : { text: 'ok' },
    );
    await talk('c-custom', { toolsets: [], provider: 'custom', model: FAKE_MODEL });
    assert.equal(stack.fake.requests.filter((r) => r.path === '/props').length, 0, 'custom is not probed');
    assert.ok(!stack.fake.requests.some(isSummaryCall), 'no compression under the default window');
    const one = await stack.db.query('SELECT id FROM sessions WHERE conversation_id = $1', ['c-custom']);
    assert.equal(one.rows.length, 1);
  });

  it('an 8K llama.cpp window gets compact tool schemas and an output cap of a quarter of it', async () => {
    stack.fake.reset();
    stack.fake.localServer.set('/props', { default_generation_settings: { id: 0, n_ctx: 8192 }, total_slots: 1 });
    stack.fake.respond(() => ({ text: 'ok' }));
    await stack.herald.conversation('c-small').send('hello', { start: { provider: 'llamacpp', model: 'qwen-8k' } });
    type Body = { tools?: Array<{ function: { name: string; description: string } }>; max_tokens?: number };
    const small = stack.fake.requests.find((r) => r.path.endsWith('/chat/completions'))!.body as Body;
    const described = (b: Body, name: string) => b.tools?.find((t) => t.function.name === name)?.function.description;
    assert.equal(described(small, 'search_files'), 'Search the workspace.', 'the first sentence only');
    assert.equal(small.max_tokens, 2048);

    stack.fake.reset();
    stack.fake.respond(() => ({ text: 'ok' }));
    await stack.herald.conversation('c-big').send('hello', { start: { provider: 'custom', model: FAKE_MODEL } });
    const big = stack.fake.requests.find((r) => r.path.endsWith('/chat/completions'))!.body as Body;
    assert.ok(described(big, 'search_files')!.length > 100, 'full schemas under the default 128K window');
    assert.equal(big.max_tokens, 4096, 'a loopback custom endpoint is capped too');
    assert.equal(small.tools?.length, big.tools?.length, 'compact mode offers every tool');
  });

  it('a local model that counts on and on inside a tool call is cut off early, and nothing is written', async () => {
    // What Qwen2.5-Coder 1.5B did: write_file with "1\n2\n3\n…" until the output cap (6 minutes
    // of CPU), then the same again with the doubled cap.
    stack.fake.reset();
    const count = Array.from({ length: 3000 }, (_, i) => String(i + 1)).join('\n');
    const runaway: ScriptedReply = {
      toolCalls: [{ name: 'write_file', arguments: { path: 'settings.ini', content: count } }],
      finishReason: 'length',
      chunkDelayMs: 2,
    };
    stack.fake.script([runaway, { text: 'The value is 317.' }]);
    const cwd = mkdtempSync(join(stack.workspaces, 'runaway-'));
    const r = await stack.herald
      .conversation('c-runaway')
      .send('Read settings.ini and tell me the value of max_connections.', {
        start: { provider: 'custom', model: FAKE_MODEL, cwd },
      });
    assert.equal(r.final_response, 'The value is 317.');
    const [first, second] = stack.fake.requests.filter((q) => q.path.endsWith('/chat/completions'));
    await eventually(() => first!.abortedAt !== undefined);
    // The stream was left long before its end: ≈2,000 of its 14,000 characters (the server stops generating).
    assert.ok(first!.abortedAt! - first!.receivedAt < 1500, `left after ${first!.abortedAt! - first!.receivedAt} ms`);
    // The cut reply is taken as one the output cap cut off: asked again with a raised cap.
    assert.equal((second!.body as { max_tokens?: number }).max_tokens, 8192);
    assert.equal(existsSync(join(cwd, 'settings.ini')), false, 'the cut-off call never ran');
  });
});
