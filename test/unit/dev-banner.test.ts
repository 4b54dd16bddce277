/**
 * `herald dev`'s banner says which provider, model and base URL a conversation will use, whether
 * its key is set (never the key), and which config file was read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayBaseUrl, providerLines, providerSummary } from '../../workers/dev-banner.js';
import { loadConfig } from '../../runtime/config.js';

const lines = (env: Record<string, string>) => {
  const cfg = loadConfig({ HERALD_HOME: '/nonexistent/home', ...env });
  return providerLines(providerSummary(cfg.providerDefaults, env), cfg.configPath, cfg.home).join('\n');
};

describe('dev banner', () => {
  it('names provider, model, base URL and key presence, never the key', () => {
    const out = lines({ OPENAI_API_KEY: 'sk-secret-value-1234567890' });
    assert.match(out, /Provider: +openai · model gpt-4\.1 · https:\/\/api\.openai\.com\/v1 \(chat_completions\)/);
    assert.match(out, /Key: +OPENAI_API_KEY is set/);
    assert.doesNotMatch(out, /sk-secret/);
    assert.match(out, /Config: +none \(no \/nonexistent\/home\/config\.yaml/);
  });

  it('warns when the key is missing, except for a custom endpoint', () => {
    assert.match(lines({ HERALD_PROVIDER: 'anthropic' }), /⚠ ANTHROPIC_API_KEY is NOT SET/);
    const custom = lines({ OPENAI_BASE_URL: 'http://localhost:11434/v1', HERALD_MODEL: 'qwen' });
    assert.match(custom, /custom · model qwen · http:\/\/localhost:11434\/v1/);
    assert.match(custom, /OPENAI_API_KEY is not set \(fine for a local server/);
  });

  it('says why the default provider does not resolve', () => {
    assert.match(
      lines({ HERALD_PROVIDER: 'custom', HERALD_MODEL: 'm' }),
      /Provider: +⚠ provider "custom" needs a base URL/,
    );
  });

  it('prints base URLs without credentials', () => {
    assert.equal(
      displayBaseUrl('https://user:pw@gw.example/v1?key=abc&x=1'),
      'https://***:***@gw.example/v1?key=***&x=***',
    );
    assert.equal(displayBaseUrl('http://127.0.0.1:1234/v1'), 'http://127.0.0.1:1234/v1');
  });
});
