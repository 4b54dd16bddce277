/**
 * A fallback chain that failed as a whole reports every provider's error, the primary's first,
 * within a bound.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_CHAIN_MESSAGE_CHARS, chainFailureMessage } from '../../common/chain-failure.js';

describe('chainFailureMessage', () => {
  const primary = {
    provider: 'custom',
    model: 'qwen2.5-coder',
    reason: 'timeout',
    message: 'custom/qwen2.5-coder: Connection error. connect ECONNREFUSED 127.0.0.1:8000',
  };
  const fallback = {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    reason: 'auth',
    message:
      'anthropic/claude-sonnet-4-5: no API key for provider "anthropic": ANTHROPIC_API_KEY is not set in the worker\'s environment, so nothing was sent',
  };

  it('lists each provider, the primary first and marked, without repeating provider/model', () => {
    const m = chainFailureMessage([primary, fallback]);
    assert.equal(
      m,
      'every provider failed (2): 1. custom/qwen2.5-coder (primary): timeout: Connection error. connect ECONNREFUSED 127.0.0.1:8000; ' +
        '2. anthropic/claude-sonnet-4-5: auth: no API key for provider "anthropic": ANTHROPIC_API_KEY is not set in the worker\'s environment, so nothing was sent',
    );
  });

  it('keeps the HTTP status of an entry', () => {
    const m = chainFailureMessage([
      { ...primary, reason: 'auth', message: 'custom/qwen2.5-coder (HTTP 401): bad key' },
      fallback,
    ]);
    assert.match(m, /1\. custom\/qwen2\.5-coder \(primary\): auth: \(HTTP 401\) bad key; 2\./);
  });

  it('is just the entry for a chain of one', () => {
    assert.equal(
      chainFailureMessage([primary]),
      'custom/qwen2.5-coder: timeout: Connection error. connect ECONNREFUSED 127.0.0.1:8000',
    );
  });

  it('keeps one entry per endpoint, in first-tried order, with its latest error (the chain restarts once)', () => {
    const m = chainFailureMessage([primary, fallback, { ...primary, message: 'second try failed' }, fallback]);
    assert.match(
      m,
      /^every provider failed \(2\): 1\. custom\/qwen2\.5-coder \(primary\): timeout: second try failed; 2\. anthropic/,
    );
  });

  it('is bounded: long errors are clipped, and entries that do not fit are counted', () => {
    const long = Array.from({ length: 12 }, (_, i) => ({
      provider: 'custom',
      model: `m${i}`,
      reason: 'server_error',
      message: 'x'.repeat(5000),
    }));
    const m = chainFailureMessage(long);
    assert.ok(m.length <= MAX_CHAIN_MESSAGE_CHARS, `${m.length} chars`);
    assert.match(m, /^every provider failed \(12\): 1\. custom\/m0 \(primary\): server_error: x+…; 2\./);
    assert.match(m, /; … and \d+ more$/);
    const tiny = chainFailureMessage(long, 120);
    assert.ok(tiny.length <= 120, tiny);
    assert.match(tiny, /1\. custom\/m0 \(primary\)/);
  });

  it('says something for an empty list', () => {
    assert.equal(chainFailureMessage([]), 'the model call failed');
  });
});
