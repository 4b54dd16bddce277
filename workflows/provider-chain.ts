/**
 * The active provider of a turn (docs/providers.md): turn-scoped fallback through the ordered chain,
 * a cooldown on each provider left for an overload, a rate limit or a billing error (it expires: the
 * provider is tried again after it), and credential-pool rotation.
 */
import { log } from '@temporalio/workflow';
import type { FailureReason } from '../common/error-reasons.js';
import type { ProviderRef } from '../common/providers.js';
import { providerLabel } from '../common/providers.js';
import {
  DEFAULT_COOLDOWN_MS,
  coolsDown,
  firstAvailable,
  isCoolingDown,
  withCooldown,
} from '../common/provider-cooldown.js';
import { storeStep } from './activities.js';
import type { ConversationState } from './state.js';
import { chainFailureMessage as listChainFailures } from '../common/chain-failure.js';

const sameEndpoint = (a: ProviderRef, b: ProviderRef) =>
  a.provider === b.provider && a.model === b.model && a.baseUrl === b.baseUrl;

/** Credential pools are per provider endpoint. */
export function poolKey(ref: ProviderRef): string {
  return `${ref.provider}|${ref.baseUrl}`;
}

export function credentialIndexOf(s: ConversationState, ref: ProviderRef = s.provider): number {
  return s.credentialIndex[poolKey(ref)] ?? 0;
}

export function poolSizeOf(ref: ProviderRef): number {
  return ref.credentialPool?.length ?? 1;
}

/**
 * Turn start: the first provider of the chain not cooling down, the primary as soon as its
 * cooldown has ended. Returns the chain position (0 = the primary; n = after fallback n).
 */
export function startTurnOnPrimary(s: ConversationState): number {
  const at = firstAvailable([s.primary, ...s.fallbacks], s.cooldowns, Date.now());
  s.provider = at === 0 ? s.primary : s.fallbacks[at - 1]!;
  return at;
}

/**
 * A context window learned from the provider (an overflow error that stated its limit) belongs
 * to that endpoint for the rest of the conversation: the primary and the fallback entries for it
 * keep it, so the next turn, which starts on the primary again, does not forget it.
 */
export function rememberContextLength(s: ConversationState, contextLength: number): void {
  const learn = (p: ProviderRef) => (sameEndpoint(p, s.provider) ? { ...p, contextLength } : p);
  s.provider = { ...s.provider, contextLength };
  s.primary = learn(s.primary);
  s.fallbacks = s.fallbacks.map(learn);
}

/** Fallbacks left after position `chainPos`, not counting ones identical to the current provider. */
export function fallbacksLeft(s: ConversationState, chainPos: number): number {
  return s.fallbacks.slice(chainPos).filter((f) => !sameEndpoint(f, s.provider)).length;
}

/**
 * Switch to the next fallback after `chainPos`; returns the new position. Fallbacks still cooling
 * down are passed over while one that is not remains. Leaving a provider for an overload, a rate
 * limit or a billing error starts that provider's cooldown.
 */
export async function switchToFallback(
  s: ConversationState,
  chainPos: number,
  reason: string,
  turnId: string,
): Promise<number> {
  const now = Date.now();
  const candidates = (skipCooling: boolean) => {
    let pos = chainPos;
    while (
      pos < s.fallbacks.length &&
      (sameEndpoint(s.fallbacks[pos]!, s.provider) ||
        (skipCooling && isCoolingDown(s.cooldowns, s.fallbacks[pos]!, now)))
    )
      pos += 1;
    return pos;
  };
  const warm = candidates(true);
  const pos = warm < s.fallbacks.length ? warm : candidates(false);
  const next = s.fallbacks[pos];
  if (!next) return pos;
  const from = s.provider;
  const cooldownMs = s.cooldownMs ?? DEFAULT_COOLDOWN_MS;
  const cooling = coolsDown(reason as FailureReason);
  if (cooling) s.cooldowns = withCooldown(s.cooldowns, from, now, cooldownMs);
  s.provider = next;
  s.lastPromptTokens = 0;
  const after = cooling
    ? `${providerLabel(from)} is skipped for ${Math.round(cooldownMs / 1000)} s, then tried again`
    : 'the next turn starts on the primary again';
  const message = `switched from ${providerLabel(from)} to ${providerLabel(next)} (${reason}); ${after}`;
  log.info(message);
  await storeStep('publishStatus', {
    conversationId: s.conversationId,
    turnId,
    kind: 'fallback',
    message,
    details: { from: providerLabel(from), to: providerLabel(next), reason },
  });
  return pos + 1;
}

/** Use the next key of the current provider's pool. */
export async function rotateCredential(s: ConversationState, reason: string, turnId: string): Promise<void> {
  const key = poolKey(s.provider);
  const size = poolSizeOf(s.provider);
  s.credentialIndex[key] = ((s.credentialIndex[key] ?? 0) + 1) % size;
  await storeStep('publishStatus', {
    conversationId: s.conversationId,
    turnId,
    kind: 'credential_rotated',
    message: `${s.provider.provider}: switched to key ${(s.credentialIndex[key] ?? 0) + 1} of ${size} (${reason})`,
  });
}

/** Why one provider of the chain failed (what a fallback chain's final error lists). */
export interface ProviderError {
  provider: string;
  model: string;
  reason: string;
  message: string;
}

/** Providers listed at most, and characters of each message: the final error stays one readable paragraph. */
const MAX_PROVIDER_ERRORS = 8;
const MAX_PROVIDER_MESSAGE_CHARS = 300;

export function noteProviderError(errors: ProviderError[], ref: ProviderRef, reason: string, message: string): void {
  if (errors.length >= MAX_PROVIDER_ERRORS) return;
  const flat = message.replace(/\s+/g, ' ').trim();
  errors.push({
    provider: ref.provider,
    model: ref.model,
    reason,
    message: flat.length > MAX_PROVIDER_MESSAGE_CHARS ? `${flat.slice(0, MAX_PROVIDER_MESSAGE_CHARS - 1)}…` : flat,
  });
}

/** "every provider failed (2): 1. openai/gpt-x (primary): auth: …; 2. …", bounded (common/chain-failure.ts). */
export function chainFailureMessage(errors: readonly ProviderError[]): string {
  return listChainFailures(errors);
}
