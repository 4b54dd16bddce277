/**
 * An endpoint and its key are declared together: workflow input, a fallback entry or a `/model`
 * switch can only use an (endpoint, key variable) pair the worker declares or a provider's own
 * standard one. Real worker, real SDK clients, fake model servers on loopback standing in for an
 * LM Studio (no key paired) and a vLLM (a key paired in the config); every server's requests are
 * searched for the worker's OpenAI key.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConversationFailedError } from '../../client/client.js';
import type { RecordedRequest, ScriptedReply } from '../support/fake-provider.js';
import { FakeProvider } from '../support/fake-provider.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

const OPENAI_SECRET = 'sk-worker-openai-0123456789abcdefXYZ';
const PAIRED_SECRET = 'tok-5c1e9a7f3b2d8046e1aa';

describe('endpoint and key pairs', () => {
  let stack: TestStack;
  let lmstudio: FakeProvider;
  let vllm: FakeProvider;
  before(async () => {
    lmstudio = await FakeProvider.start({ label: 'lmstudio' });
    vllm = await FakeProvider.start({ label: 'vllm' });
    stack = await createTestStack({
      env: { OPENAI_API_KEY: OPENAI_SECRET, PAIRED_TOKEN: PAIRED_SECRET },
      configYaml: [
        'providers:',
        '  lmstudio:',
        `    baseUrl: ${lmstudio.url}`,
        '  vllm:',
        `    baseUrl: ${vllm.url}`,
        '    apiKeyEnv: PAIRED_TOKEN',
        '',
      ].join('\n'),
    });
  });
  after(async () => {
    await stack.close();
    await lmstudio.stop();
    await vllm.stop();
  });

  const servers = () => [stack.fake, lmstudio, vllm];
  const reset = () => {
    for (const s of servers()) s.reset().respond(() => ({ text: 'ok' }));
  };
  /** Every header value any server received, for a search for a key. */
  const headersHeard = (s: FakeProvider) => s.requests.flatMap((r) => Object.values(r.headers).flat().map(String));
  const refusedNaming = (field: string) => (err: unknown) => {
    assert.ok(err instanceof ConversationFailedError, `got ${String(err)}`);
    assert.equal(err.failureType, 'InvalidInput');
    assert.ok(err.message.includes(`${field}:`), err.message);
    return true;
  };

  it('the lmstudio preset named with OPENAI_API_KEY is refused before anything is sent, naming apiKeyEnv', async () => {
    reset();
    await assert.rejects(
      stack.herald
        .conversation('c-lmstudio-openai-key')
        .send('hello', { start: { provider: 'lmstudio', model: 'x', apiKeyEnv: 'OPENAI_API_KEY' } }),
      refusedNaming('apiKeyEnv'),
    );
    assert.equal(lmstudio.requests.length, 0, 'the local server heard nothing, not even a window probe');
    assert.equal(vllm.requests.length, 0);
    assert.equal(stack.fake.requests.length, 0);
  });

  it('a local preset with no key paired sends none: a placeholder, never the worker’s OpenAI key', async () => {
    reset();
    const r = await stack.herald
      .conversation('c-lmstudio-keyless')
      .send('hello', { start: { provider: 'lmstudio', model: 'x', toolsets: [] } });
    assert.equal(r.final_response, 'ok');
    const calls = lmstudio.requests.filter((q) => q.path.endsWith('/chat/completions'));
    assert.ok(calls.length >= 1);
    for (const c of calls) assert.equal(c.headers.authorization, 'Bearer no-key');
    assert.ok(
      lmstudio.requests.some((q) => q.path.startsWith('/api/v0/models')),
      'the window was asked for',
    );
    for (const q of lmstudio.requests.filter((q) => !q.path.endsWith('/chat/completions')))
      assert.equal(q.headers.authorization, undefined, `${q.path} carries no key`);
    assert.ok(!headersHeard(lmstudio).some((v) => v.includes(OPENAI_SECRET)));
  });

  it('a pair the config declares carries its own key, named or not', async () => {
    reset();
    const conv = stack.herald.conversation('c-declared');
    await conv.send('hello', { start: { provider: 'vllm', model: 'y', toolsets: [] } });
    await stack.herald
      .conversation('c-declared-named')
      .send('hello', { start: { provider: 'vllm', model: 'y', apiKeyEnv: 'PAIRED_TOKEN', toolsets: [] } });
    const calls = vllm.requests.filter((q) => q.path.endsWith('/chat/completions'));
    assert.equal(calls.length, 2);
    for (const c of calls) assert.equal(c.headers.authorization, `Bearer ${PAIRED_SECRET}`);
    // The window probe (vLLM's model list) goes to the same endpoint, so it may carry the same key.
    const probes = vllm.requests.filter((q) => q.path === '/v1/models');
    assert.ok(probes.length >= 1, 'the window was asked for');
    for (const p of probes) assert.equal(p.headers.authorization, `Bearer ${PAIRED_SECRET}`);
    assert.ok(!headersHeard(vllm).some((v) => v.includes(OPENAI_SECRET)));
  });

  it('a fallback entry whose key is not paired with its endpoint is refused, naming the entry', async () => {
    reset();
    // The primary sends OPENAI_API_KEY to its declared endpoint; the entry names the same key for LM Studio.
    await assert.rejects(
      stack.herald.conversation('c-fallback-mismatch').send('hello', {
        start: { toolsets: [], fallbackProviders: [{ provider: 'lmstudio', model: 'x', apiKeyEnv: 'OPENAI_API_KEY' }] },
      }),
      refusedNaming('fallbackProviders.0.apiKeyEnv'),
    );
    // Another declared endpoint with the key of the primary.
    await assert.rejects(
      stack.herald.conversation('c-fallback-mismatch-2').send('hello', {
        start: {
          toolsets: [],
          fallbackProviders: [
            { provider: 'custom', model: 'b', baseUrl: stack.fake.url },
            { provider: 'vllm', model: 'y', apiKeyEnv: 'OPENAI_API_KEY' },
          ],
        },
      }),
      refusedNaming('fallbackProviders.1.apiKeyEnv'),
    );
    for (const s of servers()) assert.equal(s.requests.length, 0, `${s.label} heard nothing`);
  });

  it('a declared endpoint named with a default key not paired with it gets no key, and so do its child agents', async () => {
    reset();
    const ws = join(stack.workspaces, 'delegating');
    mkdirSync(ws, { recursive: true });
    const isChild = (r: RecordedRequest) =>
      (r.body.messages as Array<{ role: string; content: string | null }>).some((m) =>
        m.content?.startsWith('YOUR TASK'),
      );
    lmstudio.respond((req): ScriptedReply => {
      if (isChild(req)) return { text: 'child done' };
      const last = (req.body.messages as Array<{ role: string }>).at(-1)!;
      if (last.role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { tasks: [{ goal: 'Say done' }] } }] };
      return { text: 'parent done' };
    });
    // `custom` defaults to OPENAI_API_KEY, which the config does not pair with LM Studio's URL.
    const r = await stack.herald
      .conversation('c-keyless-delegation')
      .send('delegate it', { start: { provider: 'custom', model: 'p', baseUrl: lmstudio.url, cwd: ws } });
    assert.equal(r.completed, true, r.error);
    assert.equal(r.final_response, 'parent done');
    const calls = lmstudio.requests.filter((q) => q.path.endsWith('/chat/completions'));
    assert.ok(calls.some(isChild), 'the child agent called the same server');
    for (const c of calls) assert.equal(c.headers.authorization, 'Bearer no-key');
    assert.ok(!headersHeard(lmstudio).some((v) => v.includes(OPENAI_SECRET)));
    assert.equal(stack.fake.requests.length, 0, 'nothing went to the OpenAI-key endpoint either');
  });

  it('/model to a pair the worker no longer declares is refused, and the carried pair is refused before it is sent', async () => {
    reset();
    const conv = stack.herald.conversation('c-model-switch');
    await conv.send('hello', { start: { provider: 'vllm', model: 'y', apiKeyEnv: 'PAIRED_TOKEN', toolsets: [] } });
    assert.equal(vllm.requests.filter((q) => q.path.endsWith('/chat/completions')).length, 1);

    // The worker is replaced by one whose config pairs vLLM with another key, and PAIRED_TOKEN elsewhere.
    const config2 = join(stack.home, 'repaired.yaml');
    writeFileSync(
      config2,
      [
        'providers:',
        '  vllm:',
        `    baseUrl: ${vllm.url}`,
        '    apiKeyEnv: OTHER_TOKEN',
        'fallbackProviders:',
        `  - { provider: custom, model: b, baseUrl: "${lmstudio.url}", apiKeyEnv: PAIRED_TOKEN }`,
        '',
      ].join('\n'),
    );
    await stack.startWorker({ HERALD_CONFIG: config2 });
    await stack.worker!.shutdown();

    vllm.reset().respond(() => ({ text: 'ok' }));
    await assert.rejects(conv.setModel({ model: 'z' }), (err: unknown) => {
      assert.match(
        String((err as Error).message),
        /setModel: apiKeyEnv: PAIRED_TOKEN is not a key this worker sends to/,
      );
      return true;
    });
    const r = await conv.send('again');
    assert.equal(r.failed, true);
    assert.match(r.error ?? '', /PAIRED_TOKEN is not a key this worker sends to .*nothing was sent/);
    assert.equal(vllm.requests.length, 0, 'the carried pair sent nothing');
    for (const s of servers()) assert.ok(!headersHeard(s).some((v) => v.includes(PAIRED_SECRET)));
  });
});
