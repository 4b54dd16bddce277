/**
 * Provider names, API modes and how a model call's API mode is resolved (docs/providers.md).
 * Pure: the worker supplies defaults from its environment, the workflow carries the result.
 */
import type { EndpointKeyPair, EndpointKeyVerdict } from './endpoint-keys.js';
import { NO_KEY, judgeEndpointKey } from './endpoint-keys.js';
import { isLoopbackHost } from './loopback.js';

export const PROVIDER_NAMES = [
  'openai',
  'openrouter',
  'anthropic',
  'openai-codex',
  'custom',
  'ollama',
  'vllm',
  'llamacpp',
  'lmstudio',
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Local model servers with a preset: OpenAI-compatible chat completions on their default port, no key needed. */
export const LOCAL_PROVIDERS = ['ollama', 'vllm', 'llamacpp', 'lmstudio'] as const;
export type LocalProviderName = (typeof LOCAL_PROVIDERS)[number];

export function isLocalProvider(provider: string): provider is LocalProviderName {
  return (LOCAL_PROVIDERS as readonly string[]).includes(provider);
}

/** Providers whose calls go out without a key when none is set (local servers usually run without auth). */
export function keyOptional(provider: ProviderName): boolean {
  return provider === 'custom' || isLocalProvider(provider);
}

export const API_MODES = ['chat_completions', 'codex_responses', 'anthropic_messages'] as const;
export type ApiMode = (typeof API_MODES)[number];

/**
 * What the workflow knows about the provider of a model call: names and references only.
 * The key itself is read from `apiKeyEnv` inside the worker and never enters Temporal (docs/providers.md).
 */
export interface ProviderRef {
  provider: ProviderName;
  model: string;
  apiMode: ApiMode;
  baseUrl: string;
  /**
   * Name of the environment variable holding the key, read by the worker; NO_KEY (empty): the call
   * sends a placeholder (a local server whose endpoint no key is paired with).
   */
  apiKeyEnv: string;
  /** A credential pool: several key variables for this provider, rotated on rate limits and billing errors. */
  credentialPool?: string[];
  /** The model's context window when known (tokens). */
  contextLength?: number;
  /** The model's output cap (tokens). */
  maxOutputTokens?: number;
  /**
   * The caller named no endpoint, key variable or API mode: they came from the worker's
   * configuration, and every call takes them from the configuration of the worker making it, so a
   * corrected config file (and a restarted worker) fixes running sessions too. Absent: pinned.
   */
  fromWorker?: boolean;
}

/** Per-model settings from the config file. */
export interface ModelSettings {
  contextLength?: number | undefined;
  maxOutputTokens?: number | undefined;
}

/** Per-provider settings from the config file (`providers.<name>`). */
export interface ProviderSettings {
  apiMode?: ApiMode | undefined;
  baseUrl?: string | undefined;
  apiKeyEnv?: string | undefined;
  credentialPool?: string[] | undefined;
  models?: Record<string, ModelSettings> | undefined;
}

const DEFAULT_BASE_URLS: Record<ProviderName, string | undefined> = {
  openai: 'https://api.openai.com/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  anthropic: 'https://api.anthropic.com',
  'openai-codex': 'https://api.openai.com/v1',
  custom: undefined,
  ollama: 'http://127.0.0.1:11434/v1',
  vllm: 'http://127.0.0.1:8000/v1',
  llamacpp: 'http://127.0.0.1:8080/v1',
  lmstudio: 'http://127.0.0.1:1234/v1',
};

/**
 * Endpoints a request may name without the worker declaring them: the hosted providers' standard
 * URLs. The local presets' loopback URLs are left out (fail closed): a request must not be able
 * to send a worker's key variable to whatever listens on a local port the worker never named.
 */
const STANDARD_REMOTE_URLS = (Object.entries(DEFAULT_BASE_URLS) as Array<[ProviderName, string | undefined]>)
  .filter(([name, url]) => url !== undefined && !isLocalProvider(name))
  .map(([, url]) => url!);

const DEFAULT_KEY_ENVS: Record<ProviderName, string> = {
  openai: 'OPENAI_API_KEY',
  openrouter: 'OPENROUTER_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-codex': 'OPENAI_API_KEY',
  custom: 'OPENAI_API_KEY',
  // Optional: used when set (a server started with --api-key), else the call goes out keyless.
  ollama: 'OLLAMA_API_KEY',
  vllm: 'VLLM_API_KEY',
  llamacpp: 'LLAMA_API_KEY',
  lmstudio: 'LMSTUDIO_API_KEY',
};

/**
 * Each provider's own (endpoint, key variable) pair: a hosted provider's standard URL with its
 * standard variable, and a local preset's default loopback URL with the preset's own optional
 * variable (named for that server only). Never another provider's variable: OPENAI_API_KEY is
 * paired with api.openai.com, not with LM Studio's port.
 */
export const STANDARD_PAIRS: readonly EndpointKeyPair[] = PROVIDER_NAMES.flatMap((p) => {
  const baseUrl = DEFAULT_BASE_URLS[p];
  return baseUrl ? [{ baseUrl, keyEnv: DEFAULT_KEY_ENVS[p] }] : [];
});

/** Environment defaults the worker resolves against (only URLs and names, never keys). */
export interface ProviderDefaults {
  provider: ProviderName;
  model: string;
  /** `OPENAI_BASE_URL` of the worker's environment (openai and custom). */
  openaiBaseUrl?: string;
  /** `ANTHROPIC_BASE_URL` of the worker's environment (anthropic). */
  anthropicBaseUrl?: string;
  /** The config file's `model.baseUrl`: the default provider's endpoint. */
  modelBaseUrl?: string;
  contextLength?: number;
  maxOutputTokens?: number;
  /** The default provider's key variable (`model.apiKeyEnv` in the config file). */
  apiKeyEnv?: string;
  /** The config file's `providers` table. */
  providers?: Partial<Record<ProviderName, ProviderSettings>>;
  /**
   * Endpoints and key variables the worker declares (config file and environment). A request may
   * only pick among these and the providers' standard ones (docs/endpoints.md): workflow input must not be
   * able to send a worker's variable to a host of its choosing.
   */
  declared?: {
    baseUrls: string[];
    keyEnvs: string[];
    /**
     * The (endpoint, key variable) pairs the worker's configuration resolves to (shared/declared-pairs.ts);
     * with STANDARD_PAIRS, the only pairs a call may use.
     */
    pairs: EndpointKeyPair[];
  };
}

export interface ProviderRequest {
  provider?: ProviderName | undefined;
  model?: string | undefined;
  apiMode?: ApiMode | undefined;
  baseUrl?: string | undefined;
  apiKeyEnv?: string | undefined;
  contextLength?: number | undefined;
}

/** API mode resolution, strongest first: explicit → provider → base URL heuristics → chat_completions. */
export function resolveApiMode(
  provider: ProviderName | undefined,
  baseUrl: string | undefined,
  explicit?: ApiMode,
): ApiMode {
  if (explicit) return explicit;
  if (provider === 'anthropic') return 'anthropic_messages';
  if (provider === 'openai-codex') return 'codex_responses';
  if (provider && isLocalProvider(provider)) return 'chat_completions';
  if (baseUrl && looksLikeAnthropic(baseUrl)) return 'anthropic_messages';
  return 'chat_completions';
}

/**
 * Anthropic's own host (compared as a host, so `api.anthropic.com.attacker.test` or
 * `evil.test/api.anthropic.com` does not match), or an Anthropic-compatible path ending in
 * `/anthropic` (MiniMax, DeepSeek, Kimi, DashScope).
 */
function looksLikeAnthropic(baseUrl: string): boolean {
  const host = hostOf(baseUrl);
  if (host === 'api.anthropic.com') return true;
  return baseUrlPath(baseUrl).endsWith('/anthropic');
}

/** The lower-case host name of a URL, or undefined when it does not parse. */
export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

function baseUrlPath(url: string): string {
  try {
    return new URL(url).pathname.replace(/\/+$/, '').toLowerCase();
  } catch {
    return '';
  }
}

export class ProviderResolutionError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
    this.name = 'ProviderResolutionError';
  }
}

