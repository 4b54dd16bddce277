/**
 * Provider errors in the words providers use, with the reason Hermes gives each (from its tests,
 * or from the phrases its classifier knows): Herald agrees on every one, or the difference is
 * deliberate (docs/providers.md, "When providers fail"). Each line is one case: who says it, what
 * they say, and what it must mean.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderErrorInput } from '../../shared/classify-error.js';
import { classifyProviderError, parseContextLimit } from '../../shared/classify-error.js';
import type { FailureReason } from '../../common/error-reasons.js';

export const PEER_CLASSIFIER_CASES: Array<[string, ProviderErrorInput, FailureReason]> = [
  // Local servers' overflow phrases.
  [
    "llama.cpp's slot has no room for the prompt",
    { status: 400, message: 'slot context: 4096 tokens, prompt 8192 tokens — not enough space' },
    'context_overflow',
  ],
  ['llama.cpp slot error without a status', { message: 'n_ctx_slot = 4096, prompt too big' }, 'context_overflow'],
  ['a Chinese "exceeds the maximum length"', { status: 400, message: '请求内容超过最大长度限制' }, 'context_overflow'],
  [
    'a Chinese "exceeds the maximum context length"',
    { status: 400, message: '输入超出最大上下文长度' },
    'context_overflow',
  ],
  [
    'LM Studio: maximum context size exceeded',
    { status: 400, message: 'Maximum context size 65536 exceeded' },
    'context_overflow',
  ],
  [
    'LM Studio: context size has been exceeded',
    { status: 400, message: 'Context size has been exceeded. Maximum context size is 32768' },
    'context_overflow',
  ],
  [
    'Z.AI GLM: more tokens than allowed (code 1210)',
    { status: 400, message: 'tokens in request more than max tokens allowed', code: '1210' },
    'context_overflow',
  ],
  // A plan or the free tier that does not cover the model: billing, not auth or unknown.
  [
    '403: the plan does not include the model',
    { status: 403, message: 'Your current plan does not include the requested model' },
    'billing',
  ],
  [
    '404: not available on the Free Tier',
    { status: 404, message: "Model 'gpt-5' is not available on the Free Tier. Upgrade or pick a free model." },
    'billing',
  ],
  [
    '404: requires available credits',
    { status: 404, message: "Model 'openai/gpt-5.5-pro' requires available credits. Your account balance is too low" },
    'billing',
  ],
  [
    'model_not_supported_on_free_tier code (403)',
    { status: 403, message: 'Forbidden', code: 'model_not_supported_on_free_tier' },
    'billing',
  ],
  [
    'model_not_supported_on_free_tier code, no status',
    { message: 'Request refused', code: 'model_not_supported_on_free_tier' },
    'billing',
  ],
  ['"usage limit reached" with no reset, no status', { message: 'usage limit reached' }, 'billing'],
  [
    '429: account usage limit with no reset',
    { status: 429, message: 'Your account has reached its usage limit.' },
    'billing',
  ],
  ['429: monthly quota wall', { status: 429, message: 'Monthly quota reached.' }, 'billing'],
  ['429: API key limit exceeded', { status: 429, message: 'API key limit exceeded.' }, 'billing'],
  [
    '429: usage limit that resets at a time',
    { status: 429, message: 'usage limit reached; resets at 2026-08-24T10:00:00Z' },
    'rate_limit',
  ],
  [
    '429: weekly usage limit that resets in hours',
    { status: 429, message: 'Weekly usage limit reached. Resets in 6hr 29min.' },
    'rate_limit',
  ],
  [
    '429: a rate-limit phrase is never a billing wall',
    { status: 429, message: 'Rate limit exceeded, please slow down.' },
    'rate_limit',
  ],
  [
    '429: a concurrency limit lifts by itself',
    { status: 429, message: 'Concurrency limit exceeded for this key' },
    'rate_limit',
  ],
  ['429: a request limit lifts by itself', { status: 429, message: 'Request limit exceeded, slow down' }, 'rate_limit'],
  [
    '402 usage limit that resets (wrapped body)',
    { status: 402, message: 'Usage limit reached, try again in 5 minutes' },
    'rate_limit',
  ],
  ['402 in Chinese', { status: 402, message: '余额不足' }, 'billing'],
  [
    '400: credit balance too low',
    { status: 400, message: 'Your credit balance is too low to access the Anthropic API.' },
    'billing',
  ],
  // Moderation refusals: the same prompt is refused every time.
  [
    'OpenAI moderation refusal (400)',
    {
      status: 400,
      message: 'Your request was flagged by our moderation system as potentially violating our policies.',
    },
    'content_policy_blocked',
  ],
  [
    "OpenAI moderation: violates OpenAI's usage policies",
    { status: 400, message: "This request violates OpenAI's usage policies." },
    'content_policy_blocked',
  ],
  [
    'Anthropic safety refusal',
    { status: 400, message: 'Responses cannot be generated due to safety concerns with the prompt.' },
    'content_policy_blocked',
  ],
  [
    'Codex cybersecurity refusal, no status',
    { message: 'This content was flagged for possible cybersecurity risk. Join the Trusted Access for Cyber program.' },
    'content_policy_blocked',
  ],
  // A 5xx whose body is a request validation error: retrying cannot help.
  [
    '500 with invalid_request_error',
    { status: 500, message: 'Invalid request body', code: 'invalid_request_error' },
    'format_error',
  ],
  [
    '502 whose message names invalid_request_error',
    { status: 502, message: '502 {"error":{"type":"invalid_request_error","message":"bad field"}}' },
    'format_error',
  ],
  ['500 unknown_parameter code', { status: 500, message: 'Bad', code: 'unknown_parameter' }, 'format_error'],
  // Throttling said in a 400.
  [
    'Alibaba: request rate increased too quickly (400)',
    {
      status: 400,
      message:
        'Upstream error from Alibaba: Request rate increased too quickly. To ensure system stability, please adjust your client logic to scale requests more smoothly over time.',
    },
    'rate_limit',
  ],
  ['400 that says rate limit', { status: 400, message: 'rate limit exceeded on this model' }, 'rate_limit'],
  ...['resource exhausted', 'RESOURCE_EXHAUSTED', 'ResourceExhausted', 'resource-exhausted'].map(
    (spelling): [string, ProviderErrorInput, FailureReason] => [
      `${spelling}, no status`,
      { message: `${spelling}: Worker local total request limit reached (32/32)` },
      'rate_limit',
    ],
  ),
  [
    'Bedrock throttling',
    { message: 'ThrottlingException: Too many requests, please wait before trying again.' },
    'rate_limit',
  ],
  // Cases both already agreed on (kept so the agreement count is over the whole set).
  ['401', { status: 401, message: 'Unauthorized' }, 'auth'],
  ['403 Forbidden', { status: 403, message: 'Forbidden' }, 'auth'],
  ['402 plain', { status: 402, message: 'Payment Required' }, 'billing'],
  ['404 generic', { status: 404, message: 'Not Found' }, 'unknown'],
  ['404 model not found', { status: 404, message: 'model not found' }, 'model_not_found'],
  ['413', { status: 413, message: 'Request Entity Too Large' }, 'payload_too_large'],
  ['429', { status: 429, message: 'Too Many Requests' }, 'rate_limit'],
  [
    '429 Z.AI overload',
    { status: 429, message: 'The service may be temporarily overloaded, please try again later' },
    'overloaded',
  ],
  [
    '429 long context tier',
    { status: 429, message: 'Extra usage is required for long context requests over 200k tokens' },
    'long_context_tier',
  ],
  ['500', { status: 500, message: 'Internal Server Error' }, 'server_error'],
  ['502', { status: 502, message: 'Bad Gateway' }, 'server_error'],
  ['503', { status: 503, message: 'Service Unavailable' }, 'overloaded'],
  ['408', { status: 408, message: 'Request Timeout' }, 'timeout'],
  ['400 Bad Request', { status: 400, message: 'Bad Request' }, 'format_error'],
  [
    'overloaded, no status',
    { message: 'Anthropic API error: Overloaded - the service is temporarily overloaded' },
    'overloaded',
  ],
  [
    'no user query on a large session is still a format error',
    { status: 400, message: 'No user query found in messages', approxTokens: 226_000, contextLength: 100_864 },
    'format_error',
  ],
  ['read timeout', { message: 'Read timed out', transport: true }, 'timeout'],
  ['SSL bad record mac', { message: '[SSL: BAD_RECORD_MAC] sslv3 alert bad record mac (_ssl.c:2580)' }, 'timeout'],
  ['200 with an error body', { status: 200, message: 'model loading' }, 'unknown'],
];

describe("provider errors from Hermes' cases", () => {
  for (const [name, input, expected] of PEER_CLASSIFIER_CASES) {
    it(`${name} → ${expected}`, () => assert.equal(classifyProviderError(input), expected));
  }
});

export const PEER_LIMIT_CASES: Array<[string, string, number | undefined]> = [
  ['LM Studio: maximum context size N exceeded', 'Maximum context size 65536 exceeded', 65_536],
  ['LM Studio: maximum context size is N', 'Context size has been exceeded. Maximum context size is 32768', 32_768],
  ["llama.cpp's slot: the slot's window", 'slot context: 4096 tokens, prompt 8192 tokens — not enough space', 4096],
  ['an absurd limit is not believed', "This model's maximum context length is 99999999999 tokens", undefined],
  ['a limit past 10M is not believed', 'maximum context length is 20,000,000 tokens', undefined],
  ['10M (Llama 4 Scout) is believed', 'maximum context length is 10,000,000 tokens', 10_000_000],
  ['OpenAI', "This model's maximum context length is 128000 tokens", 128_000],
];

describe("stated context limits from Hermes' cases", () => {
  for (const [name, message, expected] of PEER_LIMIT_CASES) {
    it(`${name} → ${expected}`, () => assert.equal(parseContextLimit(message), expected));
  }
});
