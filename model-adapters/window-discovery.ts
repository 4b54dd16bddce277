/**
 * Context-window discovery for local model servers (docs/providers.md). A model served by llama.cpp,
 * vLLM, LM Studio or Ollama has the window the server was started with (often 2K–8K), which no
 * model-family table can guess; without it Herald assumes 128K and never compresses. Before the
 * first call of a conversation whose model has no configured `contextLength`, the worker asks the
 * server. The answer travels as an activity result (prepareConversation), so replay never asks
 * again. Discovery is best-effort: bounded timeouts, every failure is "unknown", never an error.
 */
import { NO_KEY } from '../common/endpoint-keys.js';
import type { ProviderDefaults, ProviderRef } from '../common/providers.js';
import { endpointKeyVerdict, isLocalProvider } from '../common/providers.js';
import { keyVariable } from './clients.js';

/** Each probe's own timeout: a local server answers in milliseconds or is not there. */
export const PROBE_TIMEOUT_MS = 2_000;
/** All probes of one discovery together (LM Studio has two). */
export const DISCOVERY_DEADLINE_MS = 4_000;
/** A probe's body is read up to this size (an Ollama modelfile or a long model list stays bounded). */
const MAX_BODY_BYTES = 1_000_000;
/** Plausible windows only: anything else is a misread field. */
const MIN_WINDOW = 256;
const MAX_WINDOW = 100_000_000;

type ServerKind = 'llamacpp' | 'vllm' | 'lmstudio' | 'ollama';

interface Probe {
  kind: ServerKind;
  method: 'GET' | 'POST';
  /** Path from the server's root (the base URL without its trailing `/v1`), or from the base URL. */
  path: string;
  fromRoot: boolean;
  body?: (model: string) => unknown;
  parse: (json: unknown, model: string) => number | undefined;
}

function plausible(n: unknown): number | undefined {
  const v = typeof n === 'string' && /^\d+$/.test(n.trim()) ? Number(n) : n;
  return typeof v === 'number' && Number.isInteger(v) && v >= MIN_WINDOW && v <= MAX_WINDOW ? v : undefined;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * llama.cpp `GET /props`: `default_generation_settings.n_ctx` is the per-slot window (the server's
 * `--ctx-size` divided among `--parallel` slots), what one request can use; newer builds also
 * report a top-level `n_ctx`.
 */
export function parseLlamaCppProps(json: unknown): number | undefined {
  const o = record(json);
  if (!o) return undefined;
  const settings = record(o.default_generation_settings);
  return plausible(settings?.n_ctx) ?? plausible(record(settings?.params)?.n_ctx) ?? plausible(o.n_ctx);
}

/** The entry of a model list that is this model: by id (vLLM also by `root`), or the only one served. */
function entryFor(json: unknown, model: string): Record<string, unknown> | undefined {
  const data = record(json)?.data;
  if (!Array.isArray(data)) return undefined;
  const entries = data.map(record).filter((e): e is Record<string, unknown> => e !== undefined);
  return (
    entries.find((e) => e.id === model) ??
    entries.find((e) => e.root === model) ??
    (entries.length === 1 ? entries[0] : undefined)
  );
}

/**
 * `GET /v1/models`: vLLM's entries carry `max_model_len`; some OpenAI-compatible servers and
 * gateways say `context_length` or `max_context_length` instead.
 */
export function parseOpenAiModels(json: unknown, model: string): number | undefined {
  const e = entryFor(json, model);
  if (!e) return undefined;
  return plausible(e.max_model_len) ?? plausible(e.context_length) ?? plausible(e.max_context_length);
}

/**
 * LM Studio `GET /api/v0/models`: a loaded model's `loaded_context_length` is what it runs with;
 * `max_context_length` is the model's own maximum (what a load without settings uses).
 */
export function parseLmStudioModels(json: unknown, model: string): number | undefined {
  const e = entryFor(json, model);
  if (!e) return undefined;
  return plausible(e.loaded_context_length) ?? plausible(e.max_context_length);
}

/**
 * Ollama `POST /api/show`: a `num_ctx` in the model's `parameters` (text, one `name value` a line)
 * is the window it runs with; otherwise `model_info["<arch>.context_length"]`, the model's own.
 */
export function parseOllamaShow(json: unknown): number | undefined {
  const o = record(json);
  if (!o) return undefined;
  if (typeof o.parameters === 'string') {
    const m = /^\s*num_ctx\s+(\d+)\s*$/m.exec(o.parameters);
    const numCtx = plausible(m?.[1]);
    if (numCtx) return numCtx;
  }
  const info = record(o.model_info);
  if (!info) return undefined;
  const arch = info['general.architecture'];
  const own = typeof arch === 'string' ? plausible(info[`${arch}.context_length`]) : undefined;
  if (own) return own;
  const any = Object.entries(info).find(([k, v]) => k.endsWith('.context_length') && plausible(v));
  return any ? plausible(any[1]) : undefined;
}

const PROBES: Record<ServerKind, Probe[]> = {
  llamacpp: [{ kind: 'llamacpp', method: 'GET', path: '/props', fromRoot: true, parse: (j) => parseLlamaCppProps(j) }],
  vllm: [{ kind: 'vllm', method: 'GET', path: '/models', fromRoot: false, parse: parseOpenAiModels }],
  lmstudio: [
    { kind: 'lmstudio', method: 'GET', path: '/api/v0/models', fromRoot: true, parse: parseLmStudioModels },
    { kind: 'lmstudio', method: 'GET', path: '/models', fromRoot: false, parse: parseOpenAiModels },
  ],
  ollama: [
    {
      kind: 'ollama',
      method: 'POST',
      path: '/api/show',
      fromRoot: true,
      // `model` is today's field; `name` is what Ollama before 0.5 read.
      body: (model) => ({ model, name: model }),
      parse: (j) => parseOllamaShow(j),
    },
  ],
};

/**
 * Which probes a provider gets: a local preset's own server's. A `custom` endpoint is not probed:
 * it may be any gateway, and its window is configured (`contextLength`); pointing the matching
 * preset (`llamacpp`, …) at the server's URL gets discovery.
 */
export function probesFor(provider: ProviderRef['provider']): Probe[] {
  return isLocalProvider(provider) ? PROBES[provider] : [];
}

/** `http://host:8080/v1` → `http://host:8080`: the native endpoints live at the server's root. */
export function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/i, '');
}

