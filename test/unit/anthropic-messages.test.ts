/**
 * The anthropic_messages adapter in both directions: Herald's OpenAI-shaped transcript → the
 * Messages request (system outside, tool_use / tool_result blocks, thinking replay, merging,
 * placeholders, orphan stripping, cache breakpoints), and the streamed Messages response → a
 * ModelResponse, against the fake provider over real HTTP with the real @anthropic-ai/sdk client.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import {
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  callAnthropicMessages,
  sanitizeToolId,
  toAnthropicMessages,
} from '../../model-adapters/anthropic-messages.js';
import { ANTHROPIC_REPLAY, thinkingReplayFor } from '../../model-adapters/thinking-replay.js';
import { MalformedResponseError } from '../../model-adapters/chat-completions.js';
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
import { anthropicWire, fakeSignature } from '../support/fake-wire.js';

const thinking = (text: string, signature = fakeSignature(text)) => ({
  type: 'thinking' as const,
  thinking: text,
  signature,
});

/** Every cache_control found anywhere in a request part. */
function cacheControls(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(cacheControls);
  if (value && typeof value === 'object') {
    const own = 'cache_control' in value ? [value.cache_control] : [];
    return [...own, ...Object.values(value).flatMap(cacheControls)];
  }
  return [];
}

describe('sanitizeToolId', () => {
  it('keeps only [A-Za-z0-9_-]', () => {
    const id = sanitizeToolId('call|abc.1');
    assert.match(id, /^[A-Za-z0-9_-]+$/);
    assert.equal(id, 'call_abc_1');
    assert.equal(sanitizeToolId('toolu_01-AbC'), 'toolu_01-AbC');
    assert.equal(sanitizeToolId(''), 'tool');
  });

  it('sanitises tool_use and tool_result ids the same way, so they still pair up', () => {
    const { messages } = toAnthropicMessages([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('call|abc.1', 'read_file', '{"path":"a"}')] },
      { role: 'tool', tool_call_id: 'call|abc.1', name: 'read_file', content: 'A' },
    ]);
    assert.deepEqual(messages.slice(1), [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_abc_1', name: 'read_file', input: { path: 'a' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_abc_1', content: 'A' }] },
    ]);
  });
});

