/**
 * Provider resolution (docs/providers.md): which API a call speaks, which URL it goes to and which
 * environment variable holds its key, from a caller's partial request and the worker's defaults.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderDefaults } from '../../common/providers.js';
import { MissingCredentialError, resolveApiKey } from '../../model-adapters/clients.js';
import {
  defaultOutputCap,
  ProviderResolutionError,
  currentEndpoint,
  isLocalProvider,
  keyOptional,
  providerLabel,
  resolveApiMode,
  resolveProvider,
} from '../../common/providers.js';

describe('resolveApiMode', () => {
  it('an explicit mode wins over everything', () => {
    assert.equal(resolveApiMode('anthropic', 'https://api.anthropic.com', 'chat_completions'), 'chat_completions');
    assert.equal(resolveApiMode('openai', 'https://api.openai.com/v1', 'anthropic_messages'), 'anthropic_messages');
  });

  it('the provider decides next', () => {
    assert.equal(resolveApiMode('anthropic', undefined), 'anthropic_messages');
    assert.equal(resolveApiMode('openai-codex', undefined), 'codex_responses');
    assert.equal(resolveApiMode('openai-codex', 'https://api.anthropic.com'), 'codex_responses');
  });

  it('then the base URL: api.anthropic.com or a path ending in /anthropic', () => {
    assert.equal(resolveApiMode('custom', 'https://api.anthropic.com/v1'), 'anthropic_messages');
    assert.equal(resolveApiMode('custom', 'https://API.Anthropic.com'), 'anthropic_messages');
    assert.equal(resolveApiMode(undefined, 'https://gateway.example.com/proxy/anthropic'), 'anthropic_messages');
    assert.equal(resolveApiMode('custom', 'https://gateway.example.com/proxy/anthropic/'), 'anthropic_messages');
  });

  it('falls back to chat_completions', () => {
    assert.equal(resolveApiMode(undefined, undefined), 'chat_completions');
    assert.equal(resolveApiMode('openrouter', 'https://openrouter.ai/api/v1'), 'chat_completions');
    assert.equal(resolveApiMode('custom', 'http://localhost:11434/v1'), 'chat_completions');
    assert.equal(resolveApiMode('custom', 'https://gateway.example.com/anthropic/v1'), 'chat_completions');
  });
});

describe('resolveProvider', () => {
  const defaults: ProviderDefaults = { provider: 'openai', model: 'gpt-4.1' };

  it('fills everything from the defaults for an empty request', () => {
    assert.deepEqual(resolveProvider({}, defaults), {
      provider: 'openai',
      model: 'gpt-4.1',
      apiMode: 'chat_completions',
      baseUrl: 'https://api.openai.com/v1',
      apiKeyEnv: 'OPENAI_API_KEY',
    });
  });

  it('custom uses the worker OPENAI_BASE_URL by default', () => {
    const ref = resolveProvider(
      { provider: 'custom', model: 'llama3' },
      { ...defaults, openaiBaseUrl: 'http://localhost:11434/v1' },
    );
    assert.equal(ref.baseUrl, 'http://localhost:11434/v1');
    assert.equal(ref.apiMode, 'chat_completions');
    assert.equal(ref.apiKeyEnv, 'OPENAI_API_KEY');
  });

  it('custom without any base URL is an error that names baseUrl', () => {
    assert.throws(
      () => resolveProvider({ provider: 'custom', model: 'llama3' }, defaults),
      (err: unknown) =>
        err instanceof ProviderResolutionError && err.field === 'baseUrl' && /base URL/.test(err.message),
    );
  });

  it('a base URL in the request wins over the default', () => {
    const ref = resolveProvider(
      { provider: 'custom', model: 'm', baseUrl: 'http://127.0.0.1:8000/v1' },
      { ...defaults, openaiBaseUrl: 'http://other/v1' },
    );
    assert.equal(ref.baseUrl, 'http://127.0.0.1:8000/v1');
  });

  it('OPENAI_BASE_URL applies to openai, but openrouter keeps its own URL', () => {
    const d = { ...defaults, openaiBaseUrl: 'http://localhost:8080/v1' };
    assert.equal(resolveProvider({}, d).baseUrl, 'http://localhost:8080/v1');
    assert.equal(
      resolveProvider({ provider: 'openrouter', model: 'openai/gpt-4.1' }, d).baseUrl,
      'https://openrouter.ai/api/v1',
    );
  });

  it('anthropic uses ANTHROPIC_BASE_URL or its public API, and the messages API', () => {
    const ref = resolveProvider({ provider: 'anthropic', model: 'claude-sonnet-4-5' }, defaults);
    assert.equal(ref.baseUrl, 'https://api.anthropic.com');
    assert.equal(ref.apiMode, 'anthropic_messages');
    const proxied = resolveProvider(
      { provider: 'anthropic', model: 'claude' },
      { ...defaults, anthropicBaseUrl: 'http://proxy/anthropic' },
    );
    assert.equal(proxied.baseUrl, 'http://proxy/anthropic');
  });

  it('picks the key variable per provider unless one is given', () => {
    const key = (provider: 'openai' | 'openrouter' | 'anthropic' | 'openai-codex' | 'custom') =>
      resolveProvider({ provider, model: 'm', baseUrl: 'http://x/v1' }, defaults).apiKeyEnv;
    assert.equal(key('openai'), 'OPENAI_API_KEY');
    assert.equal(key('openrouter'), 'OPENROUTER_API_KEY');
    assert.equal(key('anthropic'), 'ANTHROPIC_API_KEY');
    assert.equal(key('openai-codex'), 'OPENAI_API_KEY');
    assert.equal(key('custom'), 'OPENAI_API_KEY');
    assert.equal(
      resolveProvider({ provider: 'openrouter', model: 'm', apiKeyEnv: 'MY_ROUTER_KEY' }, defaults).apiKeyEnv,
      'MY_ROUTER_KEY',
    );
  });

  it('inherits the default model only for the default provider', () => {
    assert.equal(resolveProvider({ provider: 'openai' }, defaults).model, 'gpt-4.1');
    assert.equal(resolveProvider({ model: 'gpt-5' }, defaults).model, 'gpt-5');
    assert.throws(
      () => resolveProvider({ provider: 'anthropic' }, defaults),
      (err: unknown) =>
        err instanceof ProviderResolutionError && err.field === 'model' && err.message.includes('anthropic'),
    );
  });

  it('carries the context length from the request or the defaults', () => {
    assert.equal(resolveProvider({}, defaults).contextLength, undefined);
    assert.equal(resolveProvider({}, { ...defaults, contextLength: 200_000 }).contextLength, 200_000);
    assert.equal(
      resolveProvider({ contextLength: 32_768 }, { ...defaults, contextLength: 200_000 }).contextLength,
      32_768,
    );
  });

  it('labels a provider for people', () => {
    assert.equal(providerLabel({ model: 'gpt-4.1', provider: 'openrouter' }), 'gpt-4.1 via openrouter');
  });
});

describe('currentEndpoint', () => {
  const defaults = (url: string): ProviderDefaults => ({
    provider: 'custom',
    model: 'm',
    openaiBaseUrl: url,
    apiKeyEnv: 'OPENAI_API_KEY',
  });
  it("takes a worker-resolved ref's endpoint from today's configuration, and leaves a pinned one", () => {
    const then = { ...resolveProvider({}, defaults('http://old:1/v1')), fromWorker: true };
    assert.equal(currentEndpoint(then, defaults('http://new:2/v1')).baseUrl, 'http://new:2/v1');
    const pinned = resolveProvider({ baseUrl: 'http://old:1/v1' }, defaults('http://old:1/v1'));
    assert.equal(currentEndpoint(pinned, defaults('http://new:2/v1')).baseUrl, 'http://old:1/v1');
  });
});

describe('the Anthropic base URL heuristic matches a host, not a substring', () => {
  it('a look-alike host or a path naming api.anthropic.com does not pick the Anthropic protocol', () => {
    assert.equal(resolveApiMode('custom', 'https://api.anthropic.com.attacker.test/v1'), 'chat_completions');
    assert.equal(resolveApiMode(undefined, 'https://attacker.test/api.anthropic.com'), 'chat_completions');
    assert.equal(resolveApiMode(undefined, 'https://notapi.anthropic.com.evil/v1'), 'chat_completions');
  });

  it('the real host still does, with or without a path', () => {
    assert.equal(resolveApiMode(undefined, 'https://api.anthropic.com'), 'anthropic_messages');
    assert.equal(resolveApiMode(undefined, 'https://api.anthropic.com./v1/'), 'anthropic_messages');
  });
});

describe('local server presets', () => {
  const defaults: ProviderDefaults = { provider: 'openai', model: 'gpt-4.1' };

  it('each preset gets its default loopback URL, chat completions and an optional key', () => {
    const cases = [
      ['ollama', 'http://127.0.0.1:11434/v1'],
      ['vllm', 'http://127.0.0.1:8000/v1'],
      ['llamacpp', 'http://127.0.0.1:8080/v1'],
      ['lmstudio', 'http://127.0.0.1:1234/v1'],
    ] as const;
    for (const [provider, url] of cases) {
      const ref = resolveProvider({ provider, model: 'qwen2.5-coder' }, defaults);
      assert.equal(ref.baseUrl, url, provider);
      assert.equal(ref.apiMode, 'chat_completions', provider);
      assert.ok(isLocalProvider(provider) && keyOptional(provider), provider);
    }
    assert.equal(keyOptional('openai'), false);
  });

  it('a preset stays chat completions even behind a path ending in /anthropic', () => {
    assert.equal(resolveApiMode('ollama', 'http://127.0.0.1:11434/anthropic'), 'chat_completions');
  });

  it('the config file moves a preset to another port', () => {
    const ref = resolveProvider(
      { provider: 'vllm', model: 'm' },
      { ...defaults, providers: { vllm: { baseUrl: 'http://gpu-box:9000/v1' } } },
    );
    assert.equal(ref.baseUrl, 'http://gpu-box:9000/v1');
  });

  it('a request may not name a preset URL the worker never declared (fails closed)', () => {
    assert.throws(
      () =>
        resolveProvider(
          { provider: 'custom', model: 'm', baseUrl: 'http://127.0.0.1:11434/v1', apiKeyEnv: 'OPENAI_API_KEY' },
          { ...defaults, declared: { baseUrls: [], keyEnvs: [], pairs: [] } },
        ),
      ProviderResolutionError,
    );
    // Naming the preset itself is fine: its endpoint is the worker's default, not the caller's.
    const ref = resolveProvider(
      { provider: 'ollama', model: 'm' },
      { ...defaults, declared: { baseUrls: [], keyEnvs: [], pairs: [] } },
    );
    assert.equal(ref.baseUrl, 'http://127.0.0.1:11434/v1');
  });

  it('a missing key is no error for a preset: the call goes out keyless', () => {
    const ref = resolveProvider({ provider: 'llamacpp', model: 'm' }, defaults);
    assert.equal(resolveApiKey(ref, {}, {}), 'no-key');
    assert.equal(resolveApiKey(ref, { LLAMA_API_KEY: 'k' }, {}), 'k');
    assert.throws(
      () => resolveApiKey(resolveProvider({ provider: 'openai', model: 'm' }, defaults), {}, {}),
      MissingCredentialError,
    );
  });
});

describe('default output cap of local servers', () => {
  it('caps a local preset or a loopback custom endpoint at a quarter of the window, at most 4,096', () => {
    assert.equal(
      defaultOutputCap({ provider: 'llamacpp', baseUrl: 'http://127.0.0.1:8080/v1', contextLength: 16_384 }),
      4096,
    );
    assert.equal(
      defaultOutputCap({ provider: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', contextLength: 4096 }),
      1024,
    );
    assert.equal(defaultOutputCap({ provider: 'vllm', baseUrl: 'http://gpu-box:8000/v1' }), 4096);
    assert.equal(defaultOutputCap({ provider: 'custom', baseUrl: 'http://localhost:5000/v1' }), 4096);
    assert.equal(defaultOutputCap({ provider: 'custom', baseUrl: 'http://[::1]:5000/v1', contextLength: 2048 }), 512);
  });

  it('leaves hosted providers and remote custom gateways uncapped', () => {
    assert.equal(defaultOutputCap({ provider: 'openai', baseUrl: 'https://api.openai.com/v1' }), undefined);
    assert.equal(defaultOutputCap({ provider: 'custom', baseUrl: 'https://gateway.example.com/v1' }), undefined);
    assert.equal(defaultOutputCap({ provider: 'custom', baseUrl: 'http://127.0.0.1.attacker.test/v1' }), undefined);
  });
});
