/**
 * Per-provider cooldowns (docs/providers.md): a provider left for an overload, a rate limit or a
 * billing error is skipped until its cooldown ends, then tried again first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAILURE_REASONS } from '../../common/error-reasons.js';
import {
  MAX_COOLDOWNS,
  MAX_COOLDOWN_MS,
  MIN_COOLDOWN_MS,
  DEFAULT_COOLDOWN_MS,
  clampCooldownMs,
  coolingView,
  coolsDown,
  firstAvailable,
  isCoolingDown,
  withCooldown,
} from '../../common/provider-cooldown.js';
import type { ProviderRef } from '../../common/providers.js';

const ref = (model: string): ProviderRef => ({
  provider: 'custom',
  model,
  apiMode: 'chat_completions',
  baseUrl: 'http://127.0.0.1:1/v1',
  apiKeyEnv: 'CUSTOM_API_KEY',
});
const primary = ref('primary');
const backup = ref('backup');
const third = ref('third');

describe('provider cooldowns', () => {
  it('cool a provider down after overloaded, rate_limit and billing only', () => {
    const cooling = FAILURE_REASONS.filter((r) => coolsDown(r));
    assert.deepEqual(cooling.sort(), ['billing', 'overloaded', 'rate_limit']);
  });

  it('expire: the primary is skipped during its cooldown and first again after it', () => {
    const c = withCooldown({}, primary, 1000, 5000);
    const chain = [primary, backup, third];
    assert.equal(firstAvailable(chain, c, 1000), 1);
    assert.equal(firstAvailable(chain, c, 5999), 1);
    assert.equal(firstAvailable(chain, c, 6000), 0);
    assert.equal(isCoolingDown(c, primary, 5999), true);
    assert.equal(isCoolingDown(c, backup, 1000), false);
  });

  it('belong to each endpoint: a cooling fallback is passed over too', () => {
    let c = withCooldown({}, primary, 0, 10_000);
    c = withCooldown(c, backup, 0, 10_000);
    assert.equal(firstAvailable([primary, backup, third], c, 1), 2);
  });

  it('start on the primary when every provider is cooling down', () => {
    let c = withCooldown({}, primary, 0, 10_000);
    c = withCooldown(c, backup, 0, 20_000);
    assert.equal(firstAvailable([primary, backup], c, 1), 0);
  });

  it('drop expired entries and stay bounded', () => {
    let c = {};
    for (let i = 0; i < 40; i++) c = withCooldown(c, ref(`m${i}`), i, 100_000);
    assert.equal(Object.keys(c).length, MAX_COOLDOWNS);
    assert.ok(isCoolingDown(c, ref('m39'), 40), 'the newest is kept');
    c = withCooldown(c, primary, 500_000, 1000);
    assert.deepEqual(Object.keys(c).length, 1, 'expired entries are gone');
  });

  it('clamp a configured duration to its bounds', () => {
    assert.equal(clampCooldownMs(undefined), DEFAULT_COOLDOWN_MS);
    assert.equal(clampCooldownMs(Number.NaN), DEFAULT_COOLDOWN_MS);
    assert.equal(clampCooldownMs(1), MIN_COOLDOWN_MS);
    assert.equal(clampCooldownMs(1e12), MAX_COOLDOWN_MS);
    assert.equal(clampCooldownMs(2500), 2500);
  });

  it('show what is cooling down and for how long', () => {
    const c = withCooldown({}, primary, 0, 30_000);
    assert.deepEqual(coolingView(c, 10_000), [{ provider: 'custom', model: 'primary', secondsLeft: 20 }]);
    assert.deepEqual(coolingView(c, 30_000), []);
  });
});
