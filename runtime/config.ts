/**
 * Herald's configuration: environment variables for the basics (docs/configuration.md) plus one optional YAML
 * file, both validated with zod. A bad value is one clear error that names the key.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { YAMLParseError, parseDocument } from 'yaml';
import { z } from 'zod';
import type { ConfigFile } from '../shared/config-schema.js';
import { configFileSchema } from '../shared/config-schema.js';
import { DEFAULT_TASK_QUEUE } from '../common/constants.js';
import { declaredPairs } from '../shared/declared-pairs.js';
import type { ProviderDefaults, ProviderName, ProviderRequest, ProviderSettings } from '../common/providers.js';
import { PROVIDER_NAMES } from '../common/providers.js';
import { SANDBOX_MODES } from '../common/sandbox-policy.js';
import { configuredKeyNames } from './secrets.js';
import type { RootsSetting } from './workspace-roots.js';
import { defaultWorkspaceRoot } from './workspace-roots.js';
import { describeSchemaIssue, describeYamlError } from './config-errors.js';
import type { CodecKeyring } from './codec-keys.js';
import { CodecKeyError, loadCodecKeyring } from './codec-keys.js';
import type { TemporalSecurity } from './temporal-connection.js';
import { loadTemporalProfile } from './temporal-connection.js';
import type { WorkerTuning } from '../shared/worker-tuning.js';
import { WORKER_TUNING_ENV, WorkerTuningError, resolveWorkerTuning } from '../shared/worker-tuning.js';

export class ConfigError extends Error {
  constructor(
    message: string,
    readonly key: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

const port = z.coerce.number().int().min(1).max(65535);
const optionalUrl = z.string().url().optional();

const envSchema = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  /** Default `default`, or the Temporal profile's namespace (runtime/temporal-connection.ts). */
  TEMPORAL_NAMESPACE: z.string().min(1).optional(),
  DATABASE_URL: z.string().min(1).optional(),
  HERALD_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE),
  HERALD_HOME: z.string().min(1).optional(),
  HERALD_CONFIG: z.string().min(1).optional(),
  HERALD_MODEL: z.string().min(1).optional(),
  HERALD_PROVIDER: z.enum(PROVIDER_NAMES).optional(),
  HERALD_WORKSPACE: z.string().min(1).optional(),
  /** Folders every conversation's `cwd` must lie in, a path list (`:`); wins over the file's `workspaceRoots`. */
  HERALD_WORKSPACE_ROOTS: z.string().min(1).optional(),
  OPENAI_BASE_URL: optionalUrl,
  ANTHROPIC_BASE_URL: optionalUrl,
  HERALD_TEMPORAL_PORT: port.default(7233),
  HERALD_UI_PORT: port.default(8233),
  /** `herald codec-server`'s port, and the one `herald dev` serves its Web UI's codec on. */
  HERALD_CODEC_PORT: port.default(8888),
  HERALD_PG_PORT: port.default(54329),
  HERALD_LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  /** Log lines as JSON or as text for people (default: text for `herald dev`, JSON elsewhere). */
  HERALD_LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  /** Overrides `sandbox.mode` in the config file. */
  HERALD_SANDBOX: z.enum(SANDBOX_MODES).optional(),
  /**
   * This worker's build in a Worker Deployment (docs/architecture.md, "Deploys"): set, the worker
   * uses Temporal's Worker Versioning — conversations stay on the build that runs them and move to
   * the current build at their next continue-as-new. Unset, the worker is unversioned.
   */
  HERALD_BUILD_ID: z.string().min(1).max(255).optional(),
  HERALD_DEPLOYMENT_NAME: z.string().min(1).max(255).default('herald'),
  /** Serve Prometheus metrics (Herald's and the Temporal SDK's) on this port (`herald worker --metrics-port`). */
  HERALD_METRICS_PORT: port.optional(),
  /** The address the metrics port listens on: loopback unless set (0.0.0.0 in a container). */
  HERALD_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
});

/** Every environment variable Herald's own configuration reads (the Temporal SDK's are its own). */
export const HERALD_ENV_NAMES: readonly string[] = [
  ...Object.keys(envSchema.shape),
  ...Object.values(WORKER_TUNING_ENV),
];

