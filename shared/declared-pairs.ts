/**
 * The (endpoint, key variable) pairs a worker declares: whatever its own configuration resolves to.
 * Every provider resolved with nothing asked (the environment's OPENAI_BASE_URL / ANTHROPIC_BASE_URL,
 * the `model` section for the default provider, `providers.<name>`), and every model choice the
 * config file spells out (`fallbackProviders`, `auxiliary` and its fallbacks, `delegation.model`).
 * So the worker's own settings keep working exactly as before, and a caller can only pick among
 * them — never combine one declaration's endpoint with another's key. Pure.
 */
import type { EndpointKeyPair } from '../common/endpoint-keys.js';
import type { ProviderDefaults, ProviderRequest } from '../common/providers.js';
import { PROVIDER_NAMES, resolveProvider } from '../common/providers.js';

/** A model name for resolving a provider whose model does not matter (endpoints and keys are per provider). */
const ANY_MODEL = 'any-model';

export function declaredPairs(defaults: ProviderDefaults, choices: readonly ProviderRequest[]): EndpointKeyPair[] {
  const own: ProviderDefaults = { ...defaults };
  delete own.declared;
  const requests: ProviderRequest[] = [
    ...PROVIDER_NAMES.map((provider) => ({ provider, model: ANY_MODEL })),
    ...choices,
  ];
  const pairs: EndpointKeyPair[] = [];
  const seen = new Set<string>();
  for (const req of requests) {
    let ref;
    try {
      ref = resolveProvider(req, own);
    } catch {
      continue; // `custom` with no base URL anywhere: nothing to declare
    }
    for (const keyEnv of ref.credentialPool?.length ? ref.credentialPool : [ref.apiKeyEnv]) {
      const id = `${ref.baseUrl}\u0000${keyEnv}`;
      if (seen.has(id)) continue;
      seen.add(id);
      pairs.push({ baseUrl: ref.baseUrl, keyEnv });
    }
  }
  return pairs;
}
