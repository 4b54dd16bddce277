/**
 * Provider errors become ApplicationFailures the workflow can act on: the type is the failure
 * reason, Retry-After becomes the next retry delay, and hopeless errors are non-retryable.
 * Errors come from the real openai client talking to the fake provider.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import { MalformedResponseError, callChatCompletions } from '../../model-adapters/chat-completions.js';
import { MissingCredentialError } from '../../model-adapters/clients.js';
import { ResponsesFailedError } from '../../model-adapters/codex-responses.js';
import { toModelFailure } from '../../activities/model/failures.js';
import type { ModelFailureDetails } from '../../common/error-reasons.js';
import type { ProviderRef } from '../../common/providers.js';
import type { ScriptedReply } from '../support/fake-provider.js';
import { FakeProvider } from '../support/fake-provider.js';

const ref: ProviderRef = {
  provider: 'openrouter',
  model: 'some/model',
  apiMode: 'chat_completions',
  baseUrl: 'http://unused/v1',
  apiKeyEnv: 'OPENROUTER_API_KEY',
};
const details = (f: ApplicationFailure) => f.details?.[0] as ModelFailureDetails;

describe('toModelFailure', () => {
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

  /** The error the openai client throws for one scripted reply. */
  async function providerError(reply: ScriptedReply, c: OpenAI = client): Promise<unknown> {
    fake.script([reply]);
    try {
      await c.chat.completions.create({ model: 'some/model', messages: [{ role: 'user', content: 'hi' }] });
    } catch (err) {
      return err;
    }
    assert.fail('expected the call to fail');
  }

  it('turns a 429 with Retry-After into a retryable rate_limit failure with that delay', async () => {
    const err = await providerError({
      status: 429,
      error: { message: 'Rate limit reached for requests' },
      headers: { 'retry-after': '7' },
    });
    assert.ok(err instanceof OpenAI.APIError);
    const f = toModelFailure(err, { provider: ref, attempt: 1 });
    assert.ok(f instanceof ApplicationFailure);
    assert.equal(f.type, 'rate_limit');
    assert.equal(f.nonRetryable, false);
    assert.equal(f.nextRetryDelay, 7000);
    assert.match(f.message, /^openrouter\/some\/model \(HTTP 429\): .*Rate limit reached/);
    const d = details(f);
    assert.equal(d.reason, 'rate_limit');
    assert.equal(d.status, 429);
    assert.equal(d.provider, 'openrouter');
    assert.equal(d.model, 'some/model');
    assert.equal(d.retryAfterMs, 7000);
    assert.match(d.providerMessage, /Rate limit reached/);
  });

  it('uses jittered backoff for a retryable error without Retry-After', async () => {
    const err = await providerError({ status: 503, error: { message: 'Service Unavailable' } });
    const first = toModelFailure(err, { provider: ref, attempt: 1 });
    assert.equal(first.type, 'overloaded');
    assert.equal(first.nonRetryable, false);
    const d1 = first.nextRetryDelay as number;
    assert.ok(d1 >= 2000 && d1 <= 3000, `attempt 1 delay ${d1}`);
    const d3 = toModelFailure(err, { provider: ref, attempt: 3 }).nextRetryDelay as number;
    assert.ok(d3 >= 8000 && d3 <= 12_000, `attempt 3 delay ${d3}`);
    assert.equal(details(first).retryAfterMs, undefined);
  });

  it('turns a 401 into a non-retryable auth failure', async () => {
    const err = await providerError({ status: 401, error: { message: 'Incorrect API key provided' } });
    const f = toModelFailure(err, { provider: ref, attempt: 1 });
    assert.equal(f.type, 'auth');
    assert.equal(f.nonRetryable, true);
    assert.equal(f.nextRetryDelay, undefined);
    assert.equal(details(f).status, 401);
    assert.equal(details(f).provider, 'openrouter');
  });

  it('turns a context-length 400 into a non-retryable context_overflow', async () => {
    const err = await providerError({
      status: 400,
      error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' },
    });
    const f = toModelFailure(err, { provider: ref, attempt: 1 });
    assert.equal(f.type, 'context_overflow');
    assert.equal(f.nonRetryable, true);
  });

  it('uses the provider error code from the body', async () => {
    const err = await providerError({ status: 404, error: { message: 'Not found', code: 'model_not_found' } });
    assert.equal(toModelFailure(err, { provider: ref, attempt: 1 }).type, 'model_not_found');
  });

  it('treats a refused connection as a retryable network failure without a status, not a timeout', async () => {
    const gone = await FakeProvider.start();
    const url = gone.url;
    await gone.stop();
    const err = await providerError({ text: 'unused' }, new OpenAI({ apiKey: 'k', baseURL: url, maxRetries: 0 }));
    fake.reset();
    assert.ok(err instanceof OpenAI.APIConnectionError);
    const f = toModelFailure(err, { provider: ref, attempt: 1 });
    assert.equal(f.type, 'network');
    assert.equal(f.nonRetryable, false);
    assert.equal(details(f).status, undefined);
    // The errno the SDK hides two causes deep is in the message; "timeout" is not.
    assert.match(details(f).providerMessage, /ECONNREFUSED/);
    assert.doesNotMatch(f.message, /timeout/i);
    // Retried once, then handed to the workflow for the fallback.
    const retry = { fallbackAvailable: true, poolSize: 1 };
    assert.equal(toModelFailure(err, { provider: ref, attempt: 1, retry }).nonRetryable, false);
    assert.equal(toModelFailure(err, { provider: ref, attempt: 2, retry }).nonRetryable, true);
  });

  it('treats a host whose name does not resolve as a network failure', async () => {
    const err = await providerError(
      { text: 'unused' },
      new OpenAI({ apiKey: 'k', baseURL: 'http://no-such-host.invalid/v1', maxRetries: 0 }),
    );
    fake.reset();
    assert.ok(err instanceof OpenAI.APIConnectionError);
    const f = toModelFailure(err, { provider: ref, attempt: 1 });
    assert.equal(f.type, 'network');
    assert.match(details(f).providerMessage, /ENOTFOUND|EAI_AGAIN/);
  });

  it("reads llama.cpp's context error: an overflow with the window from n_ctx", () => {
    // The body llama-server sends with HTTP 400 (its `code` is the status; its `type` says what).
    const body = {
      error: {
        code: 400,
        message: 'request (2530 tokens) exceeds the available context size (2048 tokens), try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 2530,
        n_ctx: 2048,
      },
    };
    const err = OpenAI.APIError.generate(400, body, undefined, new Headers());
    const f = toModelFailure(err, { provider: { ...ref, provider: 'custom' }, attempt: 1 });
    assert.equal(f.type, 'context_overflow');
    assert.equal(f.nonRetryable, true);
    assert.equal(details(f).contextLimit, 2048);
    // The same body without n_ctx (older servers): the window comes from the message.
    const { n_ctx: _n, ...older } = body.error;
    const g = toModelFailure(OpenAI.APIError.generate(400, { error: older }, undefined, new Headers()), {
      provider: ref,
      attempt: 1,
    });
    assert.equal(g.type, 'context_overflow');
    assert.equal(details(g).contextLimit, 2048);
  });

  it("reads vLLM's context error: an overflow with the stated window", async () => {
    const err = await providerError({
      status: 400,
      error: {
        message:
          "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        type: 'BadRequestError',
      },
    });
    const f = toModelFailure(err, { provider: ref, attempt: 1 });
    assert.equal(f.type, 'context_overflow');
    assert.equal(details(f).contextLimit, 4096);
  });

  it("reads vLLM's max_model_len from an error body", () => {
    const err = OpenAI.APIError.generate(
      400,
      { error: { message: 'Input prompt (5000 tokens) exceeds maximum model length', max_model_len: 4096 } },
      undefined,
      new Headers(),
    );
    const f = toModelFailure(err, { provider: ref, attempt: 1 });
    assert.equal(f.type, 'context_overflow');
    assert.equal(details(f).contextLimit, 4096);
  });

  it('does not retry a 500 that says Unknown parameter', async () => {
    const err = await providerError({ status: 500, error: { message: 'Unknown parameter: reasoning_effort' } });
    const f = toModelFailure(err, { provider: ref, attempt: 1, retry: { fallbackAvailable: false, poolSize: 1 } });
    assert.equal(f.type, 'format_error');
    assert.equal(f.nonRetryable, true);
  });

  it("treats OpenRouter's data-policy refusal as model_not_found, at once, with what to change", async () => {
    const err = await providerError({
      status: 404,
      error: {
        message:
          'No endpoints found matching your data policy (Free model publication). Configure: https://openrouter.ai/settings/privacy',
      },
    });
    const f = toModelFailure(err, { provider: ref, attempt: 1, retry: { fallbackAvailable: false, poolSize: 1 } });
    assert.equal(f.type, 'model_not_found');
    assert.equal(f.nonRetryable, true);
    assert.match(f.message, /data policy.*privacy settings/);
  });

  it('treats invalid_encrypted_content from the Responses API like a bad reasoning signature', () => {
    const f = toModelFailure(
      new ResponsesFailedError(
        'The encrypted content for item rs_68a1 could not be verified.',
        'invalid_encrypted_content',
      ),
      { provider: { ...ref, apiMode: 'codex_responses' }, attempt: 1 },
    );
    assert.equal(f.type, 'thinking_signature');
    assert.equal(f.nonRetryable, true);
    const g = toModelFailure(
      OpenAI.APIError.generate(
        400,
        {
          error: {
            message: 'The encrypted content for item rs_68a1 could not be verified.',
            type: 'invalid_request_error',
            code: 'invalid_encrypted_content',
          },
        },
        undefined,
        new Headers(),
      ),
      { provider: ref, attempt: 1 },
    );
    assert.equal(g.type, 'thinking_signature');
  });

  it('does not take a connection cut on a big session for a context overflow', () => {
    // undici's "terminated" after a proxy closed an idle reasoning stream, before any byte arrived.
    const cut = new OpenAI.APIConnectionError({
      cause: Object.assign(new TypeError('terminated'), {
        cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      }),
    });
    const f = toModelFailure(cut, {
      provider: { ...ref, contextLength: 200_000 },
      attempt: 1,
      approxTokens: 150_000,
      messageCount: 400,
    });
    assert.equal(f.type, 'timeout');
    assert.equal(f.nonRetryable, false);
    assert.equal(details(f).contextLimit, undefined);
  });

  it('treats a stream cut mid-response as a retryable server_error (a malformed response)', async () => {
    fake.script([{ text: 'a long answer that is cut off before it ends', cutAfterChunks: 3, chunkDelayMs: 5 }]);
    const sink = { text() {}, reasoning() {}, toolGenerating() {}, alive() {} };
    const err = await callChatCompletions(
      client,
      fake.url,
      { model: 'm-cut', messages: [{ role: 'user', content: 'hi' }], tools: [] },
      { signal: new AbortController().signal, sink },
    ).then(
      () => assert.fail('expected the call to fail'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof MalformedResponseError);
    const f = toModelFailure(err, { provider: ref, attempt: 1 });
    assert.equal(f.type, 'server_error');
    assert.equal(f.nonRetryable, false);
  });

  it('treats a malformed 200 response as a retryable server_error', () => {
    const f = toModelFailure(new MalformedResponseError('the response has no choices'), { provider: ref, attempt: 1 });
    assert.equal(f.type, 'server_error');
    assert.equal(f.nonRetryable, false);
  });

  it('treats a missing API key as a non-retryable auth failure', () => {
    const f = toModelFailure(new MissingCredentialError('OPENROUTER_API_KEY', 'openrouter'), {
      provider: ref,
      attempt: 1,
    });
    assert.equal(f.type, 'auth');
    assert.equal(f.nonRetryable, true);
    assert.match(f.message, /OPENROUTER_API_KEY/);
  });

  it('says a missing key is missing, that nothing was sent, and which config key names another', () => {
    const f = toModelFailure(new MissingCredentialError('OPENROUTER_API_KEY', 'openrouter'), {
      provider: ref,
      attempt: 1,
    });
    assert.match(f.message, /OPENROUTER_API_KEY is not set in the worker's environment, so nothing was sent/);
    assert.match(f.message, /providers\.openrouter\.apiKeyEnv/);
    assert.doesNotMatch(f.message, /rejected/);
    assert.equal(details(f).missingKey, 'OPENROUTER_API_KEY');
    const pooled = new MissingCredentialError('OPENROUTER_KEY_B', 'openrouter', true);
    assert.match(pooled.message, /OPENROUTER_KEY_B is not set.*providers\.openrouter\.credentialPool/);
  });

  it('gives a key the provider refused no missingKey', () => {
    const f = toModelFailure(
      new OpenAI.APIError(401, { message: 'Incorrect API key provided' }, 'Incorrect API key provided', new Headers()),
      { provider: ref, attempt: 1 },
    );
    assert.equal(f.type, 'auth');
    assert.equal(details(f).missingKey, undefined);
  });

  it('classifies an unexpected error as unknown and retryable', () => {
    const f = toModelFailure(new Error('something odd'), { provider: ref, attempt: 1 });
    assert.equal(f.type, 'unknown');
    assert.equal(f.nonRetryable, false);
    assert.match(details(f).providerMessage, /something odd/);
  });
});
