/**
 * The codex_responses adapter in both directions: Herald's OpenAI-shaped transcript → Responses
 * `instructions` and input items (function_call / function_call_output, reasoning replayed by its
 * encrypted content without an id), and the streamed Responses events → a ModelResponse, against
 * the fake provider over real HTTP with the real openai client.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import { MalformedResponseError } from '../../model-adapters/chat-completions.js';
import { callResponses, toResponsesInput } from '../../model-adapters/codex-responses.js';
import { toModelFailure } from '../../activities/model/failures.js';
import type { ModelRequest, StreamSink } from '../../model-adapters/types.js';
import type { ChatMessage } from '../../common/messages.js';
import type { ProviderRef } from '../../common/providers.js';
import {
  TWO_TOOLS,
  call,
  recordingSink,
  rejection,
  storedAssistant,
  truncatedServer,
} from '../support/adapter-helpers.js';
import { FakeProvider } from '../support/fake-provider.js';
import { fakeSignature, responsesWire } from '../support/fake-wire.js';

describe('toResponsesInput', () => {
  it('turns system messages into instructions and converts each role', () => {
    const { instructions, input } = toResponsesInput([
      { role: 'system', content: 'You are Herald.' },
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello', reasoning: 'visible reasoning is never sent back' },
      { role: 'user', content: '[image: screenshot.png]' },
    ]);
    assert.equal(instructions, 'You are Herald.\n\nBe brief.');
    assert.deepEqual(input, [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: '[image: screenshot.png]' },
    ]);
  });

  it('has empty instructions without a system message', () => {
    assert.equal(toResponsesInput([{ role: 'user', content: 'hi' }]).instructions, '');
  });

  it('converts parallel tool calls to function_call items and results to function_call_output in call order', () => {
    const { input } = toResponsesInput([
      { role: 'user', content: 'look at both' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          call('call_a', 'read_file', '{ "path": "a.ts",\n "limit": 5 }'),
          call('call_b', 'terminal', '{"command":"ls"}'),
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', name: 'read_file', content: 'export const a = 1;' },
      { role: 'tool', tool_call_id: 'call_b', name: 'terminal', content: '' },
    ]);
    assert.deepEqual(input, [
      { role: 'user', content: 'look at both' },
      { type: 'function_call', call_id: 'call_a', name: 'read_file', arguments: '{"limit":5,"path":"a.ts"}' },
      { type: 'function_call', call_id: 'call_b', name: 'terminal', arguments: '{"command":"ls"}' },
      { type: 'function_call_output', call_id: 'call_a', output: 'export const a = 1;' },
      { type: 'function_call_output', call_id: 'call_b', output: '' },
    ]);
  });

  it('keeps the text of an assistant message that also calls tools, before its calls', () => {
    const { input } = toResponsesInput([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'Reading.', tool_calls: [call('c1', 'read_file', '{broken')] },
      { role: 'tool', tool_call_id: 'c1', content: 'x' },
    ]);
    assert.deepEqual(input.slice(1), [
      { role: 'assistant', content: 'Reading.' },
      { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: '{broken' },
      { type: 'function_call_output', call_id: 'c1', output: 'x' },
    ]);
  });

  it('sends a tool error result with its content intact', () => {
    const error = 'Error running terminal: command exited with code 127\nsh: 1: nosuchcmd: not found';
    const { input } = toResponsesInput([
      { role: 'user', content: 'run it' },
      { role: 'assistant', content: null, tool_calls: [call('c1', 'terminal', '{"command":"nosuchcmd"}')] },
      { role: 'tool', tool_call_id: 'c1', name: 'terminal', content: error },
    ]);
    assert.deepEqual(input[2], { type: 'function_call_output', call_id: 'c1', output: error });
  });

  it('replays reasoning items by their encrypted content, without an id, before the message', () => {
    const { input } = toResponsesInput([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'a',
        reasoning_details: {
          format: 'responses',
          items: [
            {
              type: 'reasoning',
              id: 'rs_1',
              encrypted_content: 'enc-1',
              summary: [{ type: 'summary_text', text: 'thought' }],
            },
            { type: 'reasoning', id: 'rs_2', encrypted_content: null, summary: [] },
          ],
        },
      },
    ]);
    assert.deepEqual(input, [
      { role: 'user', content: 'q' },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'thought' }], encrypted_content: 'enc-1' },
      { role: 'assistant', content: 'a' },
    ]);
    assert.ok(
      input.every((i) => !('id' in i)),
      'no item carries an id (store: false)',
    );
  });

  it('follows replayed reasoning with an assistant message when there is neither text nor a tool call', () => {
    const { input } = toResponsesInput([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: '',
        reasoning_details: {
          format: 'responses',
          items: [{ type: 'reasoning', encrypted_content: 'enc', summary: [] }],
        },
      },
    ]);
    assert.deepEqual(input.slice(1), [
      { type: 'reasoning', summary: [], encrypted_content: 'enc' },
      { role: 'assistant', content: '' },
    ]);
  });

  it('ignores reasoning details of the other format (after a provider switch)', () => {
    const { input } = toResponsesInput([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'a',
        reasoning_details: { format: 'anthropic', blocks: [{ type: 'thinking', thinking: 't', signature: 's' }] },
      },
    ]);
    assert.deepEqual(input, [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a' },
    ]);
  });
});

describe('callResponses', () => {
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

  const tools = TWO_TOOLS;
  const request = (messages: ChatMessage[], extra: Partial<ModelRequest> = {}): ModelRequest => ({
    model: 'gpt-test',
    messages,
    tools: [],
    ...extra,
  });
  const run = (req: ModelRequest, sink: StreamSink = recordingSink()) =>
    callResponses(client, req, { signal: new AbortController().signal, sink });
  const ref = (): ProviderRef => ({
    provider: 'openai-codex',
    model: 'm',
    apiMode: 'codex_responses',
    baseUrl: fake.url,
    apiKeyEnv: 'OPENAI_API_KEY',
  });

  it('streams plain text and sends instructions, store:false and the encrypted-reasoning include', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    fake.script([{ text }]);
    const sink = recordingSink();
    const r = await run(
      request([
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'hi' },
      ]),
      sink,
    );
    assert.equal(r.content, text);
    assert.equal(r.finishReason, 'stop');
    assert.equal(r.reasoning, null);
    assert.equal(r.reasoningDetails, undefined);
    assert.deepEqual(r.toolCalls, []);
    assert.equal(r.model, 'gpt-test');
    assert.ok(sink.texts.length > 1, 'the text arrived in several deltas');
    assert.equal(sink.texts.join(''), text);
    assert.deepEqual(sink.reasonings, []);
    assert.deepEqual(sink.tools, []);
    assert.ok(sink.alives >= sink.texts.length, 'every event counts as liveness');

    assert.equal(fake.requests[0]!.path, '/v1/responses');
    assert.deepEqual(fake.requests[0]!.body, {
      model: 'gpt-test',
      input: [{ role: 'user', content: 'hi' }],
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      instructions: 'You are terse.',
    });
    fake.assertDone();
  });

  it('sends the output cap when set', async () => {
    fake.script([{ text: 'a' }, { text: 'b' }]);
    await run(request([{ role: 'user', content: 'hi' }]));
    await run(request([{ role: 'user', content: 'hi' }], { maxOutputTokens: 256 }));
    assert.equal('max_output_tokens' in fake.requests[0]!.body, false);
    assert.equal(fake.requests[1]!.body.max_output_tokens, 256);
  });

  it('passes an image placeholder through as text', async () => {
    fake.script([{ text: 'I cannot see images.' }]);
    await run(request([{ role: 'user', content: '[image: screenshot.png]' }]));
    assert.deepEqual(fake.requests[0]!.body.input, [{ role: 'user', content: '[image: screenshot.png]' }]);
  });

  it('reassembles two parallel tool calls and sends their results back in call order', async () => {
    const longArgs = { command: 'npm test -- --reporter=spec --grep "a long pattern that spans several chunks"' };
    fake.script([
      {
        text: 'Running both.',
        toolCalls: [
          { id: 'call_a', name: 'read_file', arguments: { path: 'src/index.ts', offset: 10, limit: 40 } },
          { id: 'call_b', name: 'terminal', arguments: longArgs },
        ],
      },
      { text: 'Both done.' },
    ]);
    const sink = recordingSink();
    const first: ChatMessage[] = [{ role: 'user', content: 'check it' }];
    const r = await run(request(first, { tools }), sink);
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

    const body = fake.requests[0]!.body;
    assert.deepEqual(
      body.tools,
      tools.map((t) => ({
        type: 'function',
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        strict: false,
      })),
    );
    assert.equal(body.tool_choice, 'auto');
    assert.equal(body.parallel_tool_calls, true);

    const second: ChatMessage[] = [
      ...first,
      storedAssistant(r),
      { role: 'tool', tool_call_id: 'call_a', name: 'read_file', content: 'export {};' },
      { role: 'tool', tool_call_id: 'call_b', name: 'terminal', content: '3 passing' },
    ];
    const r2 = await run(request(second, { tools }));
    assert.equal(r2.content, 'Both done.');
    assert.deepEqual((fake.requests[1]!.body.input as unknown[]).slice(1), [
      { role: 'assistant', content: 'Running both.' },
      {
        type: 'function_call',
        call_id: 'call_a',
        name: 'read_file',
        arguments: '{"limit":40,"offset":10,"path":"src/index.ts"}',
      },
      { type: 'function_call', call_id: 'call_b', name: 'terminal', arguments: JSON.stringify(longArgs) },
      { type: 'function_call_output', call_id: 'call_a', output: 'export {};' },
      { type: 'function_call_output', call_id: 'call_b', output: '3 passing' },
    ]);
    fake.assertDone();
  });

  it('sends a tool error result with its content intact', async () => {
    const error = 'Error running terminal: command exited with code 127\nsh: 1: nosuchcmd: not found';
    fake.script([{ text: 'The command does not exist.' }]);
    await run(
      request(
        [
          { role: 'user', content: 'run it' },
          { role: 'assistant', content: null, tool_calls: [call('call_x', 'terminal', '{"command":"nosuchcmd"}')] },
          { role: 'tool', tool_call_id: 'call_x', name: 'terminal', content: error },
        ],
        { tools },
      ),
    );
    const input = fake.requests[0]!.body.input as unknown[];
    assert.deepEqual(input[2], { type: 'function_call_output', call_id: 'call_x', output: error });
  });

  it('keeps a reasoning item with its encrypted content for replay', async () => {
    const reasoning = 'First I consider the question, then I answer it briefly.';
    fake.script([{ reasoning, text: 'Answer.' }]);
    const sink = recordingSink();
    const r = await run(request([{ role: 'user', content: 'why?' }]), sink);
    assert.equal(r.reasoning, reasoning);
    assert.equal(r.content, 'Answer.');
    assert.ok(r.reasoningDetails?.format === 'responses');
    assert.equal(r.reasoningDetails.items.length, 1);
    const [item] = r.reasoningDetails.items;
    assert.match(item!.id ?? '', /^rs_/);
    assert.deepEqual(
      { ...item, id: undefined },
      {
        type: 'reasoning',
        id: undefined,
        encrypted_content: fakeSignature(reasoning),
        summary: [{ type: 'summary_text', text: reasoning }],
      },
    );
    assert.ok(sink.reasonings.length > 1, 'the summary arrived in several deltas');
    assert.equal(sink.reasonings.join(''), reasoning);
    assert.equal(sink.texts.join(''), 'Answer.');
  });

  it('round-trips a reasoning tool turn: response → stored message → next request', async () => {
    const reasoning = 'I should read the file before answering anything.';
    fake.script([
      {
        reasoning,
        text: 'Reading.',
        toolCalls: [{ id: 'call_r1', name: 'read_file', arguments: { path: 'README.md' } }],
      },
      { text: 'It is a README.' },
    ]);
    const transcript: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'what is in README.md?' },
    ];
    const r1 = await run(request(transcript, { tools }));
    assert.equal(r1.finishReason, 'tool_calls');
    transcript.push(storedAssistant(r1), {
      role: 'tool',
      tool_call_id: 'call_r1',
      name: 'read_file',
      content: '# Herald',
    });

    const expected = [
      { role: 'user', content: 'what is in README.md?' },
      {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: reasoning }],
        encrypted_content: fakeSignature(reasoning),
      },
      { role: 'assistant', content: 'Reading.' },
      { type: 'function_call', call_id: 'call_r1', name: 'read_file', arguments: '{"path":"README.md"}' },
      { type: 'function_call_output', call_id: 'call_r1', output: '# Herald' },
    ];
    // What the pure conversion produces is exactly what reaches the provider.
    const converted = toResponsesInput(transcript);
    assert.deepEqual(converted, { instructions: 'sys', input: expected });
    const r2 = await run(request(transcript, { tools }));
    assert.equal(r2.content, 'It is a README.');
    assert.deepEqual(fake.requests[1]!.body.input, expected);
    assert.equal(fake.requests[1]!.body.instructions, 'sys');
    fake.assertDone();
  });

  it('maps an incomplete response to length and a refusal to content_filter', async () => {
    fake.script([
      { text: 'cut off', finishReason: 'length' },
      { text: 'I cannot help with that.', finishReason: 'content_filter' },
    ]);
    const long = await run(request([{ role: 'user', content: 'write a novel' }]));
    assert.equal(long.finishReason, 'length');
    assert.equal(long.content, 'cut off');
    const refused = await run(request([{ role: 'user', content: 'something bad' }]));
    assert.equal(refused.finishReason, 'content_filter');
    assert.equal(refused.content, 'I cannot help with that.');
  });

  it('reports input without cached tokens, cached, output and reasoning tokens', async () => {
    fake.script([{ text: 'ok', usage: { prompt: 1000, cached: 400, completion: 50, reasoning: 20 } }]);
    const r = await run(request([{ role: 'user', content: 'hi' }]));
    assert.deepEqual(r.tokens, { input: 600, cacheRead: 400, cacheWrite: 0, output: 50, reasoning: 20 });
  });

  it('asks for no tool use with tools still declared when toolChoiceNone is set', async () => {
    fake.script([{ text: 'summary' }]);
    await run(request([{ role: 'user', content: 'summarise' }], { tools, toolChoiceNone: true }));
    const body = fake.requests[0]!.body;
    assert.equal(body.tool_choice, 'none');
    assert.deepEqual(
      (body.tools as Array<{ name: string }>).map((t) => t.name),
      ['read_file', 'terminal'],
    );
  });

  it('throws MalformedResponseError when the stream is cut mid-response', async () => {
    fake.script([
      { text: 'This answer will never be finished because the connection drops.', cutAfterChunks: 3, chunkDelayMs: 5 },
    ]);
    await assert.rejects(run(request([{ role: 'user', content: 'hi' }])), MalformedResponseError);
  });

  it('fails a cut stream with a retryable error after partial output', async () => {
    fake.script([
      { text: 'This answer will never be finished because the connection drops.', cutAfterChunks: 4, chunkDelayMs: 5 },
    ]);
    const sink = recordingSink();
    const err = await rejection(run(request([{ role: 'user', content: 'hi' }]), sink));
    assert.ok(err instanceof Error);
    assert.ok(sink.texts.length > 0, 'part of the answer had streamed before the cut');
    assert.equal(fake.requests.length, 1, 'a cut stream is not retried here (Temporal retries)');
    assert.equal(toModelFailure(err, { provider: ref(), attempt: 1 }).nonRetryable, false);
  });

  it('throws MalformedResponseError when the stream ends before response.completed', async () => {
    const frames = responsesWire.frames('m', { text: 'an answer that stops early' }, {});
    const cut = frames.filter((f) => f.event !== 'response.completed');
    const server = await truncatedServer(cut);
    try {
      const c = new OpenAI({ apiKey: 'k', baseURL: `${server.url}/v1`, maxRetries: 0 });
      const sink = recordingSink();
      const err = await rejection(
        callResponses(c, request([{ role: 'user', content: 'hi' }]), { signal: new AbortController().signal, sink }),
      );
      assert.ok(err instanceof MalformedResponseError);
      assert.equal(sink.texts.join(''), 'an answer that stops early');
      const f = toModelFailure(err, { provider: ref(), attempt: 1 });
      assert.equal(f.type, 'server_error');
      assert.equal(f.nonRetryable, false);
    } finally {
      await server.close();
    }
  });

  it('surfaces a 429 as the SDK APIError and maps it to a rate_limit failure with Retry-After', async () => {
    fake.script([{ status: 429, headers: { 'retry-after': '3' } }]);
    const err = await rejection(run(request([{ role: 'user', content: 'hi' }])));
    assert.ok(err instanceof OpenAI.APIError);
    assert.equal(err.status, 429);
    const f = toModelFailure(err, { provider: ref(), attempt: 1 });
    assert.ok(f instanceof ApplicationFailure);
    assert.equal(f.type, 'rate_limit');
    assert.equal(f.nonRetryable, false);
    assert.equal(f.nextRetryDelay, 3000);
    assert.match(f.message, /^openai-codex\/m \(HTTP 429\)/);
  });
});

/** A server that answers every request with these SSE frames and then ends the response cleanly. */