describe('toAnthropicMessages', () => {
  it('keeps tool ids distinct when two sanitise to the same text, and answers each call', () => {
    const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: '{}' } });
    const { messages } = toAnthropicMessages([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a|b'), call('a.b')] },
      { role: 'tool', tool_call_id: 'a.b', content: 'second' },
      { role: 'tool', tool_call_id: 'a|b', content: 'first' },
    ]);
    const uses = (messages[1]!.content as { type: string; id?: string }[]).map((b) => b.id);
    assert.deepEqual(uses, ['a_b', 'a_b_2']);
    const results = (messages[2]!.content as { tool_use_id: string; content: string }[]).map((b) => [
      b.tool_use_id,
      b.content,
    ]);
    assert.deepEqual(results, [
      ['a_b_2', 'second'],
      ['a_b', 'first'],
    ]);
  });

  it('puts the system prompt outside the messages and converts each role', () => {
    const { system, messages } = toAnthropicMessages([
      { role: 'system', content: 'You are Herald.' },
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello', reasoning: 'visible reasoning is never sent back' },
    ]);
    assert.deepEqual(system, [{ type: 'text', text: 'You are Herald.\n\nBe brief.' }]);
    assert.deepEqual(messages, [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ]);
  });

  it('sends no system block without a system message', () => {
    assert.deepEqual(toAnthropicMessages([{ role: 'user', content: 'hi' }]).system, []);
  });

  it('passes an image placeholder through as text', () => {
    const { messages } = toAnthropicMessages([{ role: 'user', content: '[image: screenshot.png]' }]);
    assert.deepEqual(messages, [{ role: 'user', content: [{ type: 'text', text: '[image: screenshot.png]' }] }]);
  });

  it('fills empty content with placeholders', () => {
    const { messages } = toAnthropicMessages([
      { role: 'user', content: '' },
      { role: 'assistant', content: '' },
      { role: 'user', content: null },
      { role: 'assistant', content: null, tool_calls: [call('t1', 'terminal', '{"command":"true"}')] },
      { role: 'tool', tool_call_id: 't1', name: 'terminal', content: '' },
      { role: 'assistant', content: null },
    ]);
    assert.deepEqual(messages, [
      { role: 'user', content: [{ type: 'text', text: '(empty message)' }] },
      { role: 'assistant', content: [{ type: 'text', text: '(empty)' }] },
      { role: 'user', content: [{ type: 'text', text: '(empty message)' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'terminal', input: { command: 'true' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '(no output)' }] },
      { role: 'assistant', content: [{ type: 'text', text: '(empty)' }] },
    ]);
  });

  it('fills whitespace-only content with placeholders (the API rejects whitespace-only text blocks)', () => {
    const { messages } = toAnthropicMessages([
      { role: 'user', content: ' \n' },
      { role: 'assistant', content: '\n\n' },
    ]);
    assert.deepEqual(messages, [
      { role: 'user', content: [{ type: 'text', text: '(empty message)' }] },
      { role: 'assistant', content: [{ type: 'text', text: '(empty)' }] },
    ]);
  });

  it('sends unparseable or non-object tool arguments as an empty input', () => {
    const { messages } = toAnthropicMessages([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a', 't', '{broken'), call('b', 't', '[1,2]')] },
      { role: 'tool', tool_call_id: 'a', content: 'x' },
      { role: 'tool', tool_call_id: 'b', content: 'y' },
    ]);
    assert.deepEqual(messages[1]!.content, [
      { type: 'tool_use', id: 'a', name: 't', input: {} },
      { type: 'tool_use', id: 'b', name: 't', input: {} },
    ]);
  });

  it('converts parallel tool calls and their results, in call order, into one user message', () => {
    const { messages } = toAnthropicMessages([
      { role: 'user', content: 'look at both' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [call('ta', 'read_file', '{"path":"a.ts"}'), call('tb', 'terminal', '{"command":"ls"}')],
      },
      { role: 'tool', tool_call_id: 'ta', name: 'read_file', content: 'export const a = 1;' },
      {
        role: 'tool',
        tool_call_id: 'tb',
        name: 'terminal',
        content: 'Error running terminal: exit code 2\nls: cannot access',
      },
    ]);
    assert.deepEqual(messages, [
      { role: 'user', content: [{ type: 'text', text: 'look at both' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'ta', name: 'read_file', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 'tb', name: 'terminal', input: { command: 'ls' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'ta', content: 'export const a = 1;' },
          { type: 'tool_result', tool_use_id: 'tb', content: 'Error running terminal: exit code 2\nls: cannot access' },
        ],
      },
    ]);
  });

  describe('merging consecutive same-role messages', () => {
    it('merges two user messages into one message with two text blocks', () => {
      const { messages } = toAnthropicMessages([
        { role: 'user', content: 'first' },
        { role: 'user', content: 'second' },
      ]);
      assert.deepEqual(messages, [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'first' },
            { type: 'text', text: 'second' },
          ],
        },
      ]);
    });

    it('merges tool results and a following user message, tool results first', () => {
      const { messages } = toAnthropicMessages([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [call('a', 't', '{}'), call('b', 't', '{}')] },
        { role: 'tool', tool_call_id: 'a', content: 'A' },
        { role: 'tool', tool_call_id: 'b', content: 'B' },
        { role: 'user', content: 'and now?' },
      ]);
      assert.equal(messages.length, 3);
      assert.deepEqual(messages[2], {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'A' },
          { type: 'tool_result', tool_use_id: 'b', content: 'B' },
          { type: 'text', text: 'and now?' },
        ],
      });
    });

    it('moves tool results ahead of a user message that came before them', () => {
      const { messages } = toAnthropicMessages([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [call('a', 't', '{}')] },
        { role: 'user', content: 'wait, one more thing' },
        { role: 'tool', tool_call_id: 'a', content: 'A' },
      ]);
      assert.deepEqual(messages[2], {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'A' },
          { type: 'text', text: 'wait, one more thing' },
        ],
      });
    });

    it('merges assistants keeping only the first one’s thinking and dropping empty placeholders', () => {
      const { messages } = toAnthropicMessages([
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: 'part one',
          reasoning_details: { format: 'anthropic', blocks: [thinking('T1')] },
        },
        {
          role: 'assistant',
          content: 'part two',
          reasoning_details: { format: 'anthropic', blocks: [thinking('T2')] },
        },
      ]);
      assert.deepEqual(messages[1], {
        role: 'assistant',
        content: [thinking('T1'), { type: 'text', text: 'part one' }, { type: 'text', text: 'part two' }],
      });

      const merged = toAnthropicMessages([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '' },
        { role: 'assistant', content: 'real answer' },
      ]).messages;
      assert.deepEqual(merged[1], { role: 'assistant', content: [{ type: 'text', text: 'real answer' }] });
    });
  });

  describe('orphan stripping', () => {
    it('removes a tool_use that the next message does not answer', () => {
      const { messages } = toAnthropicMessages([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'Two calls.', tool_calls: [call('a', 't', '{}'), call('b', 't', '{}')] },
        { role: 'tool', tool_call_id: 'a', content: 'A' },
        { role: 'user', content: 'next' },
      ]);
      assert.deepEqual(messages[1], {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Two calls.' },
          { type: 'tool_use', id: 'a', name: 't', input: {} },
        ],
      });
      assert.deepEqual(messages[2], {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: 'A' },
          { type: 'text', text: 'next' },
        ],
      });
    });

    it('leaves a placeholder when every block of an assistant message was an unanswered tool_use', () => {
      const { messages } = toAnthropicMessages([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [call('a', 't', '{}')] },
        { role: 'user', content: 'never mind' },
      ]);
      assert.deepEqual(messages[1], { role: 'assistant', content: [{ type: 'text', text: '(tool call removed)' }] });
      assert.deepEqual(messages[2], { role: 'user', content: [{ type: 'text', text: 'never mind' }] });
    });

    it('removes a tool_result that answers no tool_use', () => {
      const { messages } = toAnthropicMessages([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'hello' },
        { role: 'tool', tool_call_id: 'stray', content: 'orphan' },
        { role: 'user', content: 'more' },
      ]);
      assert.deepEqual(messages[2], { role: 'user', content: [{ type: 'text', text: 'more' }] });

      const alone = toAnthropicMessages([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'hello' },
        { role: 'tool', tool_call_id: 'stray', content: 'orphan' },
      ]).messages;
      assert.deepEqual(alone[2], { role: 'user', content: [{ type: 'text', text: '(tool result removed)' }] });
    });
  });

  describe('thinking replay', () => {
    const transcript: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q1' },
      {
        role: 'assistant',
        content: 'a1',
        reasoning: 'T1',
        reasoning_details: { format: 'anthropic', blocks: [thinking('T1')] },
      },
      { role: 'user', content: 'q2' },
      {
        role: 'assistant',
        content: null,
        reasoning: 'T2',
        reasoning_details: {
          format: 'anthropic',
          blocks: [thinking('T2'), { type: 'redacted_thinking', data: 'opaque==' }],
        },
        tool_calls: [call('c1', 'read_file', '{"path":"x"}')],
      },
      { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'X' },
      { role: 'assistant', content: 'done', reasoning_details: { format: 'anthropic', blocks: [thinking('T3')] } },
    ];

    it('replays thinking first for assistant messages after the last user message only', () => {
      const { messages } = toAnthropicMessages(transcript);
      assert.deepEqual(messages, [
        { role: 'user', content: [{ type: 'text', text: 'q1' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'a1' }] },
        { role: 'user', content: [{ type: 'text', text: 'q2' }] },
        {
          role: 'assistant',
          content: [
            thinking('T2'),
            { type: 'redacted_thinking', data: 'opaque==' },
            { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'x' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'X' }] },
        { role: 'assistant', content: [thinking('T3'), { type: 'text', text: 'done' }] },
      ]);
    });

    it('replays nothing once a new user message follows', () => {
      const { messages } = toAnthropicMessages([...transcript, { role: 'user', content: 'q3' }]);
      const thinkingBlocks = messages.flatMap((m) =>
        (m.content as Array<{ type: string }>).filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking'),
      );
      assert.deepEqual(thinkingBlocks, []);
    });

    it('ignores reasoning details of the other format (after a provider switch)', () => {
      const { messages } = toAnthropicMessages([
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: 'a',
          reasoning_details: {
            format: 'responses',
            items: [{ type: 'reasoning', encrypted_content: 'enc', summary: [] }],
          },
        },
      ]);
      assert.deepEqual(messages[1], { role: 'assistant', content: [{ type: 'text', text: 'a' }] });
    });
  });

  describe('cache breakpoints', () => {
    const transcript: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
      {
        role: 'assistant',
        content: null,
        reasoning_details: { format: 'anthropic', blocks: [thinking('T')] },
        tool_calls: [call('c1', 't', '{}')],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'R' },
    ];

    it('marks the system block and the last block of each of the last three messages (5m)', () => {
      const { system, messages } = toAnthropicMessages(transcript, '5m');
      const eph = { type: 'ephemeral' };
      assert.deepEqual(system, [{ type: 'text', text: 'sys', cache_control: eph }]);
      assert.deepEqual(messages, [
        { role: 'user', content: [{ type: 'text', text: 'q1' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'a1' }] },
        { role: 'user', content: [{ type: 'text', text: 'q2', cache_control: eph }] },
        {
          role: 'assistant',
          content: [thinking('T'), { type: 'tool_use', id: 'c1', name: 't', input: {}, cache_control: eph }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'R', cache_control: eph }] },
      ]);
      assert.equal(cacheControls({ system, messages }).length, 4);
    });

    it('never marks a thinking block and never uses more than four breakpoints', () => {
      const long: ChatMessage[] = [{ role: 'system', content: 'sys' }];
      for (let i = 0; i < 6; i++) {
        long.push({ role: 'user', content: `q${i}` });
        long.push({
          role: 'assistant',
          content: `a${i}`,
          reasoning_details: { format: 'anthropic', blocks: [thinking(`T${i}`)] },
        });
      }
      for (const ttl of ['5m', '1h'] as const) {
        const { system, messages } = toAnthropicMessages(long, ttl);
        assert.equal(cacheControls({ system, messages }).length, 4);
        for (const m of messages) {
          for (const b of m.content as Array<{ type: string; cache_control?: unknown }>) {
            if (b.type === 'thinking')
              assert.equal(b.cache_control, undefined, 'thinking blocks cannot carry cache_control');
          }
        }
        const last = messages[messages.length - 1]!.content as Array<{ type: string; cache_control?: unknown }>;
        assert.equal(last[0]!.type, 'thinking');
        assert.ok(last[1]!.cache_control);
      }
    });

    it('uses the 1h TTL when asked', () => {
      const { system, messages } = toAnthropicMessages(transcript, '1h');
      const controls = cacheControls({ system, messages });
      assert.equal(controls.length, 4);
      for (const c of controls) assert.deepEqual(c, { type: 'ephemeral', ttl: '1h' });
    });

    it('marks fewer blocks on a short transcript', () => {
      const { system, messages } = toAnthropicMessages([{ role: 'user', content: 'hi' }], '5m');
      assert.deepEqual(system, []);
      assert.deepEqual(messages, [
        { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
      ]);
    });

    it('sets no breakpoints without a TTL', () => {
      assert.deepEqual(cacheControls(toAnthropicMessages(transcript)), []);
    });
  });
});

