/**
 * Which environment values are secrets (docs/redaction.md). An allowlist: every value the worker
 * holds is a secret unless its variable is on the short list below (or one the configuration
 * adds, `secrets.benignEnv`), or the value is too short to look for, or it has a shape that holds
 * no credential: a small number, a word from a fixed list, filesystem paths, a host name. A URL is
 * taken apart: its password, a long user name and query values are secrets, the rest is not.
 * Anything else — whatever its name — is redacted. Pure: the worker hands it its environment.
 */
import { MIN_SECRET_LENGTH } from './secret-matcher.js';
import type { SecretValue } from './redaction.js';

/**
 * Variables whose values are never credentials, with why. `*` at the end matches a prefix.
 * Kept short on purpose: a name missing here costs a redacted word; one too many, a leak.
 */
export const BENIGN_ENV: ReadonlyArray<{ name: string; why: string }> = [
  { name: 'PATH', why: 'the command search path' },
  { name: 'HOME', why: "the user's home folder" },
  { name: 'USER', why: 'the login name' },
  { name: 'LOGNAME', why: 'the login name' },
  { name: 'SHELL', why: 'the login shell' },
  { name: 'PWD', why: 'the working folder' },
  { name: 'OLDPWD', why: 'the previous working folder' },
  { name: 'HOSTNAME', why: "the machine's name (shown in every log line anyway)" },
  { name: 'LANG', why: 'the locale' },
  { name: 'LANGUAGE', why: 'the locale' },
  { name: 'LC_*', why: 'the locale' },
  { name: 'TZ', why: 'the time zone' },
  { name: 'TERM', why: 'the terminal type' },
  { name: 'COLORTERM', why: 'the terminal colour support' },
  { name: 'TMPDIR', why: 'the temporary folder' },
  { name: 'SHLVL', why: 'the shell nesting depth' },
  { name: '_', why: 'the last command the shell ran (its path)' },
  { name: 'NODE_ENV', why: 'a mode word (production, development)' },
  // What npm tells a script it runs (from package.json, public); npm_config_* is not here: it can hold an _authToken.
  { name: 'npm_package_*', why: "the running package's package.json fields" },
  { name: 'npm_lifecycle_*', why: 'the package.json script being run' },
  { name: 'npm_config_user_agent', why: "npm's and node's versions" },
  { name: 'npm_execpath', why: "npm's path" },
  { name: 'npm_node_execpath', why: "node's path" },
  { name: 'npm_command', why: 'the npm command being run' },
  { name: 'INIT_CWD', why: 'the folder npm was started in' },
  // Herald's own settings that are not credentials (runtime/config.ts); its keys are not here.
  { name: 'HERALD_HOME', why: "Herald's home folder" },
  { name: 'HERALD_CONFIG', why: "the config file's path" },
  { name: 'HERALD_MODEL', why: 'the default model name (a search attribute: must stay readable)' },
  { name: 'HERALD_PROVIDER', why: 'the default provider name' },
  { name: 'HERALD_WORKSPACE', why: 'the default workspace folder' },
  { name: 'HERALD_TASK_QUEUE', why: 'the task queue name' },
  { name: 'HERALD_LOG_LEVEL', why: 'a log level' },
  { name: 'HERALD_LOG_FORMAT', why: 'a log format' },
  { name: 'HERALD_SANDBOX', why: 'on or off' },
  { name: 'HERALD_BUILD_ID', why: "the worker's build id (shown in Temporal)" },
  { name: 'HERALD_DEPLOYMENT_NAME', why: "the worker's deployment name (shown in Temporal)" },
  { name: 'TEMPORAL_ADDRESS', why: "the Temporal server's host and port" },
  { name: 'TEMPORAL_NAMESPACE', why: 'the Temporal namespace' },
];

/** Values that are words, not credentials, whatever variable holds them. */
const BENIGN_WORDS = new Set([
  'true',
  'false',
  'production',
  'development',
  'staging',
  'localhost',
  'disabled',
  'enabled',
  'verbose',
  'warning',
  'default',
  'container',
  'noninteractive',
]);

/** A run of 16+ token characters mixing letters and digits: what keys and tokens look like. */
function tokenLike(s: string): boolean {
  for (const run of s.match(/[A-Za-z0-9_+=]{16,}/g) ?? []) if (/[0-9]/.test(run) && /[A-Za-z]/.test(run)) return true;
  return false;
}