export interface HeraldConfig {
  temporalAddress: string | undefined;
  namespace: string;
  /**
   * TLS, API key and gRPC headers for `temporalAddress` when it came from the environment or a
   * Temporal profile (Temporal Cloud); empty for `herald dev`'s own server.
   */
  temporalSecurity: TemporalSecurity;
  databaseUrl: string | undefined;
  taskQueue: string;
  home: string;
  configPath: string | undefined;
  /** The default workspace (HERALD_WORKSPACE): a conversation that names no `cwd` works here. */
  workspace: string | undefined;
  /** Where workspaces may be (runtime/workspace-roots.ts decides each `cwd` against them). */
  workspaceRoots: RootsSetting;
  providerDefaults: ProviderDefaults;
  ports: { temporal: number; ui: number; postgres: number; codec: number };
  logLevel: z.infer<typeof envSchema>['HERALD_LOG_LEVEL'];
  /** Worker Versioning: the deployment and this build (absent: unversioned). */
  deployment: { name: string; buildId: string } | undefined;
  /** The Worker Deployment's name even without a build id: what `herald deploy drain` drains. */
  deploymentName: string;
  /** Where a worker serves `/metrics` (absent: no metrics endpoint). */
  metrics: { port: number; host: string } | undefined;
  /** The worker's capacity settings: the file's `worker` section with HERALD_* overrides. */
  worker: WorkerTuning;
  file: ConfigFile;
  /** The payload codec's keys (HERALD_CODEC_KEY or `codec.keyFile`); absent: payloads are plaintext. */
  codec: CodecKeyring | undefined;
  /**
   * Loaded with `fileErrors: 'keep'`: why the config file was refused (then `file` holds the
   * defaults). Whatever needs the file — a worker — must refuse to run with it set.
   */
  fileError?: ConfigError;
}

export interface LoadConfigOptions {
  /**
   * `throw` (default): a broken config file is an error. `keep`: it is reported in `fileError`
   * and the defaults stand in, for commands that only need the environment (client commands).
   */
  fileErrors?: 'throw' | 'keep';
}

const DEFAULT_MODELS: Record<ProviderName, string | undefined> = {
  openai: 'gpt-4.1',
  openrouter: 'openai/gpt-4.1',
  anthropic: 'claude-sonnet-4-5',
  'openai-codex': 'gpt-5-codex',
  custom: undefined,
  // A local server serves whatever it loaded: the user names the model.
  ollama: undefined,
  vllm: undefined,
  llamacpp: undefined,
  lmstudio: undefined,
};