describe('callAnthropicMessages', () => {
  let fake: FakeProvider;
  let client: Anthropic;
  before(async () => {
    fake = await FakeProvider.start();
    client = new Anthropic({ apiKey: 'k', baseURL: fake.anthropicUrl, maxRetries: 0 });
  });
  after(async () => {
    await fake.stop();
  });
  beforeEach(() => {
    fake.reset();
  });

  const tools = TWO_TOOLS;
  const request = (messages: ChatMessage[], extra: Partial<ModelRequest> = {}): ModelRequest => ({
    model: 'claude-test',
    messages,
    tools: [],
    ...extra,
  });
  const run = (req: ModelRequest, sink: StreamSink = recordingSink()) =>
    callAnthropicMessages(client, req, { signal: new AbortController().signal, sink });
  const ref = (): ProviderRef => ({
    provider: 'anthropic',
    model: 'm',
    apiMode: 'anthropic_messages',
    baseUrl: fake.anthropicUrl,
    apiKeyEnv: 'ANTHROPIC_API_KEY',
  });

  it('streams plain text and sends the system prompt outside the messages', async () => {
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
    assert.equal(r.model, 'claude-test');
    assert.ok(sink.texts.length > 1, 'the text arrived in several deltas');
    assert.equal(sink.texts.join(''), text);
    assert.deepEqual(sink.reasonings, []);
    assert.deepEqual(sink.tools, []);
    assert.ok(sink.alives >= sink.texts.length, 'every event counts as liveness');

    assert.equal(fake.requests[0]!.path, '/v1/messages');
    assert.deepEqual(fake.requests[0]!.body, {
      model: 'claude-test',
      max_tokens: DEFAULT_ANTHROPIC_MAX_TOKENS,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      stream: true,
      system: [{ type: 'text', text: 'You are terse.' }],
    });
    fake.assertDone();
  });

  it('sends the output cap and the cache breakpoints', async () => {
    fake.script([{ text: 'ok' }]);
    await run(
      request(
        [
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'hi' },
        ],
        { maxOutputTokens: 512, cacheTtl: '1h' },
      ),
    );
    const body = fake.requests[0]!.body;
    assert.equal(body.max_tokens, 512);
    assert.deepEqual(body.system, [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
    assert.deepEqual(body.messages, [
      { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
    ]);
  });

  it('passes an image placeholder through as text', async () => {
    fake.script([{ text: 'I cannot see images.' }]);
    await run(request([{ role: 'user', content: '[image: screenshot.png]' }]));
    assert.deepEqual(fake.requests[0]!.body.messages, [
      { role: 'user', content: [{ type: 'text', text: '[image: screenshot.png]' }] },
    ]);
  });

  it('reassembles two parallel tool calls and sends their results back in call order', async () => {
    const longArgs = { command: 'npm test -- --reporter=spec --grep "a long pattern that spans several chunks"' };
    fake.script([
      {
        text: 'Running both.',
        toolCalls: [
          { id: 'toolu_a', name: 'read_file', arguments: { path: 'src/index.ts', offset: 10, limit: 40 } },
          { id: 'toolu_b', name: 'terminal', arguments: longArgs },
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
        id: 'toolu_a',
        type: 'function',
        function: { name: 'read_file', arguments: '{"path":"src/index.ts","offset":10,"limit":40}' },
      },
      { id: 'toolu_b', type: 'function', function: { name: 'terminal', arguments: JSON.stringify(longArgs) } },
    ]);
    assert.deepEqual(sink.tools, ['read_file', 'terminal']);

    const body = fake.requests[0]!.body;
    assert.deepEqual(
      body.tools,
      tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
    );
    assert.equal('tool_choice' in body, false);

    const second: ChatMessage[] = [
      ...first,
      storedAssistant(r),
      { role: 'tool', tool_call_id: 'toolu_a', name: 'read_file', content: 'export {};' },
      { role: 'tool', tool_call_id: 'toolu_b', name: 'terminal', content: '3 passing' },
    ];
    const r2 = await run(request(second, { tools }));
    assert.equal(r2.content, 'Both done.');
    assert.deepEqual((fake.requests[1]!.body.messages as unknown[]).slice(1), [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Running both.' },
          {
            type: 'tool_use',
            id: 'toolu_a',
            name: 'read_file',
            input: { path: 'src/index.ts', offset: 10, limit: 40 },
          },
          { type: 'tool_use', id: 'toolu_b', name: 'terminal', input: longArgs },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'export {};' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: '3 passing' },
        ],
      },
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
          { role: 'assistant', content: null, tool_calls: [call('toolu_x', 'terminal', '{"command":"nosuchcmd"}')] },
          { role: 'tool', tool_call_id: 'toolu_x', name: 'terminal', content: error },
        ],
        { tools },
      ),
    );
    const messages = fake.requests[0]!.body.messages as unknown[];
    assert.deepEqual(messages[2], {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: error }],
    });
  });

  it('keeps a thinking block with its signature for replay', async () => {
    const reasoning = 'First I consider the question, then I answer it briefly.';
    fake.script([{ reasoning, text: 'Answer.' }]);
    const sink = recordingSink();
    const r = await run(request([{ role: 'user', content: 'why?' }]), sink);
    assert.equal(r.reasoning, reasoning);
    assert.equal(r.content, 'Answer.');
    assert.deepEqual(r.reasoningDetails, {
      format: 'anthropic',
      blocks: [{ type: 'thinking', thinking: reasoning, signature: fakeSignature(reasoning) }],
    });
    assert.ok(sink.reasonings.length > 1, 'the thinking arrived in several deltas');
    assert.equal(sink.reasonings.join(''), reasoning);
    assert.equal(sink.texts.join(''), 'Answer.');
  });

  it('round-trips a thinking tool turn: response → stored message → next request', async () => {
    const reasoning = 'I should read the file before answering anything.';
    fake.script([
      {
        reasoning,
        text: 'Reading.',
        toolCalls: [{ id: 'toolu_r1', name: 'read_file', arguments: { path: 'README.md' } }],
      },
      { reasoning: 'Now I know.', text: 'It is a README.' },
      { text: 'You are welcome.' },
    ]);
    const transcript: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'what is in README.md?' },
    ];
    const r1 = await run(request(transcript, { tools }));
    assert.equal(r1.finishReason, 'tool_calls');
    transcript.push(storedAssistant(r1), {
      role: 'tool',
      tool_call_id: 'toolu_r1',
      name: 'read_file',
      content: '# Herald',
    });

    const expectedAssistant = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: reasoning, signature: fakeSignature(reasoning) },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'toolu_r1', name: 'read_file', input: { path: 'README.md' } },
      ],
    };
    const expectedResult = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_r1', content: '# Herald' }],
    };

    // What the pure conversion produces is exactly what reaches the provider.
    const converted = toAnthropicMessages(transcript);
    assert.deepEqual(converted.messages.slice(1), [expectedAssistant, expectedResult]);
    const r2 = await run(request(transcript, { tools }));
    assert.equal(r2.content, 'It is a README.');
    assert.deepEqual(fake.requests[1]!.body.messages, converted.messages);
    assert.deepEqual((fake.requests[1]!.body.messages as unknown[]).slice(1), [expectedAssistant, expectedResult]);

    // The next user turn: thinking of the finished turn is no longer replayed.
    transcript.push(storedAssistant(r2), { role: 'user', content: 'thanks' });
    await run(request(transcript, { tools }));
    assert.deepEqual((fake.requests[2]!.body.messages as unknown[]).slice(1), [
      { role: 'assistant', content: [expectedAssistant.content[1], expectedAssistant.content[2]] },
      expectedResult,
      { role: 'assistant', content: [{ type: 'text', text: 'It is a README.' }] },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
    ]);
    fake.assertDone();
  });

  it('maps stop reasons to OpenAI finish reasons', async () => {
    fake.script([
      { text: 'done' },
      { toolCalls: [{ id: 'toolu_s', name: 'terminal', arguments: { command: 'ls' } }] },
      { text: 'cut off', finishReason: 'length' },
      { text: 'I cannot help with that.', finishReason: 'content_filter' },
    ]);
    const reasons: string[] = [];
    for (let i = 0; i < 4; i++)
      reasons.push((await run(request([{ role: 'user', content: `q${i}` }], { tools }))).finishReason);
    assert.deepEqual(reasons, ['stop', 'tool_calls', 'length', 'content_filter']);
  });

  it('reports input, cache read, cache write and output tokens', async () => {
    fake.script([{ text: 'ok', usage: { prompt: 1000, cached: 400, cacheWrite: 250, completion: 70 } }]);
    const r = await run(request([{ role: 'user', content: 'hi' }]));
    assert.deepEqual(r.tokens, { input: 1000, cacheRead: 400, cacheWrite: 250, output: 70, reasoning: 0 });
  });

  it('asks for no tool use with tools still declared when toolChoiceNone is set', async () => {
    fake.script([{ text: 'summary' }, { text: 'summary' }]);
    await run(request([{ role: 'user', content: 'summarise' }], { tools, toolChoiceNone: true }));
    const body = fake.requests[0]!.body;
    assert.deepEqual(body.tool_choice, { type: 'none' });
    assert.deepEqual(
      (body.tools as Array<{ name: string }>).map((t) => t.name),
      ['read_file', 'terminal'],
    );

    await run(request([{ role: 'user', content: 'summarise' }], { toolChoiceNone: true }));
    assert.equal('tool_choice' in fake.requests[1]!.body, false, 'no tool_choice without tools');
    assert.equal('tools' in fake.requests[1]!.body, false);
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
    const f = toModelFailure(err, { provider: ref(), attempt: 1 });
    assert.equal(f.nonRetryable, false);
  });

  it('throws MalformedResponseError when the stream ends before message_stop', async () => {
    const frames = anthropicWire.frames('m', { text: 'an answer that stops early' }, {});
    // Everything up to (not including) message_delta and message_stop, then a clean end.
    const cut = frames.filter((f) => f.event !== 'message_delta' && f.event !== 'message_stop');
    const server = await truncatedServer(cut);
    try {
      const c = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
      const sink = recordingSink();
      const err = await rejection(
        callAnthropicMessages(c, request([{ role: 'user', content: 'hi' }]), {
          signal: new AbortController().signal,
          sink,
        }),
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
    assert.ok(err instanceof Anthropic.APIError);
    assert.equal(err.status, 429);
    const f = toModelFailure(err, { provider: ref(), attempt: 1 });
    assert.ok(f instanceof ApplicationFailure);
    assert.equal(f.type, 'rate_limit');
    assert.equal(f.nonRetryable, false);
    assert.equal(f.nextRetryDelay, 3000);
    assert.match(f.message, /^anthropic\/m \(HTTP 429\)/);
  });

  it('maps a 529 to overloaded', async () => {
    fake.script([{ status: 529 }]);
    const err = await rejection(run(request([{ role: 'user', content: 'hi' }])));
    assert.ok(err instanceof Anthropic.APIError);
    assert.equal(err.status, 529);
    const f = toModelFailure(err, { provider: ref(), attempt: 1 });
    assert.equal(f.type, 'overloaded');
    assert.equal(f.nonRetryable, false);
  });
});

