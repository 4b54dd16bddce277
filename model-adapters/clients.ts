/**
 * SDK clients per provider endpoint. Keys are read here, in the worker, from the environment
 * variable the workflow names; they never enter Temporal or the database (docs/providers.md).
 * Clients run with `maxRetries: 0`: Temporal owns retries.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { NO_KEY } from '../common/endpoint-keys.js';
import type { ProviderDefaults, ProviderRef } from '../common/providers.js';
import { endpointKeyVerdict, keyOptional } from '../common/providers.js';

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

/**
 * The call's endpoint and key variable are not a pair this worker declares (common/endpoint-keys.ts),
 * so nothing was sent. Refs are judged when a conversation starts or switches model; this is the
 * second look, right before a client is built, at whatever the carried state names.
 */
export class UnpairedEndpointKeyError extends Error {
  constructor(
    message: string,
    /** The input field the refusal is about. */
    readonly field: 'baseUrl' | 'apiKeyEnv',
  ) {
    super(`${field}: ${message}; nothing was sent`);
    this.name = 'UnpairedEndpointKeyError';
  }
}

/** What a client is built from: the worker's environment and the pairs it declares. */
export interface ClientOptions {
  env: NodeJS.ProcessEnv;
  /** The worker's provider defaults (their `declared` pairs); absent: only the providers' standard pairs. */
  endpoints: Pick<ProviderDefaults, 'declared'>;
  timeoutMs: number;
  /** Which key of the provider's credential pool to use. */
  credentialIndex?: number | undefined;
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

export function resolveApiKey(
  ref: ProviderRef,
  env: NodeJS.ProcessEnv,
  endpoints: Pick<ProviderDefaults, 'declared'>,
  credentialIndex = 0,
): string {
  const verdict = endpointKeyVerdict(ref, endpoints);
  if (!verdict.ok)
    throw new UnpairedEndpointKeyError(verdict.message, verdict.problem === 'key' ? 'apiKeyEnv' : 'baseUrl');
  const name = keyVariable(ref, credentialIndex);
  if (name === NO_KEY) return KEYLESS_PLACEHOLDER;
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

/**
 * The SDKs' fetch, refusing redirects: a key goes to the endpoint it is paired with and nowhere else,
 * and fetch keeps `x-api-key` (Anthropic's header) on a redirect to another host. A model API
 * answers where it is asked; a redirect fails the call (a network error) instead of being followed.
 */
const noRedirectFetch: typeof fetch = (input, init) => fetch(input, { ...init, redirect: 'error' });

/** What both SDKs' clients are built from: no retries of their own (Temporal retries), no redirects. */
type SdkClient<T> = new (o: {
  apiKey: string;
  baseURL: string;
  maxRetries: number;
  timeout: number;
  fetch: typeof fetch;
}) => T;

/** One client per endpoint, key and timeout, kept until the credentials change. */
function sdkClient<T>(Sdk: SdkClient<T>, clients: Map<string, T>, ref: ProviderRef, o: ClientOptions): T {
  const apiKey = resolveApiKey(ref, o.env, o.endpoints, o.credentialIndex);
  return cached(
    clients,
    `${ref.baseUrl}\u0000${apiKey}\u0000${o.timeoutMs}`,
    () => new Sdk({ apiKey, baseURL: ref.baseUrl, maxRetries: 0, timeout: o.timeoutMs, fetch: noRedirectFetch }),
  );
}

export function openaiClient(ref: ProviderRef, o: ClientOptions): OpenAI {
  return sdkClient(OpenAI, openaiClients, ref, o);
}

export function anthropicClient(ref: ProviderRef, o: ClientOptions): Anthropic {
  return sdkClient(Anthropic, anthropicClients, ref, o);
}
