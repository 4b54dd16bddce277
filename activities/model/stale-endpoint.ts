/**
 * A session keeps the endpoint and key variable it resolved when it started (they travel in
 * workflow state), so fixing the worker's config file does not fix a running session. When a call
 * fails and today's configuration would send it elsewhere, the error says so, and what to do.
 */
import type { ProviderDefaults, ProviderRef } from '../../common/providers.js';
import { normalizeBaseUrl, resolveProvider } from '../../common/providers.js';

const MAX_HINT_CHARS = 600;

export function staleEndpointHint(ref: ProviderRef, defaults: ProviderDefaults): string | undefined {
  let now: ProviderRef;
  try {
    now = resolveProvider({ provider: ref.provider, model: ref.model }, defaults);
  } catch {
    return undefined;
  }
  const changes: string[] = [];
  if (normalizeBaseUrl(now.baseUrl) !== normalizeBaseUrl(ref.baseUrl))
    changes.push(`endpoint ${ref.baseUrl} (the worker's configuration now gives ${now.baseUrl})`);
  if (!ref.credentialPool?.length && !now.credentialPool?.length && now.apiKeyEnv !== ref.apiKeyEnv)
    changes.push(`key variable ${ref.apiKeyEnv || '(none)'} (now ${now.apiKeyEnv || '(none)'})`);
  if (!changes.length) return undefined;
  const hint = `this session keeps the ${changes.join(' and the ')} it started with; start a new session (herald chat, or /new) to use the current settings`;
  return hint.length > MAX_HINT_CHARS ? `${hint.slice(0, MAX_HINT_CHARS - 1)}…` : hint;
}