/** A server that answers every request with these SSE frames and then ends the response cleanly. */

describe('thinking replay by endpoint (from Hermes’ tests)', () => {
  const signed = { type: 'thinking' as const, thinking: 'checked the file', signature: 'sig-1' };
  const unsigned = { type: 'thinking' as const, thinking: 'plain thought', signature: '' };
  const transcript: ChatMessage[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'first question' },
    {
      role: 'assistant',
      content: 'first answer',
      reasoning: 'earlier thinking',
      reasoning_details: { format: 'anthropic', blocks: [signed] },
    },
    { role: 'user', content: 'second question' },
    { role: 'assistant', content: 'from another provider', reasoning: 'thought as text only' },
    { role: 'user', content: 'third question' },
    {
      role: 'assistant',
      content: 'latest',
      reasoning_details: { format: 'anthropic', blocks: [unsigned, signed] },
    },
  ];
  const thinkingOf = (replay: ReturnType<typeof thinkingReplayFor>) =>
    toAnthropicMessages(transcript, undefined, replay)
      .messages.filter((m) => m.role === 'assistant')
      .map((m) =>
        (m.content as Array<{ type: string; thinking?: string; signature?: string }>)
          .filter((b) => b.type === 'thinking')
          .map((b) => `${b.thinking}${b.signature ? ' (signed)' : ''}`),
      );

  it('the endpoint is known by its host', () => {
    assert.equal(thinkingReplayFor('https://api.deepseek.com/anthropic').everyTurn, true);
    assert.equal(thinkingReplayFor('https://api.minimax.io/anthropic').dropUnsigned, true);
    assert.equal(thinkingReplayFor('https://api.minimaxi.com/anthropic').dropUnsigned, true);
    assert.deepEqual(thinkingReplayFor('https://api.anthropic.com'), ANTHROPIC_REPLAY);
    assert.deepEqual(thinkingReplayFor('https://api.deepseek.com.attacker.test/anthropic'), ANTHROPIC_REPLAY);
  });

  it('DeepSeek gets every assistant’s thinking back, text-only reasoning as an unsigned block', () => {
    assert.deepEqual(thinkingOf(thinkingReplayFor('https://api.deepseek.com/anthropic')), [
      ['checked the file (signed)'],
      ['thought as text only'],
      ['plain thought', 'checked the file (signed)'],
    ]);
  });

  it('MiniMax never gets an unsigned thinking block', () => {
    assert.deepEqual(thinkingOf(thinkingReplayFor('https://api.minimax.io/anthropic')), [
      [],
      [],
      ['checked the file (signed)'],
    ]);
  });

  it('Anthropic keeps its rule: the current tool loop’s thinking only', () => {
    assert.deepEqual(thinkingOf(ANTHROPIC_REPLAY), [[], [], ['plain thought', 'checked the file (signed)']]);
  });
});
