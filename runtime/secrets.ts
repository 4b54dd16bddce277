/**
 * The worker's secrets and the process-wide redactor built from them (docs/tool-sandbox.md). A process has one
 * redactor because everything it sends out must pass it — activity results and failures, every
 * Postgres write, the event stream, the logs (Herald's, the Temporal core's, a library's) — and
 * those leave through many doors that should not each need to be handed the key list.
 */
import type { ConfigFile } from '../common/config-schema.js';
import type { SecretValue } from '../common/redaction.js';
import { Redactor } from '../common/redaction.js';
import { mcpSecretEnvNames } from '../common/mcp-config.js';

/** The providers' standard key variables. */
const STANDARD_KEYS = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENROUTER_API_KEY'];

/** Names that hold credentials by convention, whatever the prefix (`KEY_A`, `GH_PAT`, `PGPASSWORD`, `AWS_SESSION_TOKEN`). */
const CREDENTIAL_NAME =
  /(^|_)(API_?KEY|KEY|KEYS|TOKEN|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PWD|PAT|CREDENTIALS?|AUTH|PRIVATE|SESSION|COOKIE|DSN)(_|$)|(KEY|TOKEN|SECRET|PASSWORD)$/i;
/** Variables that match the pattern above but hold no secret. */
const NOT_SECRET = new Set(['PWD', 'OLDPWD', 'SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'XAUTHORITY', 'KEYTIMEOUT']);

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

/** The credential values this worker holds, each named after its variable. */
export function workerSecrets(env: NodeJS.ProcessEnv, file?: ConfigFile): SecretValue[] {
  const out: SecretValue[] = [];
  const named = new Set([...STANDARD_KEYS, ...(file ? configuredKeyNames(file) : []), ...(file?.secrets.env ?? [])]);
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (named.has(name) || (CREDENTIAL_NAME.test(name) && !NOT_SECRET.has(name))) out.push({ name, value });
  }
  // Connection strings: the password is the secret (the rest is shown, redacted, in logs and banners).
  for (const name of ['DATABASE_URL', ...Object.keys(env).filter((k) => /_URL$|_URI$|_DSN$/.test(k))]) {
    const v = env[name];
    if (!v) continue;
    try {
      const password = decodeURIComponent(new URL(v).password);
      if (password) out.push({ name, value: password });
    } catch {
      // not a URL
    }
  }
  return out;
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
