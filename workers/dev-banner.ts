/**
 * The part of `herald dev`'s banner that says which model it will call and how: provider, model,
 * base URL, the key variable and whether it is set (never its value), and the config file. The
 * default provider is resolved exactly as a conversation without provider options resolves it
 * (common/providers.ts), so the banner cannot disagree with the first model call.
 */
import type { ProviderDefaults, ProviderRef } from '../common/providers.js';
import { keyOptional, resolveProvider } from '../common/providers.js';
import { needsPersonUrl } from '../shared/needs-person.js';
import { tracingWanted } from '../runtime/tracing-config.js';

export interface ProviderSummary {
  ref?: ProviderRef;
  /** Why the default provider does not resolve (e.g. `custom` without a base URL). */
  error?: string;
  /** Each key variable the default provider may use, and whether the environment sets it. */
  keys: Array<{ name: string; present: boolean }>;
}

export function providerSummary(defaults: ProviderDefaults, env: NodeJS.ProcessEnv): ProviderSummary {
  let ref: ProviderRef;
  try {
    ref = resolveProvider({}, defaults);
  } catch (err) {
    return { error: (err as Error).message, keys: [] };
  }
  const names = ref.credentialPool?.length ? ref.credentialPool : [ref.apiKeyEnv];
  return { ref, keys: names.map((name) => ({ name, present: Boolean(env[name]) })) };
}

/**
 * A base URL fit to print: no user or password, no query values (some gateways take the key as
 * `?key=`), nothing else changed.
 */
export function displayBaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username) u.username = '***';
    if (u.password) u.password = '***';
    for (const k of [...u.searchParams.keys()]) u.searchParams.set(k, '***');
    return u.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//***@').replace(/\?.*$/, '?***');
  }
}

function keyLine(s: ProviderSummary): string {
  const ref = s.ref!;
  const set = s.keys.filter((k) => k.present).length;
  const names = s.keys.map((k) => k.name).join(', ');
  if (set === s.keys.length) return s.keys.length > 1 ? `${names} (pool, all set)` : `${names} is set`;
  if (set > 0) return `${names} (pool, ${set} of ${s.keys.length} set)`;
  if (keyOptional(ref.provider)) return `${names} is not set (fine for a local server without auth)`;
  return `⚠ ${names} is NOT SET: model calls will fail until it is (export it, then restart herald dev)`;
}

/** The banner lines: `Provider:`, `Key:`, `Config:`. */
export function providerLines(s: ProviderSummary, configPath: string | undefined, home: string): string[] {
  const config = `Config:    ${configPath ?? `none (no ${home}/config.yaml, HERALD_CONFIG not set)`}`;
  if (!s.ref) return [`Provider:  ⚠ ${s.error ?? 'no default provider'}`, config];
  const { provider, model, apiMode, baseUrl } = s.ref;
  return [
    `Provider:  ${provider} · model ${model} · ${displayBaseUrl(baseUrl)} (${apiMode})`,
    `Key:       ${keyLine(s)}`,
    config,
  ];
}

/**
 * `Metrics:` (where the worker serves `/metrics`) and `Traces:` (where spans go), each only when
 * configured: both are off by default.
 */
export function observabilityLines(metricsUrl: string | undefined, env: NodeJS.ProcessEnv): string[] {
  const lines: string[] = [];
  if (metricsUrl) lines.push(`Metrics:   ${metricsUrl} (Herald's and the Temporal SDK's)`);
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (tracingWanted(env))
    lines.push(`Traces:    OTLP to ${endpoint ? displayBaseUrl(endpoint) : 'http://localhost:4318'}`);
  return lines;
}

/**
 * `Web UI:` and, under it, `Needs you:`: the list filtered to the conversations waiting for an
 * approval, an answer, or a look after a failed turn (shared/needs-person.ts).
 */
export function webUiLines(uiUrl: string | undefined, namespace: string): string[] {
  if (!uiUrl) return [];
  return [`Web UI:    ${uiUrl}`, `Needs you: ${needsPersonUrl(uiUrl, namespace)}`];
}
