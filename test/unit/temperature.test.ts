/**
 * Sampling temperature: which setting wins, the local-server default, the value each API mode is
 * sent (over real HTTP against the fake provider), and a model that refuses a temperature.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { dispatchModelCall, refusesTemperature } from '../../model-adapters/dispatch.js';
import type { ModelRequest } from '../../model-adapters/types.js';
import { configFileSchema } from '../../shared/config-schema.js';
import type { ApiMode, ProviderName, ProviderRef } from '../../common/providers.js';
import { LOCAL_DEFAULT_TEMPERATURE, temperatureFor, wireTemperature } from '../../shared/temperature.js';
import type { TemperatureSettings } from '../../shared/temperature.js';
import { recordingSink } from '../support/adapter-helpers.js';
import { FakeProvider } from '../support/fake-provider.js';

const at = (provider: ProviderName, baseUrl: string, model = 'm') => ({ provider, baseUrl, model });

describe('temperatureFor', () => {
  const none: TemperatureSettings = { model: {}, providers: {} };

  it('sends nothing to a hosted provider unless configured', () => {
    assert.equal(temperatureFor(none, at('openai', 'https://api.openai.com/v1')), undefined);
    assert.equal(temperatureFor(none, at('anthropic', 'https://api.anthropic.com')), undefined);
    assert.equal(temperatureFor(none, at('custom', 'https://llm.example.com/v1')), undefined);
  });

  it('gives local presets and loopback custom endpoints the low default', () => {
    for (const p of ['llamacpp', 'ollama', 'vllm', 'lmstudio'] as const)
      assert.equal(temperatureFor(none, at(p, 'http://10.0.0.5:8080/v1')), LOCAL_DEFAULT_TEMPERATURE, p);
    assert.equal(temperatureFor(none, at('custom', 'http://localhost:8080/v1')), LOCAL_DEFAULT_TEMPERATURE);
    assert.equal(temperatureFor(none, at('custom', 'http://127.0.0.1:11434/v1')), LOCAL_DEFAULT_TEMPERATURE);
    assert.equal(temperatureFor(none, at('custom', 'http://[::1]:8000/v1')), LOCAL_DEFAULT_TEMPERATURE);
    assert.ok(LOCAL_DEFAULT_TEMPERATURE > 0 && LOCAL_DEFAULT_TEMPERATURE < 0.8);
  });

  it('model, then provider, then the model section, then the local default', () => {
    const file: TemperatureSettings = {
      model: { temperature: 0.7 },
      providers: { llamacpp: { temperature: 0.5, models: { coder: { temperature: 0 } } }, openai: {} },
    };
    assert.equal(temperatureFor(file, at('llamacpp', 'http://127.0.0.1:8080/v1', 'coder')), 0);
    assert.equal(temperatureFor(file, at('llamacpp', 'http://127.0.0.1:8080/v1', 'other')), 0.5);
    assert.equal(temperatureFor(file, at('openai', 'https://api.openai.com/v1')), 0.7);
    assert.equal(temperatureFor(file, at('ollama', 'http://127.0.0.1:11434/v1')), 0.7);
  });

  it('is clamped to what each API mode takes', () => {
    assert.equal(wireTemperature('chat_completions', 1.5), 1.5);
    assert.equal(wireTemperature('codex_responses', 1.5), 1.5);
    assert.equal(wireTemperature('anthropic_messages', 1.5), 1);
    assert.equal(wireTemperature('anthropic_messages', 0.2), 0.2);
    assert.equal(wireTemperature('anthropic_messages', undefined), undefined);
  });

  it('is validated in the config file at all three levels', () => {
    const parsed = configFileSchema.parse({
      model: { temperature: 0.3 },
      providers: { ollama: { temperature: 0.1, models: { 'qwen2.5-coder': { temperature: 0 } } } },
    });
    assert.equal(parsed.model.temperature, 0.3);
    assert.equal(parsed.providers.ollama?.temperature, 0.1);
    assert.equal(parsed.providers.ollama?.models?.['qwen2.5-coder']?.temperature, 0);
    assert.equal(configFileSchema.safeParse({ model: { temperature: 2.5 } }).success, false);
    assert.equal(configFileSchema.safeParse({ providers: { vllm: { temperature: -1 } } }).success, false);
  });
});

describe('temperature on the wire', () => {
  let fake: FakeProvider;
  before(async () => {
    fake = await FakeProvider.start();
  });
  after(async () => {
    await fake.stop();
  });
  beforeEach(() => {
    fake.reset();
  });

  const ref = (apiMode: ApiMode, model: string): ProviderRef => ({
    provider: apiMode === 'anthropic_messages' ? 'anthropic' : 'custom',
    model,
    apiMode,
    baseUrl: apiMode === 'anthropic_messages' ? fake.anthropicUrl : fake.url,
    apiKeyEnv: 'FAKE_KEY',
  });
  const request = (model: string, temperature?: number): ModelRequest => ({
    model,
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    maxOutputTokens: 64,
    temperature,
  });
  const call = (apiMode: ApiMode, model: string, temperature?: number) =>
    dispatchModelCall(
      ref(apiMode, model),
      request(model, temperature),
      { signal: new AbortController().signal, sink: recordingSink() },
      {
        env: { FAKE_KEY: 'k' },
        endpoints: {
          declared: {
            baseUrls: [],
            keyEnvs: [],
            pairs: [fake.url, fake.anthropicUrl].map((baseUrl) => ({ baseUrl, keyEnv: 'FAKE_KEY' })),
          },
        },
        timeoutMs: 10_000,
      },
    );

  for (const mode of ['chat_completions', 'codex_responses', 'anthropic_messages'] as const) {
    it(`${mode}: sent when set, absent when not`, async () => {
      fake.script([{ text: 'a' }, { text: 'b' }]);
      await call(mode, `t-${mode}`, 0.2);
      await call(mode, `t-${mode}`);
      assert.equal(fake.requests[0]!.body.temperature, 0.2);
      assert.equal('temperature' in fake.requests[1]!.body, false);
    });
  }

  it('anthropic_messages: a temperature above 1 is sent as 1', async () => {
    fake.script([{ text: 'a' }]);
    await call('anthropic_messages', 'claude-hot', 1.6);
    assert.equal(fake.requests[0]!.body.temperature, 1);
  });

  it('a model that refuses a temperature is asked again without it, and not sent one again', async () => {
    fake.respond((req) =>
      'temperature' in req.body
        ? {
            status: 400,
            error: { message: "Unsupported parameter: 'temperature' is not supported with this model." },
          }
        : { text: 'fine' },
    );
    const r = await call('codex_responses', 'reasoner', 0.2);
    assert.equal(r.content, 'fine');
    await call('codex_responses', 'reasoner', 0.2);
    assert.deepEqual(
      fake.requests.map((q) => 'temperature' in q.body),
      [true, false, false],
    );
  });

  it('other 400s are not taken for a refused temperature', async () => {
    fake.script([{ status: 400, error: { message: 'messages: field required' } }]);
    await assert.rejects(call('chat_completions', 'strict', 0.2));
    assert.equal(fake.requests.length, 1);
    assert.equal(refusesTemperature({ status: 400, message: 'temperature must be between 0 and 2' }), false);
    assert.equal(
      refusesTemperature({
        status: 400,
        message:
          "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
      }),
      true,
    );
  });
});
