/**
 * Provider error classification (docs/providers.md): the reason decides whether Herald retries, compresses,
 * rotates a key or falls back, so each provider's way of saying things must land in the right bucket.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderErrorInput } from '../../shared/classify-error.js';
import { backoffMs, classifyProviderError, parseContextLimit, parseRetryAfter } from '../../shared/classify-error.js';
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
      'network',
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

  /** Local servers and peers' scenarios: each phrase as the server or SDK says it. */
  const localAndPeerCases: Array<[string, ProviderErrorInput, FailureReason]> = [
    [
      'llama.cpp: request exceeds the available context size',
      {
        status: 400,
        message: '400 request (2530 tokens) exceeds the available context size (2048 tokens), try increasing it',
        code: 'exceed_context_size_error',
      },
      'context_overflow',
    ],
    [
      'llama.cpp: its error type alone',
      { status: 400, message: '400 the request exceeds the available context size', code: 'exceed_context_size_error' },
      'context_overflow',
    ],
    [
      "vLLM: this model's maximum context length",
      {
        status: 400,
        message:
          "400 This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        code: 'BadRequestError',
      },
      'context_overflow',
    ],
    [
      'vLLM: longer than the maximum model length',
      {
        status: 400,
        message:
          '400 The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make sure that `max_model_len` is no smaller than the number of text tokens.',
      },
      'context_overflow',
    ],
    [
      'vLLM: exceeds maximum model length',
      { status: 400, message: '400 Input prompt (5000 tokens) exceeds maximum model length (4096)' },
      'context_overflow',
    ],
    [
      'GLM: prompt exceeds max length',
      { status: 400, message: '400 Prompt exceeds max length', code: '1261' },
      'context_overflow',
    ],
    [
      'DNS failure (undici cause)',
      { message: 'Connection error. fetch failed getaddrinfo ENOTFOUND api.example.test ENOTFOUND', transport: true },
      'network',
    ],
    [
      'DNS lookup that may pass',
      { message: 'Connection error. fetch failed getaddrinfo EAI_AGAIN api.example.test EAI_AGAIN', transport: true },
      'network',
    ],
    [
      'connection reset by the peer',
      { message: 'Connection error. fetch failed read ECONNRESET ECONNRESET', transport: true },
      'network',
    ],
    [
      'proxy idle disconnect of a reasoning stream on a big session',
      {
        message: 'Connection error. terminated other side closed UND_ERR_SOCKET',
        transport: true,
        approxTokens: 150_000,
        contextLength: 200_000,
        messageCount: 400,
      },
      'timeout',
    ],
    [
      'socket hang up on a big session',
      { message: 'socket hang up', approxTokens: 130_000, messageCount: 250 },
      'timeout',
    ],
    [
      'a disconnect on a request larger than the known window',
      { message: 'Connection error. terminated', transport: true, approxTokens: 40_000, contextLength: 32_768 },
      'context_overflow',
    ],
    [
      '500 that says Unknown parameter',
      { status: 500, message: '500 Unknown parameter: reasoning_effort' },
      'format_error',
    ],
    [
      '502 unsupported parameter',
      { status: 502, message: "502 Unsupported parameter: 'max_tokens' is not supported with this model." },
      'format_error',
    ],
    [
      '503 unrecognized request argument',
      { status: 503, message: '503 Unrecognized request argument supplied: parallel_tool_calls' },
      'format_error',
    ],
    [
      'OpenRouter data policy (404)',
      {
        status: 404,
        message:
          '404 No endpoints found matching your data policy (Free model publication). Configure: https://openrouter.ai/settings/privacy',
        code: '404',
      },
      'model_not_found',
    ],
    [
      'OpenRouter data policy (403, not an auth problem)',
      { status: 403, message: 'No endpoints found matching your data policy (Zero data retention)' },
      'model_not_found',
    ],
    [
      'OpenRouter data policy (503, not an overload)',
      { status: 503, message: 'No endpoints found matching your data policy (provider)' },
      'model_not_found',
    ],
    [
      'Responses API invalid_encrypted_content (400)',
      {
        status: 400,
        message:
          '400 The encrypted content for item rs_68a1 could not be verified. Reason: Encrypted content could not be decrypted or parsed.',
        code: 'invalid_encrypted_content',
      },
      'thinking_signature',
    ],
    [
      'Responses API invalid_encrypted_content in response.failed (no status)',
      { message: 'The encrypted content could not be verified.', code: 'invalid_encrypted_content' },
      'thinking_signature',
    ],
  ];

  for (const [name, input, expected] of localAndPeerCases) {
    it(`${name} → ${expected}`, () => {
      assert.equal(classifyProviderError(input), expected);
    });
  }

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

describe('parseContextLimit', () => {
  const cases: Array<[string, string, number | undefined]> = [
    ['OpenAI / vLLM', "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens", 4096],
    ['with thousands separators', 'maximum context length is 128,000 tokens', 128_000],
    [
      'llama.cpp: the window, not the request size',
      'request (2530 tokens) exceeds the available context size (2048 tokens), try increasing it',
      2048,
    ],
    ['llama.cpp n_ctx in a message', 'the request exceeds the available context size, n_ctx: 4096', 4096],
    [
      'vLLM maximum model length',
      'The decoder prompt (length 5000) is longer than the maximum model length of 4096.',
      4096,
    ],
    ['vLLM max_model_len', 'prompt length 5000 exceeds max_model_len=8192', 8192],
    ['vLLM exceeds maximum model length', 'Input prompt (5000 tokens) exceeds maximum model length (4096)', 4096],
    ['GLM states no number', 'Prompt exceeds max length', undefined],
  ];
  for (const [name, message, expected] of cases) {
    it(`${name} → ${expected}`, () => assert.equal(parseContextLimit(message), expected));
  }
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
