/**
 * Per-provider cooldowns (docs/providers.md): a provider the chain left because it was overloaded,
 * rate limited or out of credit is skipped until its cooldown ends, then tried again. A cooldown
 * belongs to one endpoint (provider, model, base URL), not to "the primary", and it always expires:
 * one bad minute at a provider never costs it the rest of the session. Pure: the workflow passes
 * its own clock.
 */
import type { FailureReason } from './error-reasons.js';
import type { ProviderRef } from './providers.js';

/** How long a provider is skipped after it was left for one of the reasons below, unless configured. */
export const DEFAULT_COOLDOWN_MS = 60_000;
/** Bounds of the configurable cooldown: long enough to matter, short enough to come back the same day. */
export const MIN_COOLDOWN_MS = 1_000;
export const MAX_COOLDOWN_MS = 6 * 3_600_000;
/** Entries kept at most (the chain has at most 1 + 8 endpoints; a model switch adds one more). */
export const MAX_COOLDOWNS = 16;

/** Endpoint → workflow time (ms) until which it is skipped. */
export type Cooldowns = Record<string, number>;

/** Leaving a provider for these reasons cools it down: each one passes with time, not with a retry. */
const COOLING_REASONS: ReadonlySet<FailureReason> = new Set(['rate_limit', 'billing', 'overloaded']);

export function coolsDown(reason: FailureReason): boolean {
  return COOLING_REASONS.has(reason);
}

export function endpointKey(ref: Pick<ProviderRef, 'provider' | 'model' | 'baseUrl'>): string {
  return `${ref.provider}|${ref.model}|${ref.baseUrl ?? ''}`;
}

export function isCoolingDown(cooldowns: Cooldowns | undefined, ref: ProviderRef, now: number): boolean {
  const until = cooldowns?.[endpointKey(ref)];
  return until !== undefined && now < until;
}

/** The cooldown durations a configuration may ask for, clamped to the bounds above. */
export function clampCooldownMs(ms: number | undefined): number {
  if (ms === undefined || !Number.isFinite(ms)) return DEFAULT_COOLDOWN_MS;
  return Math.min(MAX_COOLDOWN_MS, Math.max(MIN_COOLDOWN_MS, Math.round(ms)));
}

/** The cooldowns after `ref` was left at `now`: expired entries dropped, at most MAX_COOLDOWNS kept. */
export function withCooldown(cooldowns: Cooldowns | undefined, ref: ProviderRef, now: number, ms: number): Cooldowns {
  const live = Object.entries(cooldowns ?? {}).filter(([, until]) => until > now);
  const key = endpointKey(ref);
  const rest = live.filter(([k]) => k !== key).sort((a, b) => b[1] - a[1]);
  return Object.fromEntries([[key, now + ms], ...rest.slice(0, MAX_COOLDOWNS - 1)]);
}

/**
 * Where a turn starts in the chain [primary, ...fallbacks]: the first endpoint not cooling down.
 * When every one is cooling down, the primary (a provider in cooldown still beats no provider).
 */
export function firstAvailable(chain: readonly ProviderRef[], cooldowns: Cooldowns | undefined, now: number): number {
  const at = chain.findIndex((ref) => !isCoolingDown(cooldowns, ref, now));
  return at < 0 ? 0 : at;
}

/** What `state` shows: each endpoint still cooling down and for how many more seconds. */
export function coolingView(
  cooldowns: Cooldowns | undefined,
  now: number,
): Array<{ provider: string; model: string; secondsLeft: number }> {
  return Object.entries(cooldowns ?? {})
    .filter(([, until]) => until > now)
    .map(([key, until]) => {
      const [provider = '', model = ''] = key.split('|');
      return { provider, model, secondsLeft: Math.ceil((until - now) / 1000) };
    });
}
