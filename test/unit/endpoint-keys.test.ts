/**
 * Which key may go to which endpoint: a worker's configuration (loaded as a worker loads it) and a
 * table of what workflow input, a fallback entry, a `/model` switch or a child agent may name —
 * URL tricks, key-variable tricks, pools, API modes — each with the outcome: the key variable the
 * call uses (NO_KEY: none), or the field the refusal names. Then the second look at carried state,
 * right before an SDK client is built, and redirects.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UnpairedEndpointKeyError, openaiClient, resolveApiKey } from '../../model-adapters/clients.js';
import { NO_KEY, canonicalEndpoint, judgeEndpointKey } from '../../common/endpoint-keys.js';
import type { ProviderDefaults, ProviderRef, ProviderRequest } from '../../common/providers.js';
import { ProviderResolutionError, endpointKeyVerdict, resolveProvider } from '../../common/providers.js';
import { loadConfig } from '../../runtime/config.js';

const WORKER_CONFIG = `
model:
  provider: openai
  name: gpt-4.1
providers:
  vllm:
    apiKeyEnv: VLLM_TOKEN              # the preset's default URL, paired with a key of its own
  custom:
    baseUrl: https://gateway.example.com/v1
    apiKeyEnv: GATEWAY_KEY
  openrouter:
    credentialPool: [ROUTER_A, ROUTER_B]
  ollama:
    baseUrl: http://gpu-box:11434/v1   # moved, no key named: the preset's own variable
fallbackProviders:
  - { provider: custom, model: lan-model, baseUrl: "http://10.0.0.7:9000/v1", apiKeyEnv: LAN_KEY }
secrets:
  env: [MY_SERVICE_CREDS]
`;

type Outcome = { key: string; url?: string } | { refused: 'apiKeyEnv' | 'baseUrl' | 'provider' };

/** [what the case is, the request, the outcome] */
const CASES: Array<[string, ProviderRequest, Outcome]> = [
  // The reported probe and its neighbours: a local preset's loopback URL with another endpoint's key.
  [
    'lmstudio with the OpenAI key',
    { provider: 'lmstudio', model: 'x', apiKeyEnv: 'OPENAI_API_KEY' },
    { refused: 'apiKeyEnv' },
  ],
  [
    'ollama with the OpenAI key',
    { provider: 'ollama', model: 'x', apiKeyEnv: 'OPENAI_API_KEY' },
    { refused: 'apiKeyEnv' },
  ],
  [
    'llamacpp with the Anthropic key',
    { provider: 'llamacpp', model: 'x', apiKeyEnv: 'ANTHROPIC_API_KEY' },
    { refused: 'apiKeyEnv' },
  ],
  [
    'vllm with a pool key of openrouter',
    { provider: 'vllm', model: 'x', apiKeyEnv: 'ROUTER_A' },
    { refused: 'apiKeyEnv' },
  ],
  [
    'ollama (moved) with the vllm pair key',
    { provider: 'ollama', model: 'x', apiKeyEnv: 'VLLM_TOKEN' },
    { refused: 'apiKeyEnv' },
  ],
  // Presets as the worker declares them.
  [
    'lmstudio: its own optional variable',
    { provider: 'lmstudio', model: 'x' },
    { key: 'LMSTUDIO_API_KEY', url: 'http://127.0.0.1:1234/v1' },
  ],
  ['vllm: the key the config pairs with it', { provider: 'vllm', model: 'x' }, { key: 'VLLM_TOKEN' }],
  [
    'vllm naming its own standard variable',
    { provider: 'vllm', model: 'x', apiKeyEnv: 'VLLM_API_KEY' },
    { key: 'VLLM_API_KEY' },
  ],
  [
    'ollama moved by the config',
    { provider: 'ollama', model: 'x' },
    { key: 'OLLAMA_API_KEY', url: 'http://gpu-box:11434/v1' },
  ],
  // A declared endpoint with a default key that is not paired with it: no key for a local server or custom.
  [
    'llamacpp on the moved ollama URL: no key',
    { provider: 'llamacpp', model: 'x', baseUrl: 'http://gpu-box:11434/v1' },
    { key: NO_KEY },
  ],
  [
    'custom on the fallback URL without its key: no key',
    { provider: 'custom', model: 'x', baseUrl: 'http://10.0.0.7:9000/v1' },
    { key: NO_KEY },
  ],
  // … and refused for a hosted provider, whose key is never optional.
  [
    'openai on the gateway URL',
    { provider: 'openai', model: 'x', baseUrl: 'https://gateway.example.com/v1' },
    { refused: 'baseUrl' },
  ],
  [
    'openrouter pool on the gateway URL',
    { provider: 'openrouter', model: 'x', baseUrl: 'https://gateway.example.com/v1' },
    { refused: 'baseUrl' },
  ],
  [
    'anthropic on the OpenAI URL',
    { provider: 'anthropic', model: 'x', baseUrl: 'https://api.openai.com/v1' },
    { refused: 'baseUrl' },
  ],
  // Declared pairs.
  [
    'custom gateway with its key',
    { provider: 'custom', model: 'x', baseUrl: 'https://gateway.example.com/v1' },
    { key: 'GATEWAY_KEY' },
  ],
  [
    'custom gateway, key named',
    { provider: 'custom', model: 'x', baseUrl: 'https://gateway.example.com/v1', apiKeyEnv: 'GATEWAY_KEY' },
    { key: 'GATEWAY_KEY' },
  ],
  [
    'the fallback entry pair',
    { provider: 'custom', model: 'x', baseUrl: 'http://10.0.0.7:9000/v1', apiKeyEnv: 'LAN_KEY' },
    { key: 'LAN_KEY' },
  ],
  ['openrouter with its pool', { provider: 'openrouter', model: 'x' }, { key: 'ROUTER_A' }],
  ['openai standard', { provider: 'openai', model: 'x' }, { key: 'OPENAI_API_KEY', url: 'https://api.openai.com/v1' }],
  ['openai-codex standard', { provider: 'openai-codex', model: 'x' }, { key: 'OPENAI_API_KEY' }],
  ['anthropic standard', { provider: 'anthropic', model: 'x' }, { key: 'ANTHROPIC_API_KEY' }],
  [
    'apiMode does not change the pair',
    { provider: 'custom', model: 'x', baseUrl: 'https://gateway.example.com/v1', apiMode: 'anthropic_messages' },
    { key: 'GATEWAY_KEY' },
  ],
  // Keys mixed between declarations.
  [
    'gateway with the OpenAI key',
    { provider: 'custom', model: 'x', baseUrl: 'https://gateway.example.com/v1', apiKeyEnv: 'OPENAI_API_KEY' },
    { refused: 'apiKeyEnv' },
  ],
  [
    'gateway with a pool key',
    { provider: 'custom', model: 'x', baseUrl: 'https://gateway.example.com/v1', apiKeyEnv: 'ROUTER_B' },
    { refused: 'apiKeyEnv' },
  ],
  [
    'fallback URL with the gateway key',
    { provider: 'custom', model: 'x', baseUrl: 'http://10.0.0.7:9000/v1', apiKeyEnv: 'GATEWAY_KEY' },
    { refused: 'apiKeyEnv' },
  ],
  [
    'openai with the Anthropic key',
    { provider: 'openai', model: 'x', apiKeyEnv: 'ANTHROPIC_API_KEY' },
    { refused: 'apiKeyEnv' },
  ],
  [
    'anthropic with the OpenAI key',
    { provider: 'anthropic', model: 'x', apiKeyEnv: 'OPENAI_API_KEY' },
    { refused: 'apiKeyEnv' },
  ],
  [
    'openai with the gateway key',
    { provider: 'openai', model: 'x', apiKeyEnv: 'GATEWAY_KEY' },
    { refused: 'apiKeyEnv' },
  ],
  // Names of other secrets, and near names.
  ['DATABASE_URL', { provider: 'openai', model: 'x', apiKeyEnv: 'DATABASE_URL' }, { refused: 'apiKeyEnv' }],
  [
    'a secrets.env variable',
    { provider: 'openai', model: 'x', apiKeyEnv: 'MY_SERVICE_CREDS' },
    { refused: 'apiKeyEnv' },
  ],
  [
    'HERALD_CODEC_KEY',
    { provider: 'custom', model: 'x', baseUrl: 'https://gateway.example.com/v1', apiKeyEnv: 'HERALD_CODEC_KEY' },
    { refused: 'apiKeyEnv' },
  ],
  ['lower-case name', { provider: 'openai', model: 'x', apiKeyEnv: 'openai_api_key' }, { refused: 'apiKeyEnv' }],
  ['trailing underscore', { provider: 'openai', model: 'x', apiKeyEnv: 'OPENAI_API_KEY_' }, { refused: 'apiKeyEnv' }],
  ['plural', { provider: 'openai', model: 'x', apiKeyEnv: 'OPENAI_API_KEYS' }, { refused: 'apiKeyEnv' }],
  // URL tricks against a standard pair.
  [
    'trailing slash is the same endpoint',
    { provider: 'openai', model: 'x', baseUrl: 'https://api.openai.com/v1/' },
    { key: 'OPENAI_API_KEY' },
  ],
  [
    'upper-case host is the same endpoint',
    { provider: 'openai', model: 'x', baseUrl: 'https://API.OpenAI.com/v1' },
    { key: 'OPENAI_API_KEY' },
  ],
  [
    'explicit default port is the same endpoint',
    { provider: 'openai', model: 'x', baseUrl: 'https://api.openai.com:443/v1' },
    { key: 'OPENAI_API_KEY' },
  ],
  [
    'userinfo: the host is evil.test',
    { provider: 'openai', model: 'x', baseUrl: 'https://api.openai.com@evil.test/v1' },
    { refused: 'baseUrl' },
  ],
  [
    'userinfo on the real host',
    { provider: 'openai', model: 'x', baseUrl: 'https://user:pw@api.openai.com/v1' },
    { refused: 'baseUrl' },
  ],
  ['trailing dot', { provider: 'openai', model: 'x', baseUrl: 'https://api.openai.com./v1' }, { refused: 'baseUrl' }],
  [
    'look-alike suffix',
    { provider: 'openai', model: 'x', baseUrl: 'https://api.openai.com.evil.test/v1' },
    { refused: 'baseUrl' },
  ],
  [
    'http instead of https',
    { provider: 'openai', model: 'x', baseUrl: 'http://api.openai.com/v1' },
    { refused: 'baseUrl' },
  ],
  [
    'another port',
    { provider: 'openai', model: 'x', baseUrl: 'https://api.openai.com:8443/v1' },
    { refused: 'baseUrl' },
  ],
  [
    'a longer path',
    { provider: 'openai', model: 'x', baseUrl: 'https://api.openai.com/v1/evil' },
    { refused: 'baseUrl' },
  ],
  ['a query', { provider: 'openai', model: 'x', baseUrl: 'https://api.openai.com/v1?to=evil' }, { refused: 'baseUrl' }],
  [
    'a fragment',
    { provider: 'openai', model: 'x', baseUrl: 'https://api.openai.com/v1#@evil.test' },
    { refused: 'baseUrl' },
  ],
  [
    'a backslash',
    { provider: 'openai', model: 'x', baseUrl: 'https://evil.test\\@api.openai.com/v1' },
    { refused: 'baseUrl' },
  ],
  // Loopback spellings a preset's port may be reached by: never declared, so never named.
  ['IPv6 loopback', { provider: 'lmstudio', model: 'x', baseUrl: 'http://[::1]:1234/v1' }, { refused: 'baseUrl' }],
  ['0.0.0.0', { provider: 'lmstudio', model: 'x', baseUrl: 'http://0.0.0.0:1234/v1' }, { refused: 'baseUrl' }],
  [
    'decimal IPv4',
    { provider: 'custom', model: 'x', baseUrl: 'http://2130706433:1234/v1', apiKeyEnv: 'OPENAI_API_KEY' },
    { refused: 'baseUrl' },
  ],
  ['localhost.', { provider: 'custom', model: 'x', baseUrl: 'http://localhost.:1234/v1' }, { refused: 'baseUrl' }],
  [
    'the preset URL itself',
    { provider: 'custom', model: 'x', baseUrl: 'http://127.0.0.1:1234/v1', apiKeyEnv: 'OPENAI_API_KEY' },
    { refused: 'baseUrl' },
  ],
  [
    'the metadata address',
    { provider: 'custom', model: 'x', baseUrl: 'http://169.254.169.254/v1' },
    { refused: 'baseUrl' },
  ],
];

