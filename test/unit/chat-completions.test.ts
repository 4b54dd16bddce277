/**
 * The chat_completions adapter against the fake provider over real HTTP with the real openai
 * client: streamed text, parallel tool calls, reasoning and usage; the non-streaming fallback; and
 * a stream cut mid-response.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { callChatCompletions, toWireMessages } from '../../model-adapters/chat-completions.js';
import type { ModelRequest, StreamSink } from '../../model-adapters/types.js';
import type { ChatMessage } from '../../common/messages.js';
import { recordingSink } from '../support/adapter-helpers.js';
import { FakeProvider } from '../support/fake-provider.js';

describe('callChatCompletions', () => {
  let fake: FakeProvider;
  let client: OpenAI;
  before(async () => {
    fake = await FakeProvider.start();
    client = new OpenAI({ apiKey: 'k', baseURL: fake.url, maxRetries: 0 });
  });
  after(async () => {
    await fake.stop();
  });
  beforeEach(() => {
    fake.reset();
  });

  // Each test uses its own model: endpoints that refuse streaming are remembered per model.
  const request = (model: string, messages: ChatMessage[] = [{ role: 'user', content: 'hi' }]): ModelRequest => ({
    model,
    messages,
    tools: [],
  });
  const call = (req: ModelRequest, sink: StreamSink = recordingSink()) =>
    callChatCompletions(client, fake.url, req, { signal: new AbortController().signal, sink });

  it('streams text to the sink and returns the whole answer', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    fake.script([{ text }]);
    const sink = recordingSink();
    const r = await call(request('m-text'), sink);
    assert.equal(r.content, text);
    assert.equal(r.finishReason, 'stop');
    assert.deepEqual(r.toolCalls, []);
    assert.equal(r.reasoning, null);
    assert.equal(r.model, 'm-text');
    assert.ok(sink.texts.length > 1, 'the text arrived in several deltas');
    assert.equal(sink.texts.join(''), text);
    assert.ok(sink.alives >= sink.texts.length, 'every chunk counts as liveness');

    const body = fake.requests[0]!.body;
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.deepEqual(body.messages, [{ role: 'user', content: 'hi' }]);
    fake.assertDone();
  });

  it('reassembles two parallel tool calls from streamed pieces', async () => {
    const longArgs = { command: 'npm test -- --reporter=spec --grep "a long pattern that spans several chunks"' };
    fake.script([
      {
        text: 'Running both.',
        toolCalls: [
          { id: 'call_a', name: 'read_file', arguments: { path: 'src/index.ts', offset: 10, limit: 40 } },
          { id: 'call_b', name: 'terminal', arguments: longArgs },
        ],
      },
    ]);
    const sink = recordingSink();
    const r = await call(
      { ...request('m-tools'), tools: [{ name: 'read_file', description: 'read', parameters: { type: 'object' } }] },
      sink,
    );
    assert.equal(r.finishReason, 'tool_calls');
    assert.equal(r.content, 'Running both.');
    assert.deepEqual(r.toolCalls, [
      {
        id: 'call_a',
        type: 'function',
        function: { name: 'read_file', arguments: '{"path":"src/index.ts","offset":10,"limit":40}' },
      },
      { id: 'call_b', type: 'function', function: { name: 'terminal', arguments: JSON.stringify(longArgs) } },
    ]);
    assert.deepEqual(sink.tools, ['read_file', 'terminal']);
    const tools = fake.requests[0]!.body.tools as Array<{ type: string; function: { name: string } }>;
    assert.deepEqual(
      tools.map((t) => [t.type, t.function.name]),
      [['function', 'read_file']],
    );
  });

  it('collects reasoning_content', async () => {
    const reasoning = 'First I consider the question, then I answer it briefly.';
    fake.script([{ reasoning, text: 'Answer.' }]);
    const sink = recordingSink();
    const r = await call(request('m-reasoning'), sink);
    assert.equal(r.reasoning, reasoning);
    assert.equal(sink.reasonings.join(''), reasoning);
    assert.ok(sink.reasonings.length > 1);
    assert.equal(r.content, 'Answer.');
  });

  it('reports usage with cached prompt tokens split out', async () => {
    fake.script([{ text: 'ok', usage: { prompt: 1000, cached: 400, completion: 50, reasoning: 20 } }]);
    const r = await call(request('m-usage'));
    assert.deepEqual(r.tokens, { input: 600, cacheRead: 400, output: 50, cacheWrite: 0, reasoning: 20 });
  });

  it('sends max_tokens only when an output limit is set', async () => {
    fake.script([{ text: 'a' }, { text: 'b' }]);
    await call(request('m-max'));
    await call({ ...request('m-max'), maxOutputTokens: 256 });
    assert.equal('max_tokens' in fake.requests[0]!.body, false);
    assert.equal(fake.requests[1]!.body.max_tokens, 256);
  });

  it('sends tool-call arguments in canonical form', async () => {
    fake.script([{ text: 'done' }]);
    await call(
      request('m-canonical', [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'read_file', arguments: '{ "path": "a.txt",\n "offset": 2 }' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'contents' },
      ]),
    );
    const messages = fake.requests[0]!.body.messages as Array<Record<string, unknown>>;
    assert.deepEqual(messages[2], {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"offset":2,"path":"a.txt"}' } },
      ],
    });
    assert.deepEqual(messages[3], { role: 'tool', tool_call_id: 'c1', content: 'contents' });
  });

  it('falls back to a non-streaming call when the endpoint rejects streaming', async () => {
    fake.script([
      { status: 400, error: { message: 'stream is not supported' } },
      { text: 'plain answer', reasoning: 'thought', usage: { prompt: 10, completion: 3 } },
    ]);
    const sink = recordingSink();
    const r = await call(request('m-nostream'), sink);
    assert.equal(r.content, 'plain answer');
    assert.equal(r.reasoning, 'thought');
    assert.equal(r.finishReason, 'stop');
    assert.deepEqual(r.tokens, { input: 10, output: 3, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
    assert.deepEqual(sink.texts, ['plain answer']);
    assert.equal(fake.requests.length, 2);
    assert.equal(fake.requests[0]!.body.stream, true);
    assert.notEqual(fake.requests[1]!.body.stream, true);

    // remembered: the next call for this endpoint and model does not try streaming again
    fake.script([{ toolCalls: [{ id: 'c9', name: 'terminal', arguments: { command: 'ls' } }] }]);
    const again = await call(request('m-nostream'));
    assert.equal(fake.requests.length, 3);
    assert.notEqual(fake.requests[2]!.body.stream, true);
    assert.deepEqual(again.toolCalls, [
      { id: 'c9', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } },
    ]);
    assert.equal(again.finishReason, 'tool_calls');
    fake.assertDone();
  });

  it('does not fall back for other 400 errors', async () => {
    fake.script([{ status: 400, error: { message: 'messages: field required' } }]);
    await assert.rejects(
      call(request('m-other400')),
      (err: unknown) => err instanceof OpenAI.APIError && err.status === 400,
    );
    assert.equal(fake.requests.length, 1);
  });

  it('throws when the stream is cut mid-response', async () => {
    fake.script([
      { text: 'This answer will never be finished because the connection drops.', cutAfterChunks: 3, chunkDelayMs: 5 },
    ]);
    const sink = recordingSink();
    await assert.rejects(call(request('m-cut'), sink), Error);
    assert.ok(sink.texts.length > 0, 'part of the answer had streamed before the cut');
    assert.equal(fake.requests.length, 1, 'a cut stream is not retried here (Temporal retries)');
  });

  it('stops a hung stream when the call is aborted', async () => {
    fake.script([{ text: 'partial answer that never ends', hangAfterChunks: 2 }]);
    const ac = new AbortController();
    const started = Date.now();
    const pending = callChatCompletions(client, fake.url, request('m-hang'), {
      signal: ac.signal,
      sink: recordingSink(),
    });
    await fake.waitForRequests(1);
    setTimeout(() => ac.abort(), 100);
    await assert.rejects(pending);
    assert.ok(Date.now() - started < 5000);
    await sleep(50);
    assert.ok(fake.requests[0]!.abortedAt !== undefined, 'the HTTP request was closed');
  });
});

describe('toWireMessages', () => {
  it('converts each role to the OpenAI wire shape', () => {
    const wire = toWireMessages([
      { role: 'system', content: null },
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'thinking aloud',
        reasoning: 'hidden',
        tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: '{"b":2,"a":1}' } }],
      },
      { role: 'tool', tool_call_id: 'a', name: 't', content: null },
      { role: 'assistant', content: 'final' },
    ]);
    assert.deepEqual(wire, [
      { role: 'system', content: '' },
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'thinking aloud',
        tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: '{"a":1,"b":2}' } }],
      },
      { role: 'tool', tool_call_id: 'a', content: '' },
      { role: 'assistant', content: 'final' },
    ]);
  });

  it('keeps unparseable arguments as they are', () => {
    const [m] = toWireMessages([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: '{broken' } }],
      },
    ]);
    assert.deepEqual(m, {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: '{broken' } }],
    });
  });
});
