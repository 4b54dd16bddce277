/**
 * SDK clients per provider endpoint. Keys are read here, in the worker, from the environment
 * variable the workflow names; they never enter Temporal or the database (SPEC §1.5).
 * Clients run with `maxRetries: 0`: Temporal owns retries.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { keyOptional, type ProviderRef } from '../../common/providers.js';

/**
 * No key is set for a call, so nothing was sent: the message says which variable is empty and
 * which config keys name another one (not "the provider rejected the credentials").
 */
export class MissingCredentialError extends Error {
  constructor(
    readonly envName: string,
    provider: string,
    /** The variable is one of a credential pool (`providers.<name>.credentialPool`). */
    pooled = false,
  ) {
    const where = pooled
      ? `or change providers.${provider}.credentialPool in the config file`
      : `or name another variable with providers.${provider}.apiKeyEnv (model.apiKeyEnv for the default model) in the config file`;
    super(
      `no API key for provider "${provider}": ${envName} is not set in the worker's environment, so nothing was sent; set ${envName} where the worker runs (and restart it), ${where}`,
    );
    this.name = 'MissingCredentialError';
  }
}

const openaiClients = new Map<string, OpenAI>();
const anthropicClients = new Map<string, Anthropic>();

/** Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM, LM Studio) usually need no key at all. */
const KEYLESS_PLACEHOLDER = 'no-key';

/** The environment variable holding the key in use: the pool entry at `credentialIndex`, else `apiKeyEnv`. */
export function keyVariable(ref: ProviderRef, credentialIndex = 0): string {
  const pool = ref.credentialPool;
  return pool?.length ? pool[credentialIndex % pool.length]! : ref.apiKeyEnv;
}

export function resolveApiKey(ref: ProviderRef, env: NodeJS.ProcessEnv, credentialIndex = 0): string {
  const name = keyVariable(ref, credentialIndex);
  const key = env[name];
  if (key) return key;
  if (keyOptional(ref.provider)) return KEYLESS_PLACEHOLDER;
  throw new MissingCredentialError(name, ref.provider, Boolean(ref.credentialPool?.length));
}

/** Forget cached clients (after a credential refresh). */
export function clearClients(): void {
  openaiClients.clear();
  anthropicClients.clear();
}

function cached<T>(map: Map<string, T>, key: string, make: () => T): T {
  let client = map.get(key);
  if (!client) {
    client = make();
    map.set(key, client);
  }
  return client;
}

export function openaiClient(ref: ProviderRef, env: NodeJS.ProcessEnv, timeoutMs: number, credentialIndex = 0): OpenAI {
  const apiKey = resolveApiKey(ref, env, credentialIndex);
  return cached(
    openaiClients,
    `${ref.baseUrl}\u0000${apiKey}\u0000${timeoutMs}`,
    () => new OpenAI({ apiKey, baseURL: ref.baseUrl, maxRetries: 0, timeout: timeoutMs }),
  );
}

export function anthropicClient(
  ref: ProviderRef,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  credentialIndex = 0,
): Anthropic {
  const apiKey = resolveApiKey(ref, env, credentialIndex);
  return cached(
    anthropicClients,
    `${ref.baseUrl}\u0000${apiKey}\u0000${timeoutMs}`,
    () => new Anthropic({ apiKey, baseURL: ref.baseUrl, maxRetries: 0, timeout: timeoutMs }),
  );
}