/**
 * Fill a caller's provider request from the worker's defaults. A request that names a provider
 * but no model inherits the default model only when it is the default provider.
 */
export function resolveProvider(req: ProviderRequest, defaults: ProviderDefaults): ProviderRef {
  const provider = req.provider ?? defaults.provider;
  if (defaults.declared) checkDeclared(req, defaults.declared);
  const model = req.model ?? (provider === defaults.provider ? defaults.model : undefined);
  if (!model) throw new ProviderResolutionError(`no model given for provider "${provider}"`, 'model');
  const settings = defaults.providers?.[provider];
  const modelSettings = settings?.models?.[model];
  const isDefault = provider === defaults.provider && model === defaults.model;
  const baseUrl = resolveBaseUrl(req, provider, settings, defaults);
  if (!baseUrl) {
    throw new ProviderResolutionError(
      'provider "custom" needs a base URL: set baseUrl in the input, or OPENAI_BASE_URL (or providers.custom.baseUrl in the config file) on the worker',
      'baseUrl',
    );
  }
  const ref: ProviderRef = {
    provider,
    model,
    apiMode: resolveApiMode(provider, baseUrl, req.apiMode ?? settings?.apiMode),
    baseUrl,
    apiKeyEnv:
      req.apiKeyEnv ??
      settings?.apiKeyEnv ??
      settings?.credentialPool?.[0] ??
      (provider === defaults.provider ? defaults.apiKeyEnv : undefined) ??
      DEFAULT_KEY_ENVS[provider],
  };
  if (!req.apiKeyEnv && settings?.credentialPool?.length) ref.credentialPool = [...settings.credentialPool];
  if (defaults.declared) pairEndpointKey(ref, req, defaults);
  const contextLength =
    req.contextLength ?? modelSettings?.contextLength ?? (isDefault ? defaults.contextLength : undefined);
  if (contextLength !== undefined) ref.contextLength = contextLength;
  const maxOutputTokens = modelSettings?.maxOutputTokens ?? (isDefault ? defaults.maxOutputTokens : undefined);
  if (maxOutputTokens !== undefined) ref.maxOutputTokens = maxOutputTokens;
  return ref;
}