/** Which provider a user most likely means when HERALD_PROVIDER is not set. */
function inferProvider(env: NodeJS.ProcessEnv): ProviderName {
  if (env.OPENAI_BASE_URL) return 'custom';
  if (env.OPENAI_API_KEY) return 'openai';
  if (env.ANTHROPIC_API_KEY) return 'anthropic';
  if (env.OPENROUTER_API_KEY) return 'openrouter';
  return 'openai';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadConfigOptions = {}): HeraldConfig {
  const parsed = envSchema.safeParse(stripEmpty(env));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.map(String).join('.');
    throw new ConfigError(`config error: ${key}: ${issue.message}`, key);
  }
  const e = parsed.data;
  let temporal: ReturnType<typeof loadTemporalProfile>;
  try {
    temporal = loadTemporalProfile(env);
  } catch (err) {
    const key = env.TEMPORAL_CONFIG_FILE ? 'TEMPORAL_CONFIG_FILE' : 'TEMPORAL_PROFILE';
    throw new ConfigError(`config error: ${key}: ${(err as Error).message.split('\n')[0]}`, key);
  }
  const home = resolve(e.HERALD_HOME ?? join(homedir(), '.herald'));
  const configPath = e.HERALD_CONFIG ? resolve(e.HERALD_CONFIG) : join(home, 'config.yaml');
  let file: ConfigFile;
  let fileError: ConfigError | undefined;
  try {
    file = loadConfigFile(configPath, e.HERALD_CONFIG !== undefined);
  } catch (err) {
    if (options.fileErrors !== 'keep' || !(err instanceof ConfigError)) throw err;
    // A client going on without the file's codec keys would write plaintext: fail closed.
    if (!env.HERALD_CODEC_KEY && mentionsCodec(configPath)) throw err;
    fileError = err;
    file = configFileSchema.parse({});
  }
  if (e.HERALD_SANDBOX) file.sandbox.mode = e.HERALD_SANDBOX;

  const provider = e.HERALD_PROVIDER ?? file.model.provider ?? inferProvider(env);
  const model = e.HERALD_MODEL ?? file.model.name ?? DEFAULT_MODELS[provider] ?? '';
  const providerDefaults: ProviderDefaults = { provider, model };
  // The environment's endpoints and the file's are kept apart: the environment wins over every
  // base URL the file sets (common/providers.ts resolveProvider has the whole order).
  const openaiBaseUrl = e.OPENAI_BASE_URL;
  const anthropicBaseUrl = e.ANTHROPIC_BASE_URL;
  if (openaiBaseUrl) providerDefaults.openaiBaseUrl = openaiBaseUrl;
  if (anthropicBaseUrl) providerDefaults.anthropicBaseUrl = anthropicBaseUrl;
  if (file.model.baseUrl) providerDefaults.modelBaseUrl = file.model.baseUrl;
  if (file.model.contextLength) providerDefaults.contextLength = file.model.contextLength;
  if (file.model.maxOutputTokens) providerDefaults.maxOutputTokens = file.model.maxOutputTokens;
  if (file.model.apiKeyEnv) providerDefaults.apiKeyEnv = file.model.apiKeyEnv;
  if (Object.keys(file.providers).length) providerDefaults.providers = file.providers;
  providerDefaults.declared = declaredEndpoints(file, [openaiBaseUrl, anthropicBaseUrl], providerDefaults);

  // Bad key material stops every command, client ones included: a client that silently lost its
  // keys would write plaintext into history (fail closed).
  let codec: CodecKeyring | undefined;
  try {
    codec = loadCodecKeyring(env, file.codec.keyFile, configPath);
  } catch (err) {
    if (err instanceof CodecKeyError) throw new ConfigError(err.message, err.configKey);
    throw err;
  }

  let worker: WorkerTuning;
  try {
    worker = resolveWorkerTuning(file.worker, env);
  } catch (err) {
    if (err instanceof WorkerTuningError) throw new ConfigError(err.message, err.key);
    throw err;
  }

  return {
    temporalAddress: e.TEMPORAL_ADDRESS ?? temporal.address,
    namespace: e.TEMPORAL_NAMESPACE ?? temporal.namespace ?? 'default',
    temporalSecurity: temporal.security,
    databaseUrl: e.DATABASE_URL,
    taskQueue: e.HERALD_TASK_QUEUE,
    home,
    configPath: existsSync(configPath) ? configPath : undefined,
    workspace: e.HERALD_WORKSPACE ? resolve(e.HERALD_WORKSPACE) : undefined,
    workspaceRoots: rootsSetting(e, file, configPath),
    providerDefaults,
    ports: {
      temporal: e.HERALD_TEMPORAL_PORT,
      ui: e.HERALD_UI_PORT,
      postgres: e.HERALD_PG_PORT,
      codec: e.HERALD_CODEC_PORT,
    },
    logLevel: e.HERALD_LOG_LEVEL,
    deployment: e.HERALD_BUILD_ID ? { name: e.HERALD_DEPLOYMENT_NAME, buildId: e.HERALD_BUILD_ID } : undefined,
    deploymentName: e.HERALD_DEPLOYMENT_NAME,
    metrics: e.HERALD_METRICS_PORT ? { port: e.HERALD_METRICS_PORT, host: e.HERALD_METRICS_HOST } : undefined,
    worker,
    file,
    codec,
    ...(fileError ? { fileError } : {}),
  };
}

/**
 * Where workspaces may be: HERALD_WORKSPACE_ROOTS, else the file's `workspaceRoots` (relative
 * entries against the file's folder), else HERALD_WORKSPACE, else `~/workspaces`.
 */
function rootsSetting(
  e: { HERALD_WORKSPACE_ROOTS?: string | undefined; HERALD_WORKSPACE?: string | undefined },
  file: ConfigFile,
  configPath: string,
): RootsSetting {
  const expand = (p: string, base: string) =>
    p === '~' || p.startsWith('~/') ? join(homedir(), p.slice(1)) : resolve(base, p);
  if (e.HERALD_WORKSPACE_ROOTS) {
    const roots = e.HERALD_WORKSPACE_ROOTS.split(delimiter).filter(Boolean);
    return { roots: roots.map((r) => expand(r, process.cwd())), source: 'HERALD_WORKSPACE_ROOTS', isDefault: false };
  }
  if (file.workspaceRoots)
    return {
      roots: file.workspaceRoots.map((r) => expand(r, dirname(configPath))),
      source: 'workspaceRoots in the config file',
      isDefault: false,
    };
  if (e.HERALD_WORKSPACE) return { roots: [resolve(e.HERALD_WORKSPACE)], source: 'HERALD_WORKSPACE', isDefault: false };
  return { roots: [defaultWorkspaceRoot()], source: 'the default, ~/workspaces', isDefault: true };
}

