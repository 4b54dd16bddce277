/** Cost of a model call from per-million-token prices (the usage ledger, docs/cli.md). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelPricing, RawTokens } from '../../shared/pricing.js';
import { findPricing, priceUsage } from '../../shared/pricing.js';

const tokens: RawTokens = {
  input: 1_000_000,
  output: 500_000,
  cacheRead: 200_000,
  cacheWrite: 100_000,
  reasoning: 40_000,
};

describe('priceUsage', () => {
  it('prices every token kind with explicit cache prices', () => {
    const u = priceUsage(tokens, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    // 1M·3 + 0.5M·15 + 0.2M·0.3 + 0.1M·3.75 = 3 + 7.5 + 0.06 + 0.375
    assert.equal(u.cost_usd, 10.935);
    assert.deepEqual(
      { ...u, cost_usd: 0 },
      {
        input_tokens: 1_000_000,
        output_tokens: 500_000,
        cache_read_tokens: 200_000,
        cache_write_tokens: 100_000,
        reasoning_tokens: 40_000,
        total_tokens: 1_800_000,
        cost_usd: 0,
      },
    );
  });

  it('defaults cache reads to the input price and cache writes to 1.25× input', () => {
    // 3 + 7.5 + 0.2·3 + 0.1·3.75
    assert.equal(priceUsage(tokens, { input: 3, output: 15 }).cost_usd, 11.475);
  });

  it('rounds small costs to a micro-dollar', () => {
    const u = priceUsage(
      { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      { input: 0.15, output: 0.6 },
    );
    assert.equal(u.cost_usd, 0.000001);
  });

  it('costs nothing without pricing but still counts tokens', () => {
    const u = priceUsage(tokens, undefined);
    assert.equal(u.cost_usd, 0);
    assert.equal(u.total_tokens, 1_800_000);
  });
});

describe('findPricing', () => {
  const table: Record<string, ModelPricing> = {
    'gpt-4.1': { input: 2, output: 8 },
    'openrouter-special/gpt-4.1': { input: 9, output: 9 },
  };

  it('finds a model by exact name first', () => {
    assert.deepEqual(findPricing(table, 'gpt-4.1'), { input: 2, output: 8 });
    assert.deepEqual(findPricing(table, 'openrouter-special/gpt-4.1'), { input: 9, output: 9 });
  });

  it('falls back to the name without its vendor prefix', () => {
    assert.deepEqual(findPricing(table, 'openai/gpt-4.1'), { input: 2, output: 8 });
  });

  it('returns undefined for unknown models', () => {
    assert.equal(findPricing(table, 'claude-sonnet-4-5'), undefined);
    assert.equal(findPricing({}, 'anthropic/claude'), undefined);
  });
});
