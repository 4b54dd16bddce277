/**
 * The active provider of a turn (docs/providers.md): turn-scoped fallback through the ordered chain, a
 * cooldown on the primary after rate limits and billing errors, and credential-pool rotation.
 */
import { log } from '@temporalio/workflow';
import type { FailureReason } from '../common/error-reasons.js';
import type { ProviderRef } from '../common/providers.js';
import { providerLabel } from '../common/providers.js';
import { PRIMARY_COOLDOWN_MS, cooldownAfter } from '../common/recovery.js';
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

/** Turn start: back on the primary, unless it is cooling down. Returns the chain position. */
export function startTurnOnPrimary(s: ConversationState): number {
  if (Date.now() >= s.primaryCooldownUntil || sameEndpoint(s.provider, s.primary)) {
    s.provider = s.primary;
    return 0;
  }
  const at = s.fallbacks.findIndex((f) => sameEndpoint(f, s.provider));
  return at + 1;
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
 * Switch to the next fallback after `chainPos`; returns the new position. Leaving the primary for
 * a rate limit or billing error starts its cooldown.
 */
export async function switchToFallback(
  s: ConversationState,
  chainPos: number,
  reason: string,
  turnId: string,
): Promise<number> {
  let pos = chainPos;
  while (pos < s.fallbacks.length && sameEndpoint(s.fallbacks[pos]!, s.provider)) pos += 1;
  const next = s.fallbacks[pos];
  if (!next) return pos;
  const from = s.provider;
  if (sameEndpoint(from, s.primary) && cooldownAfter(reason as FailureReason))
    s.primaryCooldownUntil = Date.now() + PRIMARY_COOLDOWN_MS;
  s.provider = next;
  s.lastPromptTokens = 0;
  const message = `switched from ${providerLabel(from)} to ${providerLabel(next)} (${reason}); the next turn starts on the primary again`;
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
