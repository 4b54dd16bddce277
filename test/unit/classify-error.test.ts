/**
 * Provider error classification (SPEC §5.1): the reason decides whether Herald retries, compresses,
 * rotates a key or falls back, so each provider's way of saying things must land in the right bucket.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderErrorInput } from '../../common/classify-error.js';
import { backoffMs, classifyProviderError, parseRetryAfter } from '../../common/classify-error.js';
import type { FailureReason } from '../../common/error-reasons.js';

describe('classifyProviderError', () => {
  const cases: Array<[string, ProviderErrorInput, FailureReason]> = [
    ['401', { status: 401, message: 'Incorrect API key provided' }, 'auth'],
    ['403 without billing words', { status: 403, message: 'Forbidden' }, 'auth'],
    ['403 spending limit', { status: 403, message: 'You have reached your spending limit for this key' }, 'billing'],
    [
      '402 usage limit that resets',
      { status: 402, message: 'Usage limit reached for this hour, try again in 20 minutes' },
      'rate_limit',
    ],
    ['402 plain', { status: 402, message: 'Payment Required' }, 'billing'],
    [
      '404 model not found',
      { status: 404, message: 'The model `gpt-9` does not exist or you do not have access to it' },
      'model_not_found',
    ],
    ['404 model_not_found code', { status: 404, message: 'Not found', code: 'model_not_found' }, 'model_not_found'],
    ['413', { status: 413, message: 'Request Entity Too Large' }, 'payload_too_large'],
    ['429', { status: 429, message: 'Rate limit reached for requests' }, 'rate_limit'],
    [
      '429 overloaded',
      { status: 429, message: 'The engine is currently overloaded, please try again later' },
      'overloaded',
    ],
    [
      '400 context length',
      { status: 400, message: "This model's maximum context length is 128000 tokens" },
      'context_overflow',
    ],
    [
      '400 unsupported max_tokens',
      {
        status: 400,
        message:
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      },
      'format_error',
    ],
    [
      '400 thinking signature',
      { status: 400, message: 'messages.1.content.0: Invalid `signature` in `thinking` block' },
      'thinking_signature',
    ],
    [
      '429 long context tier',
      { status: 429, message: 'Extra usage is required for long context requests' },
      'long_context_tier',
    ],
    ['500', { status: 500, message: 'Internal server error' }, 'server_error'],
    ['502', { status: 502, message: 'Bad gateway' }, 'server_error'],
    ['503', { status: 503, message: 'Service Unavailable' }, 'overloaded'],
    ['529', { status: 529, message: 'Overloaded' }, 'overloaded'],
    ['504', { status: 504, message: 'Gateway Timeout' }, 'timeout'],
    [
      'content policy with 400',
      { status: 400, message: 'Your request was rejected because it violates our usage policies' },
      'content_policy_blocked',
    ],
    ['content policy with 500', { status: 500, message: 'Output blocked by content filter' }, 'content_policy_blocked'],
    ['content policy without status', { message: 'ResponsibleAIPolicyViolation' }, 'content_policy_blocked'],
    [
      'insufficient_quota code without status',
      { message: 'You exceeded something', code: 'insufficient_quota' },
      'billing',
    ],
    [
      'transport ECONNREFUSED',
      { message: 'Connection error. connect ECONNREFUSED 127.0.0.1:9 ECONNREFUSED', transport: true },
      'timeout',
    ],
    ['socket hang up', { message: 'socket hang up' }, 'timeout'],
    ['timed out', { message: 'Request timed out.' }, 'timeout'],
    [
      'bare 400 on a large session (tokens vs window)',
      { status: 400, message: 'Bad Request', approxTokens: 100_000, contextLength: 128_000 },
      'context_overflow',
    ],
    [
      'bare 400 on a long session (message count)',
      { status: 400, message: 'Error', messageCount: 120 },
      'context_overflow',
    ],
    [
      'bare 400 on a small session',
      { status: 400, message: 'Bad Request', approxTokens: 2_000, contextLength: 128_000, messageCount: 4 },
      'format_error',
    ],
    ['unknown', { message: 'something odd happened' }, 'unknown'],
  ];

  for (const [name, input, expected] of cases) {
    it(`${name} → ${expected}`, () => {
      assert.equal(classifyProviderError(input), expected);
    });
  }

  it('ignores the case of the message', () => {
    assert.equal(classifyProviderError({ status: 400, message: 'PROMPT IS TOO LONG' }), 'context_overflow');
  });

  it('a long, informative 400 on a large session is not guessed to be an overflow', () => {
    assert.equal(
      classifyProviderError({
        status: 400,
        message: 'Invalid value for tool_choice: expected one of none, auto, required',
        approxTokens: 200_000,
        contextLength: 128_000,
      }),
      'format_error',
    );
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');

  it('reads seconds', () => {
    assert.equal(parseRetryAfter('7', now), 7000);
    assert.equal(parseRetryAfter('1.5', now), 1500);
    assert.equal(parseRetryAfter('0', now), 0);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:27:00 GMT', now), 0);
  });

  it('caps the wait at 10 minutes by default, or at the given cap', () => {
    assert.equal(parseRetryAfter('3600', now), 600_000);
    assert.equal(parseRetryAfter('Thu, 22 Oct 2015 07:28:00 GMT', now), 600_000);
    assert.equal(parseRetryAfter('90', now, 60_000), 60_000);
  });

  it('returns undefined for a missing or unreadable value', () => {
    assert.equal(parseRetryAfter(undefined, now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
    assert.equal(parseRetryAfter('', now), undefined);
    assert.equal(parseRetryAfter('soon', now), undefined);
  });
});

describe('backoffMs', () => {
  it('starts at 2 s and doubles per attempt without jitter', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((a) => backoffMs(a, 0)),
      [2000, 4000, 8000, 16_000, 32_000],
    );
  });

  it('is capped at 60 s', () => {
    assert.equal(backoffMs(6, 0), 60_000);
    assert.equal(backoffMs(50, 0), 60_000);
  });

  it('adds jitter of up to half the delay again', () => {
    assert.equal(backoffMs(1, 1), 3000);
    assert.equal(backoffMs(1, 0.5), 2500);
    assert.equal(backoffMs(20, 1), 90_000);
    for (let attempt = 1; attempt <= 10; attempt++) {
      const core = backoffMs(attempt, 0);
      for (const r of [0, 0.1, 0.37, 0.99]) {
        const d = backoffMs(attempt, r);
        assert.ok(d >= core && d <= core * 1.5, `attempt ${attempt}, random ${r}: ${d}`);
      }
    }
  });

  it('treats attempt 0 like the first attempt', () => {
    assert.equal(backoffMs(0, 0), 2000);
  });
});
