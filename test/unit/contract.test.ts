/**
 * The workflow's public input and message schemas (docs/temporal-cli.md): what callers may send, and errors
 * that say which field is wrong.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  messagePayloadBytes,
  messageSizeIssue,
  conversationInputSchema,
  describeZodError,
  sendMessageSchema,
  stopSchema,
  userMessageSchema,
} from '../../common/contract.js';

function errorOf(input: unknown): string {
  const r = conversationInputSchema.safeParse(input);
  assert.equal(r.success, false, `expected ${JSON.stringify(input)} to be rejected`);
  return describeZodError(r.error);
}

describe('conversationInputSchema', () => {
  it('accepts an empty object: every field is optional', () => {
    assert.deepEqual(conversationInputSchema.parse({}), {});
  });

  it('accepts a full valid input unchanged', () => {
    const input = {
      sessionId: 'proj-42:main_v1.0',
      message: 'Hello',
      messageId: 'm-1',
      provider: 'openrouter',
      model: 'anthropic/claude-sonnet-4.5',
      apiMode: 'chat_completions',
      baseUrl: 'https://openrouter.ai/api/v1',
      apiKeyEnv: 'OPENROUTER_API_KEY',
      systemMessage: 'Be brief.',
      history: [
        { role: 'user', content: 'earlier' },
        { role: 'assistant', content: 'reply' },
      ],
      maxIterations: 30,
      toolsets: ['file', 'terminal'],
      fallbackProviders: [{ provider: 'openai', model: 'gpt-4.1' }],
      contextLength: 200_000,
      busyPolicy: 'queue',
      approvals: { mode: 'manual', timeoutSeconds: 60 },
      cwd: '/tmp/ws',
      source: 'cli',
      idleTimeout: '30 days',
      continueAsNewAfterTurns: 50,
    };
    assert.deepEqual(conversationInputSchema.parse(input), input);
  });

  it('rejects unknown keys and names them', () => {
    const msg = errorOf({ mesage: 'typo' });
    assert.match(msg, /^input: /);
    assert.match(msg, /mesage/);
  });

  it('rejects unknown keys in nested objects with their path', () => {
    assert.match(errorOf({ approvals: { mode: 'manual', colour: 'red' } }), /^approvals: .*colour/);
    assert.match(
      errorOf({ fallbackProviders: [{ provider: 'openai', model: 'x', key: 'sk-1' }] }),
      /^fallbackProviders\.0: .*key/,
    );
  });

  it('rejects an unknown provider, naming the field', () => {
    assert.match(errorOf({ provider: 'openia' }), /^provider: /);
    assert.match(
      errorOf({ fallbackProviders: [{ provider: 'nope', model: 'x' }] }),
      /^fallbackProviders\.0\.provider: /,
    );
  });

  it('rejects a malformed idle timeout, naming the field', () => {
    assert.match(errorOf({ idleTimeout: 'soonish' }), /^idleTimeout: /);
    assert.match(errorOf({ idleTimeout: 0 }), /^idleTimeout: /);
    assert.match(errorOf({ idleTimeout: '30 fortnights' }), /^idleTimeout: /);
  });

  it('accepts durations in the forms Temporal understands, and milliseconds', () => {
    for (const idleTimeout of ['30 days', '90s', '5 minutes', '1.5h', '2 weeks', '250ms', 60_000]) {
      assert.equal(conversationInputSchema.safeParse({ idleTimeout }).success, true, String(idleTimeout));
    }
  });

  it('checks other field formats', () => {
    assert.match(errorOf({ sessionId: 'has spaces' }), /^sessionId: /);
    assert.match(errorOf({ maxIterations: 0 }), /^maxIterations: /);
    assert.match(errorOf({ baseUrl: 'not a url' }), /^baseUrl: /);
    assert.match(errorOf({ apiKeyEnv: 'sk-live-123' }), /^apiKeyEnv: /);
    assert.match(errorOf({ history: [{ role: 'system', content: 'x' }] }), /^history\.0\.role: /);
    assert.match(errorOf({ busyPolicy: 'ignore' }), /^busyPolicy: /);
  });
});

describe('describeZodError', () => {
  it('uses the given root name for errors on the whole value', () => {
    const r = userMessageSchema.safeParse(42);
    assert.equal(r.success, false);
    assert.match(describeZodError(r.error, 'userMessage'), /^userMessage: /);
  });
});

describe('message schemas', () => {
  it('userMessage accepts a string or { text, id }', () => {
    assert.equal(userMessageSchema.parse('hello'), 'hello');
    assert.deepEqual(userMessageSchema.parse({ text: 'hello' }), { text: 'hello' });
    assert.deepEqual(userMessageSchema.parse({ text: 'hello', id: 'm1' }), { text: 'hello', id: 'm1' });
  });

  it('userMessage rejects empty text and extra keys', () => {
    assert.equal(userMessageSchema.safeParse('').success, false);
    assert.equal(userMessageSchema.safeParse({ text: '' }).success, false);
    assert.equal(userMessageSchema.safeParse({ text: 'x', role: 'user' }).success, false);
    assert.equal(userMessageSchema.safeParse({ id: 'm1' }).success, false);
  });

  it('sendMessage needs an object with text', () => {
    assert.equal(sendMessageSchema.safeParse({ text: 'hi', id: 'a' }).success, true);
    assert.equal(sendMessageSchema.safeParse('hi').success, false);
  });

  it('stop takes nothing, a reason string or { reason }', () => {
    for (const v of [undefined, null, 'because', { reason: 'because' }, {}])
      assert.equal(stopSchema.safeParse(v).success, true, JSON.stringify(v));
    assert.equal(stopSchema.safeParse({ why: 'x' }).success, false);
  });
});

describe('message size as a payload', () => {
  it('counts what JSON costs: escaped NULs and lone surrogates 6 bytes, CJK 3, pairs 4', () => {
    assert.equal(messagePayloadBytes('ab'), 4);
    assert.equal(messagePayloadBytes('\u0000'), 8);
    assert.equal(messagePayloadBytes('\ud800'), 8);
    assert.equal(messagePayloadBytes('\u6c49'), 5);
    assert.equal(messagePayloadBytes('\u{1f600}'), 6);
    assert.equal(messagePayloadBytes('"'), 4);
  });

  it('refuses a message under the character cap that Temporal could not carry', () => {
    assert.equal(messageSizeIssue('x'.repeat(400_000)), undefined);
    assert.match(messageSizeIssue('x'.repeat(400_001)) ?? '', /over 400000 characters/);
    // 399,990 lone surrogates: 2.4 MB as JSON, over Temporal's 2 MB payload limit.
    assert.match(messageSizeIssue('\ud800'.repeat(399_990)) ?? '', /too large as a payload \(2399942 bytes/);
    assert.equal(messageSizeIssue('\u6c49'.repeat(330_000)), undefined); // 990 KB
    // 1.2 MB: more than the workflow's queue holds, so the client refuses it before sending.
    assert.match(messageSizeIssue('\u6c49'.repeat(399_990)) ?? '', /too large as a payload \(1199972 bytes/);
  });
});
