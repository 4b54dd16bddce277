/**
 * Provider names, API modes and how a model call's API mode is resolved (SPEC §4.2).
 * Pure: the worker supplies defaults from its environment, the workflow carries the result.
 */

export const PROVIDER_NAMES = ['openai', 'openrouter', 'anthropic', 'openai-codex', 'custom'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export const API_MODES = ['chat_completions', 'codex_responses', 'anthropic_messages'] as const;
export type ApiMode = (typeof API_MODES)[number];

/**
 * What the workflow knows about the provider of a model call: names and references only.
 * The key itself is read from `apiKeyEnv` inside the worker and never enters Temporal (SPEC §1.5).
 */
export interface ProviderRef {
  provider: ProviderName;
  model: string;
  apiMode: ApiMode;
  baseUrl: string;
  /** Name of the environment variable holding the key, read by the worker. */
  apiKeyEnv: string;
  /** A credential pool: several key variables for this provider, rotated on rate limits and billing errors. */
  credentialPool?: string[];
  /** The model's context window when known (tokens). */
  contextLength?: number;
  /** The model's output cap (tokens). */
  maxOutputTokens?: number;
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
};

const DEFAULT_KEY_ENVS: Record<ProviderName, string> = {
  openai: 'OPENAI_API_KEY',
  openrouter: 'OPENROUTER_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-codex': 'OPENAI_API_KEY',
  custom: 'OPENAI_API_KEY',
};

/** Environment defaults the worker resolves against (only URLs and names, never keys). */
export interface ProviderDefaults {
  provider: ProviderName;
  model: string;
  openaiBaseUrl?: string;
  anthropicBaseUrl?: string;
  contextLength?: number;
  maxOutputTokens?: number;
  /** The config file's `providers` table. */
  providers?: Partial<Record<ProviderName, ProviderSettings>>;
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
  if (baseUrl && looksLikeAnthropic(baseUrl)) return 'anthropic_messages';
  return 'chat_completions';
}

function looksLikeAnthropic(baseUrl: string): boolean {
  const trimmed = baseUrl.replace(/\/+$/, '').toLowerCase();
  return trimmed.includes('api.anthropic.com') || trimmed.endsWith('/anthropic');
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
  const model = req.model ?? (provider === defaults.provider ? defaults.model : undefined);
  if (!model) throw new ProviderResolutionError(`no model given for provider "${provider}"`, 'model');
  const settings = defaults.providers?.[provider];
  const modelSettings = settings?.models?.[model];
  const isDefault = provider === defaults.provider && model === defaults.model;
  const baseUrl = req.baseUrl ?? settings?.baseUrl ?? defaultBaseUrl(provider, defaults);
  if (!baseUrl) {
    throw new ProviderResolutionError(
      'provider "custom" needs a base URL: set baseUrl in the input or OPENAI_BASE_URL on the worker',
      'baseUrl',
    );
  }
  const ref: ProviderRef = {
    provider,
    model,
    apiMode: resolveApiMode(provider, baseUrl, req.apiMode ?? settings?.apiMode),
    baseUrl,
    apiKeyEnv: req.apiKeyEnv ?? settings?.apiKeyEnv ?? settings?.credentialPool?.[0] ?? DEFAULT_KEY_ENVS[provider],
  };
  if (!req.apiKeyEnv && settings?.credentialPool?.length) ref.credentialPool = [...settings.credentialPool];
  const contextLength =
    req.contextLength ?? modelSettings?.contextLength ?? (isDefault ? defaults.contextLength : undefined);
  if (contextLength !== undefined) ref.contextLength = contextLength;
  const maxOutputTokens = modelSettings?.maxOutputTokens ?? (isDefault ? defaults.maxOutputTokens : undefined);
  if (maxOutputTokens !== undefined) ref.maxOutputTokens = maxOutputTokens;
  return ref;
}

/**
 * OPENAI_BASE_URL applies to `custom` and `openai` (as it does for the openai SDK itself);
 * ANTHROPIC_BASE_URL to `anthropic`. Named aggregators keep their own URLs.
 */
function defaultBaseUrl(provider: ProviderName, defaults: ProviderDefaults): string | undefined {
  if (provider === 'custom') return defaults.openaiBaseUrl;
  if (provider === 'openai') return defaults.openaiBaseUrl ?? DEFAULT_BASE_URLS.openai;
  if (provider === 'anthropic') return defaults.anthropicBaseUrl ?? DEFAULT_BASE_URLS.anthropic;
  return DEFAULT_BASE_URLS[provider];
}

/** A short human label, e.g. "gpt-4.1 via openrouter". */
export function providerLabel(ref: Pick<ProviderRef, 'model' | 'provider'>): string {
  return `${ref.model} via ${ref.provider}`;
}
