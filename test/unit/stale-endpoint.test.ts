/**
 * A session keeps the endpoint it started with; when a call fails and the worker's configuration
 * now says otherwise, the error tells the user to start a new session.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { staleEndpointHint } from '../../activities/model/stale-endpoint.js';
import { toModelFailure } from '../../activities/model/failures.js';
import type { ProviderDefaults, ProviderRef } from '../../common/providers.js';
import { resolveProvider } from '../../common/providers.js';

const startedWith: ProviderDefaults = {
  provider: 'custom',
  model: 'qwen2.5-coder',
  providers: { custom: { baseUrl: 'http://localhost:8000/v1' } },
};
const ref: ProviderRef = resolveProvider({}, startedWith);

describe('staleEndpointHint', () => {
  it('says nothing while the configuration still gives the same endpoint', () => {
    assert.equal(staleEndpointHint(ref, startedWith), undefined);
    assert.equal(staleEndpointHint({ ...ref, baseUrl: 'http://LOCALHOST:8000/v1/' }, startedWith), undefined);
  });

  it('names the kept endpoint, the configured one, and what to do', () => {
    const fixed: ProviderDefaults = { ...startedWith, openaiBaseUrl: 'http://127.0.0.1:9999/v1' };
    const hint = staleEndpointHint(ref, fixed);
    assert.match(hint ?? '', /keeps the endpoint http:\/\/localhost:8000\/v1/);
    assert.match(hint ?? '', /now gives http:\/\/127\.0\.0\.1:9999\/v1/);
    assert.match(hint ?? '', /start a new session/);
  });

  it('names a changed key variable', () => {
    const hint = staleEndpointHint(ref, {
      ...startedWith,
      providers: { custom: { ...startedWith.providers!.custom, apiKeyEnv: 'LOCAL_KEY' } },
    });
    assert.match(hint ?? '', /key variable OPENAI_API_KEY \(now LOCAL_KEY\)/);
  });

  it("says nothing when today's configuration cannot resolve the provider at all", () => {
    assert.equal(staleEndpointHint(ref, { provider: 'openai', model: 'gpt-4.1' }), undefined);
  });

  it('rides on the model failure message', () => {
    const f = toModelFailure(new Error('connect ECONNREFUSED 127.0.0.1:8000'), {
      provider: ref,
      attempt: 1,
      hint: staleEndpointHint(ref, { ...startedWith, openaiBaseUrl: 'http://127.0.0.1:9999/v1' }),
    });
    assert.match(f.message, /ECONNREFUSED.*start a new session/);
  });
});