/**
 * A call's endpoint, strongest first: the conversation's own `baseUrl`; the worker's environment
 * (as the README promises: environment variables win over the config file); the file's
 * `model.baseUrl` for the default provider (the `model` section describes the default model, so
 * it is more specific than the per-provider table); `providers.<name>.baseUrl`; the provider's
 * standard URL.
 */
function resolveBaseUrl(
  req: ProviderRequest,
  provider: ProviderName,
  settings: ProviderSettings | undefined,
  defaults: ProviderDefaults,
): string | undefined {
  return (
    req.baseUrl ??
    environmentBaseUrl(provider, defaults) ??
    (provider === defaults.provider ? defaults.modelBaseUrl : undefined) ??
    settings?.baseUrl ??
    DEFAULT_BASE_URLS[provider]
  );
}

/**
 * OPENAI_BASE_URL applies to `custom` and `openai` (as it does for the openai SDK itself);
 * ANTHROPIC_BASE_URL to `anthropic`. Named aggregators keep their own URLs.
 */
function environmentBaseUrl(provider: ProviderName, defaults: ProviderDefaults): string | undefined {
  if (provider === 'custom' || provider === 'openai') return defaults.openaiBaseUrl;
  if (provider === 'anthropic') return defaults.anthropicBaseUrl;
  return undefined;
}