function probeUrl(baseUrl: string, probe: Probe): string {
  return `${probe.fromRoot ? serverRoot(baseUrl) : baseUrl.replace(/\/+$/, '')}${probe.path}`;
}

async function readJson(res: Response): Promise<unknown> {
  const reader = res.body?.getReader() as ReadableStreamDefaultReader<Uint8Array> | undefined;
  if (!reader) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export interface DiscoveryOptions {
  env: NodeJS.ProcessEnv;
  /** The worker's provider defaults (their declared pairs); absent: only the providers' standard pairs get a key. */
  endpoints?: Pick<ProviderDefaults, 'declared'>;
  fetchImpl?: typeof fetch;
  probeTimeoutMs?: number;
  deadlineMs?: number;
}

/** Ask the server behind `ref` for the model's window; undefined when no probe gives one. */
export async function discoverWindow(
  ref: Pick<ProviderRef, 'provider' | 'model' | 'baseUrl' | 'apiKeyEnv' | 'credentialPool'>,
  options: DiscoveryOptions,
): Promise<{ contextLength: number; source: string } | undefined> {
  const fetchImpl = options.fetchImpl ?? fetch;
  const deadline = AbortSignal.timeout(options.deadlineMs ?? DISCOVERY_DEADLINE_MS);
  // A server started with --api-key wants it on these endpoints too; the key stays in the worker,
  // and goes only where it is paired (the same decision as a model call's).
  const paired = endpointKeyVerdict(ref, options.endpoints ?? {}).ok;
  const name = keyVariable(ref as ProviderRef);
  const key = paired && name !== NO_KEY ? options.env[name] : undefined;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  for (const probe of probesFor(ref.provider)) {
    if (deadline.aborted) return undefined;
    const url = probeUrl(ref.baseUrl, probe);
    try {
      const signal = AbortSignal.any([deadline, AbortSignal.timeout(options.probeTimeoutMs ?? PROBE_TIMEOUT_MS)]);
      const res = await fetchImpl(url, {
        method: probe.method,
        headers: probe.body ? { ...headers, 'content-type': 'application/json' } : headers,
        ...(probe.body ? { body: JSON.stringify(probe.body(ref.model)) } : {}),
        signal,
        redirect: 'error',
      });
      if (!res.ok) {
        await res.body?.cancel();
        continue;
      }
      const found = probe.parse(await readJson(res), ref.model);
      if (found) return { contextLength: found, source: `${probe.method} ${url}` };
    } catch {
      // Not this kind of server, not up, or too slow: try the next probe.
    }
  }
  return undefined;
}

/** Answers (and misses) per base URL + model, so a worker asks each server once; misses are retried later. */
const MISS_TTL_MS = 5 * 60_000;
const MAX_CACHED = 256;
const cache = new Map<string, { contextLength: number | undefined; at: number }>();

export function clearWindowCache(): void {
  cache.clear();
}

/**
 * The ref with its window filled from the server when nothing configured one and the provider is a
 * local-server preset. Anything else, or a server that does not say, comes back as it was.
 */
export async function withDiscoveredWindow(ref: ProviderRef, options: DiscoveryOptions): Promise<ProviderRef> {
  if (ref.contextLength !== undefined || probesFor(ref.provider).length === 0) return ref;
  const key = `${serverRoot(ref.baseUrl).toLowerCase()}\u0000${ref.model}`;
  const hit = cache.get(key);
  let contextLength: number | undefined;
  if (hit && (hit.contextLength !== undefined || Date.now() - hit.at < MISS_TTL_MS)) {
    contextLength = hit.contextLength;
  } else {
    contextLength = (await discoverWindow(ref, options))?.contextLength;
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(key, { contextLength, at: Date.now() });
  }
  return contextLength === undefined ? ref : { ...ref, contextLength };
}