describe('endpoint and key are declared together', () => {
  let home: string;
  let defaults: ProviderDefaults;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'herald-pairs-'));
    writeFileSync(join(home, 'config.yaml'), WORKER_CONFIG);
    defaults = loadConfig({ HERALD_HOME: home }).providerDefaults;
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  for (const [what, request, outcome] of CASES) {
    it(`${what}: ${'refused' in outcome ? `refused, naming ${outcome.refused}` : `key ${outcome.key || '(none)'}`}`, () => {
      if ('refused' in outcome) {
        assert.throws(
          () => resolveProvider(request, defaults),
          (err: unknown) => err instanceof ProviderResolutionError && err.field === outcome.refused,
        );
        return;
      }
      const ref = resolveProvider(request, defaults);
      assert.equal(ref.apiKeyEnv, outcome.key);
      if (outcome.key === NO_KEY) assert.equal(ref.credentialPool, undefined);
      if (outcome.url) assert.equal(ref.baseUrl, outcome.url);
      assert.ok(endpointKeyVerdict(ref, defaults).ok, 'what resolution gives passes the second look');
    });
  }

  it('a pool is judged key by key', () => {
    const ref = resolveProvider({ provider: 'openrouter', model: 'x' }, defaults);
    assert.deepEqual(ref.credentialPool, ['ROUTER_A', 'ROUTER_B']);
    const mixed = { ...ref, credentialPool: ['ROUTER_A', 'OPENAI_API_KEY'] };
    const verdict = endpointKeyVerdict(mixed, defaults);
    assert.ok(!verdict.ok && verdict.problem === 'key' && verdict.keyEnv === 'OPENAI_API_KEY');
  });

  describe('the second look, at carried state, before a client is built', () => {
    const carried = (over: Partial<ProviderRef>): ProviderRef => ({
      provider: 'lmstudio',
      model: 'x',
      apiMode: 'chat_completions',
      baseUrl: 'http://127.0.0.1:1234/v1',
      apiKeyEnv: 'LMSTUDIO_API_KEY',
      ...over,
    });
    const env = { OPENAI_API_KEY: 'sk-worker-openai', LMSTUDIO_API_KEY: 'lm-key' };

    it('a preset URL carrying the OpenAI key is refused, naming apiKeyEnv', () => {
      assert.throws(
        () => resolveApiKey(carried({ apiKeyEnv: 'OPENAI_API_KEY' }), env, defaults),
        (err: unknown) => err instanceof UnpairedEndpointKeyError && err.field === 'apiKeyEnv',
      );
      assert.throws(
        () => openaiClient(carried({ apiKeyEnv: 'OPENAI_API_KEY' }), { env, endpoints: defaults, timeoutMs: 1000 }),
        UnpairedEndpointKeyError,
      );
    });

    it('a pool with one foreign key is refused whichever key is in turn', () => {
      const ref = carried({
        provider: 'openrouter',
        baseUrl: 'https://openrouter.ai/api/v1',
        credentialPool: ['ROUTER_A', 'OPENAI_API_KEY'],
      });
      for (const i of [0, 1]) assert.throws(() => resolveApiKey(ref, env, defaults, i), UnpairedEndpointKeyError);
    });

    it('no key to an endpoint nobody declared (the metadata address) is refused too, naming baseUrl', () => {
      assert.throws(
        () =>
          resolveApiKey(
            carried({ provider: 'custom', baseUrl: 'http://169.254.169.254/v1', apiKeyEnv: NO_KEY }),
            env,
            defaults,
          ),
        (err: unknown) => err instanceof UnpairedEndpointKeyError && err.field === 'baseUrl',
      );
    });

    it('no key to a known endpoint sends the placeholder, never a worker variable', () => {
      assert.equal(resolveApiKey(carried({ apiKeyEnv: NO_KEY }), env, defaults), 'no-key');
      assert.equal(resolveApiKey(carried({}), env, defaults), 'lm-key');
    });

    it('without any declarations only the providers\u2019 standard pairs pass', () => {
      assert.equal(resolveApiKey(carried({}), env, {}), 'lm-key');
      assert.throws(
        () =>
          resolveApiKey(
            carried({ provider: 'vllm', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'VLLM_TOKEN' }),
            env,
            {},
          ),
        UnpairedEndpointKeyError,
      );
    });
  });

  it('the model section pairs its key with the default provider’s endpoint, and with no other', () => {
    const own = mkdtempSync(join(tmpdir(), 'herald-pairs-model-'));
    try {
      writeFileSync(join(own, 'config.yaml'), 'model:\n  provider: lmstudio\n  name: x\n  apiKeyEnv: LM_TOKEN\n');
      const d = loadConfig({ HERALD_HOME: own }).providerDefaults;
      assert.equal(resolveProvider({}, d).apiKeyEnv, 'LM_TOKEN');
      assert.equal(
        resolveProvider({ provider: 'lmstudio', model: 'y', apiKeyEnv: 'LM_TOKEN' }, d).apiKeyEnv,
        'LM_TOKEN',
      );
      assert.throws(
        () => resolveProvider({ provider: 'ollama', model: 'y', apiKeyEnv: 'LM_TOKEN' }, d),
        (err: unknown) => err instanceof ProviderResolutionError && err.field === 'apiKeyEnv',
      );
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('the worker env OPENAI_BASE_URL pairs with OPENAI_API_KEY, as the SDK convention has it', () => {
    const d = loadConfig({ HERALD_HOME: home, OPENAI_BASE_URL: 'http://127.0.0.1:5555/v1' }).providerDefaults;
    assert.equal(
      resolveProvider({ provider: 'custom', model: 'x', apiKeyEnv: 'OPENAI_API_KEY' }, d).baseUrl,
      'http://127.0.0.1:5555/v1',
    );
    // … and still not with another preset's port.
    assert.throws(
      () => resolveProvider({ provider: 'lmstudio', model: 'x', apiKeyEnv: 'OPENAI_API_KEY' }, d),
      ProviderResolutionError,
    );
  });
});

describe('canonical endpoints', () => {
  const SAME: Array<[string, string]> = [
    ['https://api.openai.com/v1', 'https://API.OPENAI.COM/v1/'],
    ['https://api.openai.com/v1', 'https://api.openai.com:443/v1'],
    ['http://127.0.0.1:1234/v1', 'http://2130706433:1234/v1'],
    ['http://127.0.0.1:1234/v1', 'http://0x7f000001:1234/v1'],
    ['http://[::1]:1234/v1', 'http://[0:0:0:0:0:0:0:1]:1234/v1'],
  ];
  const DIFFERENT: Array<[string, string]> = [
    ['http://127.0.0.1:1234/v1', 'http://localhost:1234/v1'],
    ['http://127.0.0.1:1234/v1', 'http://[::1]:1234/v1'],
    ['http://127.0.0.1:1234/v1', 'http://0.0.0.0:1234/v1'],
    ['http://localhost:1234/v1', 'http://localhost.:1234/v1'],
    ['https://api.openai.com/v1', 'http://api.openai.com/v1'],
    ['https://api.openai.com/v1', 'https://api.openai.com/V1'],
    ['https://api.openai.com/v1', 'https://api.openai.com/v1/x'],
  ];
  for (const [a, b] of SAME) it(`${b} is ${a}`, () => assert.equal(canonicalEndpoint(a), canonicalEndpoint(b)));
  for (const [a, b] of DIFFERENT)
    it(`${b} is not ${a}`, () => assert.notEqual(canonicalEndpoint(a), canonicalEndpoint(b)));

  const UNUSABLE = [
    'https://api.openai.com@evil.test/v1',
    'https://u:p@api.openai.com/v1',
    'https://api.openai.com/v1#x',
    'ftp://api.openai.com/v1',
    'file:///etc/passwd',
    'https://api.openai.com/v1 ',
    'https://api.openai.com\\v1',
    'https://api.openai.com/\tv1',
    'not a url',
  ];
  for (const url of UNUSABLE)
    it(`no key may go to ${JSON.stringify(url)}`, () => {
      assert.equal(canonicalEndpoint(url), undefined);
      assert.ok(!judgeEndpointKey(url, [NO_KEY], [{ baseUrl: url, keyEnv: NO_KEY }]).ok);
    });
});

describe('redirects', () => {
  it('a paired endpoint that redirects does not take the key along: the call fails and the target hears nothing', async () => {
    const heard: Array<string | undefined> = [];
    const target = createServer((req, res) => {
      heard.push(req.headers.authorization);
      res.end('{"object":"list","data":[]}');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/v1/models`;
    const redirector = createServer((_req, res) => {
      res.writeHead(307, { location: targetUrl });
      res.end();
    });
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    try {
      const baseUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/v1`;
      const ref: ProviderRef = {
        provider: 'custom',
        model: 'x',
        apiMode: 'chat_completions',
        baseUrl,
        apiKeyEnv: 'PAIRED',
      };
      const endpoints = {
        declared: { baseUrls: [baseUrl], keyEnvs: ['PAIRED'], pairs: [{ baseUrl, keyEnv: 'PAIRED' }] },
      };
      const client = openaiClient(ref, { env: { PAIRED: 'paired-secret' }, endpoints, timeoutMs: 5000 });
      await assert.rejects(client.models.list());
      assert.deepEqual(heard, []);
    } finally {
      target.close();
      redirector.close();
    }
  });
});