/** One or more absolute paths (`:`-separated), none of whose parts looks like a token. */
function isPathList(v: string): boolean {
  return v
    .split(':')
    .every((p) => p === '' || (/^(?:\/|~\/)[^\0\n\r]*$/.test(p) && p.split('/').every((seg) => !tokenLike(seg))));
}

/** `host`, `host:port`, an IPv4 address: labels of letters, digits and hyphens, none token-like. */
function isHostPort(v: string): boolean {
  const m = /^([A-Za-z0-9.-]+)(?::\d{1,5})?$/.exec(v);
  if (!m) return false;
  const labels = m[1]!.split('.');
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(m[1]!)) return true;
  return (
    labels.length >= 2 &&
    /^[A-Za-z]{2,}$/.test(labels[labels.length - 1]!) &&
    labels.every((l) => l.length <= 40 && !tokenLike(l))
  );
}

/** A decimal number up to 12 digits (ports, sizes, timeouts); longer digit strings may be account or card numbers. */
function isSmallNumber(v: string): boolean {
  return /^[+-]?\d{1,12}(?:\.\d{1,6})?$/.test(v);
}

/**
 * Schemes whose path names a database (or a virtual host, a database number): a name the
 * deployment chose, shown by every client of it, never a credential. A test run's database named
 * after its task queue would otherwise redact the queue's name wherever it is logged.
 */
const DATABASE_SCHEMES = new Set([
  'postgres:',
  'postgresql:',
  'mysql:',
  'mariadb:',
  'redis:',
  'rediss:',
  'mongodb:',
  'mongodb+srv:',
  'amqp:',
  'amqps:',
]);

/**
 * A URL's secret parts: password, a user name of 16+ characters or token-like, query values and
 * a fragment of MIN_SECRET_LENGTH+, token-like path segments (not a database's name) and host
 * labels. Undefined when the value is not a URL with a host.
 */
function urlSecrets(v: string): string[] | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^\s]+$/i.test(v)) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return undefined;
  }
  if (!u.host) return undefined;
  const dec = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const out: string[] = [];
  if (u.password) out.push(dec(u.password));
  if (u.username && (u.username.length >= 16 || tokenLike(u.username))) out.push(dec(u.username));
  for (const [, value] of u.searchParams) if (value.length >= MIN_SECRET_LENGTH) out.push(value);
  if (u.hash.length > MIN_SECRET_LENGTH) out.push(dec(u.hash.slice(1)));
  if (!DATABASE_SCHEMES.has(u.protocol.toLowerCase()))
    for (const seg of u.pathname.split('/')) if (tokenLike(seg)) out.push(dec(seg));
  for (const label of u.hostname.split('.')) if (tokenLike(label)) out.push(label);
  return out;
}

/** Why a value holds no credential whatever its name (undefined: it may). */
export function benignShape(value: string): string | undefined {
  if (value.length < MIN_SECRET_LENGTH) return 'short';
  const v = value.trim();
  if (isSmallNumber(v)) return 'number';
  if (BENIGN_WORDS.has(v.toLowerCase())) return 'word';
  if (isPathList(v)) return 'path';
  if (isHostPort(v)) return 'host';
  return undefined;
}

export interface EnvSecretOptions {
  /** Names (`*` suffix: prefix) added to the benign list (config `secrets.benignEnv`). */
  benign?: readonly string[];
  /** Names that are secrets whatever their value's shape (config `secrets.env`, provider keys). */
  secret?: readonly string[];
}

function nameMatches(name: string, pattern: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

export function isBenignName(name: string, extra: readonly string[] = []): boolean {
  return BENIGN_ENV.some((b) => nameMatches(name, b.name)) || extra.some((p) => nameMatches(name, p));
}

/** The secret values in an environment, each named after its variable. */
export function envSecrets(env: Record<string, string | undefined>, o: EnvSecretOptions = {}): SecretValue[] {
  const out: SecretValue[] = [];
  const forced = new Set(o.secret ?? []);
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < MIN_SECRET_LENGTH) continue;
    if (forced.has(name)) {
      out.push({ name, value });
      continue;
    }
    if (isBenignName(name, o.benign)) continue;
    const parts = urlSecrets(value.trim());
    if (parts) {
      for (const p of parts) if (p.length >= MIN_SECRET_LENGTH) out.push({ name, value: p });
      continue;
    }
    if (benignShape(value) === undefined) out.push({ name, value });
  }
  return out;
}
