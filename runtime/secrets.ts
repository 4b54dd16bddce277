/**
 * The worker's secrets and the process-wide redactor built from them (docs/redaction.md). A process has one
 * redactor because everything it sends out must pass it — activity results and failures, every
 * Postgres write, the event stream, the logs (Herald's, the Temporal core's, a library's) — and
 * those leave through many doors that should not each need to be handed the key list.
 */
import type { ConfigFile } from '../shared/config-schema.js';
import type { SecretValue } from '../shared/redaction.js';
import { Redactor } from '../shared/redaction.js';
import { mcpSecretEnvNames } from '../shared/mcp-config.js';
import { envSecrets } from '../shared/env-secrets.js';

/** The providers' standard key variables. */
const STANDARD_KEYS = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENROUTER_API_KEY'];

/** Every key variable the configuration names (provider settings, pools, fallbacks, auxiliary, delegation). */
export function configuredKeyNames(file: ConfigFile): string[] {
  const names = new Set<string>();
  if (file.model.apiKeyEnv) names.add(file.model.apiKeyEnv);
  for (const p of Object.values(file.providers)) {
    if (p?.apiKeyEnv) names.add(p.apiKeyEnv);
    for (const n of p?.credentialPool ?? []) names.add(n);
  }
  for (const c of [...file.fallbackProviders, ...(file.auxiliary ? [file.auxiliary] : [])])
    if (c.apiKeyEnv) names.add(c.apiKeyEnv);
  for (const c of file.auxiliary?.fallbackProviders ?? []) if (c.apiKeyEnv) names.add(c.apiKeyEnv);
  if (file.delegation.model?.apiKeyEnv) names.add(file.delegation.model.apiKeyEnv);
  // MCP servers' env and headers by reference: their values are credentials too.
  for (const n of mcpSecretEnvNames(file.mcp)) names.add(n);
  return [...names];
}

/**
 * The secret values this worker holds, each named after its variable: every environment value
 * but the benign ones (shared/env-secrets.ts); the keys the configuration names always.
 */
export function workerSecrets(env: NodeJS.ProcessEnv, file?: ConfigFile): SecretValue[] {
  return envSecrets(env, {
    benign: file?.secrets.benignEnv ?? [],
    secret: [...STANDARD_KEYS, ...(file ? configuredKeyNames(file) : []), ...(file?.secrets.env ?? [])],
  });
}

let current = new Redactor();
let known: SecretValue[] = [];

/** Add a worker's secrets to the process's redactor (several workers in one process add theirs). */
export function installRedactor(secrets: readonly SecretValue[]): Redactor {
  const seen = new Set(known.map((s) => s.value));
  known = [...known, ...secrets.filter((s) => !seen.has(s.value))];
  current = new Redactor(known);
  return current;
}

/** The process's redactor: secret shapes always, the worker's values once a worker has installed them. */
export function redactor(): Redactor {
  return current;
}