/** Base URLs compare without trailing slashes and with the scheme and host in lower case. */
export function normalizeBaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`.toLowerCase();
  } catch {
    return url.replace(/\/+$/, '').toLowerCase();
  }
}

/**
 * The one decision on a call's endpoint and key (used by every path that resolves a provider:
 * start, fallback entries, the auxiliary model, `/model`, delegated children; and again right
 * before an SDK client is built): its key variables must be paired with its endpoint in
 * STANDARD_PAIRS or the worker's declared pairs.
 */
export function endpointKeyVerdict(
  ref: Pick<ProviderRef, 'baseUrl' | 'apiKeyEnv' | 'credentialPool'>,
  defaults: Pick<ProviderDefaults, 'declared'>,
): EndpointKeyVerdict {
  const keyEnvs = ref.credentialPool?.length ? ref.credentialPool : [ref.apiKeyEnv];
  // No declarations (a caller that built its own defaults): only the providers' standard pairs.
  return judgeEndpointKey(ref.baseUrl, keyEnvs, [...STANDARD_PAIRS, ...(defaults.declared?.pairs ?? [])]);
}

/**
 * Apply the verdict to a freshly resolved ref, in place. A key variable the caller named that is
 * not paired with the endpoint is refused (field `apiKeyEnv`). One the caller did not name came
 * from a default: for a provider whose key is optional (a local preset, `custom`) the call then
 * goes out with no key — a local server's loopback URL never gets another endpoint's key by
 * default; for a hosted provider it is refused (field `baseUrl`, the part the caller chose).
 */
function pairEndpointKey(ref: ProviderRef, req: ProviderRequest, defaults: ProviderDefaults): void {
  const verdict = endpointKeyVerdict(ref, defaults);
  if (verdict.ok) return;
  if (verdict.problem === 'key' && req.apiKeyEnv === undefined && keyOptional(ref.provider)) {
    ref.apiKeyEnv = NO_KEY;
    delete ref.credentialPool;
    return;
  }
  const field =
    verdict.problem === 'key' && req.apiKeyEnv !== undefined
      ? 'apiKeyEnv'
      : req.baseUrl !== undefined
        ? 'baseUrl'
        : 'provider';
  throw new ProviderResolutionError(verdict.message, field);
}

function checkDeclared(req: ProviderRequest, declared: NonNullable<ProviderDefaults['declared']>): void {
  if (req.baseUrl !== undefined) {
    const allowed = new Set(
      [...STANDARD_REMOTE_URLS, ...declared.baseUrls].filter((u): u is string => !!u).map(normalizeBaseUrl),
    );
    if (!allowed.has(normalizeBaseUrl(req.baseUrl)))
      throw new ProviderResolutionError(
        `${req.baseUrl} is not an endpoint this worker declares (add it to the worker's config under providers.<name>.baseUrl, or set OPENAI_BASE_URL / ANTHROPIC_BASE_URL)`,
        'baseUrl',
      );
  }
  if (req.apiKeyEnv !== undefined) {
    const allowed = new Set([...Object.values(DEFAULT_KEY_ENVS), ...declared.keyEnvs]);
    if (!allowed.has(req.apiKeyEnv))
      throw new ProviderResolutionError(
        `${req.apiKeyEnv} is not a key variable this worker declares (declare it in the worker's config: providers.<name>.apiKeyEnv or credentialPool)`,
        'apiKeyEnv',
      );
  }
}

/** A short human label, e.g. "gpt-4.1 via openrouter". */
export function providerLabel(ref: Pick<ProviderRef, 'model' | 'provider'>): string {
  return `${ref.model} via ${ref.provider}`;
}

/**
 * The endpoint of a call as this worker's configuration gives it now, for a ref whose endpoint came
 * from the worker (`fromWorker`); a pinned ref, or one today's configuration cannot resolve (the
 * provider removed), is used as it is.
 */
export function currentEndpoint(ref: ProviderRef, defaults: ProviderDefaults): ProviderRef {
  if (!ref.fromWorker) return ref;
  let now: ProviderRef;
  try {
    now = resolveProvider({ provider: ref.provider, model: ref.model }, defaults);
  } catch {
    return ref;
  }
  const { credentialPool: _pool, ...rest } = ref;
  return {
    ...rest,
    baseUrl: now.baseUrl,
    apiKeyEnv: now.apiKeyEnv,
    apiMode: now.apiMode,
    ...(now.credentialPool ? { credentialPool: now.credentialPool } : {}),
  };
}

/** The output cap of a local server's call when nothing configured one (docs/providers.md). */
export const LOCAL_DEFAULT_OUTPUT_CAP = 4096;

/**
 * A local server given no `max_tokens` generates until its context is full: a small model that
 * starts repeating itself then streams for many minutes on a CPU. So a call to a local preset, or to
 * `custom` on a loopback address, is capped at a quarter of its window (at most 4,096 tokens) unless
 * the model's settings, the config or the workflow (after a truncation) say otherwise.
 */
export function defaultOutputCap(ref: Pick<ProviderRef, 'provider' | 'baseUrl' | 'contextLength'>): number | undefined {
  if (!isLocalEndpoint(ref)) return undefined;
  const quarter = ref.contextLength ? Math.floor(ref.contextLength / 4) : LOCAL_DEFAULT_OUTPUT_CAP;
  return Math.max(256, Math.min(LOCAL_DEFAULT_OUTPUT_CAP, quarter));
}

/** Whether calls to this endpoint go to a model server on this machine: a local preset, or `custom` on a loopback address. */
export function isLocalEndpoint(ref: Pick<ProviderRef, 'provider' | 'baseUrl'>): boolean {
  return isLocalProvider(ref.provider) || (ref.provider === 'custom' && isLoopbackHost(hostOf(ref.baseUrl) ?? ''));
}