/**
 * Every endpoint and key variable the worker's configuration names, and the (endpoint, key) pairs it
 * resolves to: what workflow input may choose from.
 */
function declaredEndpoints(
  file: ConfigFile,
  envUrls: Array<string | undefined>,
  defaults: ProviderDefaults,
): NonNullable<ProviderDefaults['declared']> {
  const choices = [
    file.model,
    ...file.fallbackProviders,
    ...(file.auxiliary ? [file.auxiliary, ...(file.auxiliary.fallbackProviders ?? [])] : []),
    ...(file.delegation.model ? [file.delegation.model] : []),
    ...Object.values(file.providers).filter((p) => p !== undefined),
  ];
  const baseUrls = [...envUrls, ...choices.map((c) => c.baseUrl)].filter((u): u is string => !!u);
  // Each section with its own endpoint spelled out too: the environment's URL wins over the file's
  // when both are set, but the file's endpoint (with its key) is still the worker's to name.
  const sections: ProviderRequest[] = [
    ...(file.model.baseUrl ? [{ provider: defaults.provider, baseUrl: file.model.baseUrl }] : []),
    ...(Object.entries(file.providers) as Array<[ProviderName, ProviderSettings | undefined]>)
      .filter(([, p]) => p?.baseUrl)
      .map(([provider, p]) => ({ provider, baseUrl: p!.baseUrl })),
  ].map((r) => ({ ...r, model: 'any-model' }));
  const spelledOut = [
    ...sections,
    ...file.fallbackProviders,
    ...(file.auxiliary ? [modelChoice(file.auxiliary), ...(file.auxiliary.fallbackProviders ?? [])] : []),
    ...(file.delegation.model ? [file.delegation.model] : []),
  ];
  return { baseUrls, keyEnvs: configuredKeyNames(file), pairs: declaredPairs(defaults, spelledOut) };
}

/** A model choice without the sections that are not part of it (the auxiliary model's own fallbacks). */
function modelChoice(c: NonNullable<ConfigFile['auxiliary']>): ProviderRequest {
  const { fallbackProviders: _fallbacks, ...choice } = c;
  return choice;
}

function loadConfigFile(path: string, required: boolean): ConfigFile {
  if (!existsSync(path)) {
    if (required) throw new ConfigError(`config error: HERALD_CONFIG: no such file ${path}`, 'HERALD_CONFIG');
    return configFileSchema.parse({});
  }
  const text = readFileSync(path, 'utf8');
  let raw: unknown;
  // Every problem at once, not the first: fixing one to meet the next is a slow loop.
  const doc = parseDocument(text);
  if (doc.errors.length)
    throw new ConfigError(allOf(doc.errors.map((err) => describeYamlError(path, text, err))), '(file)');
  try {
    raw = doc.toJS() ?? {};
  } catch (err) {
    const message =
      err instanceof YAMLParseError
        ? describeYamlError(path, text, err)
        : `config error in ${path}: not valid YAML: ${(err as Error).message.split('\n')[0]}`;
    throw new ConfigError(message, '(file)');
  }
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => describeSchemaIssue(path, text, issue, configFileSchema));
    throw new ConfigError(allOf(issues.map((i) => i.message)), issues[0]!.key);
  }
  return parsed.data;
}

/** Errors reported at once (a file of errors says how many more there are past the first few). */
const MAX_REPORTED_ERRORS = 10;

function allOf(messages: string[]): string {
  const shown = messages.slice(0, MAX_REPORTED_ERRORS);
  const more = messages.length - shown.length;
  return [...shown, ...(more > 0 ? [`… and ${more} more error(s)`] : [])].join('\n');
}

/** Whether a (broken) config file has a top-level `codec` section. */
function mentionsCodec(path: string): boolean {
  try {
    return /^codec\s*:/m.test(readFileSync(path, 'utf8'));
  } catch {
    return false;
  }
}

/** Treat `FOO=` like an unset variable, as shells and compose files often produce it. */
function stripEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') out[k] = v;
  return out;
}
