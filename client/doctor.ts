/**
 * `herald doctor`: what works on this machine and what does not, each check one line with the
 * cause and what to do. Temporal (reachable, its version, Herald's search attributes), Postgres
 * (reachable, migrated), each configured provider (key present, endpoint answering — skipped with
 * `--offline`), the tool sandbox (what bubblewrap can do here), and disk space under the home.
 */
import { statfsSync, existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import { SEARCH_ATTRIBUTE_NAMES } from '../common/constants.js';
import type { ProviderRef } from '../common/providers.js';
import { resolveProvider } from '../common/providers.js';
import { describeNetwork } from '../common/sandbox-policy.js';
import { ToolSandbox } from '../activities/sandbox/sandbox.js';
import { redactUrl } from '../activities/store/db.js';
import type { HeraldConfig } from '../runtime/config.js';
import { clientSettings } from './connection.js';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
}

const MIGRATIONS_DIR = fileURLToPath(new URL('../activities/store/migrations/', import.meta.url));

async function temporalChecks(config: HeraldConfig): Promise<Check[]> {
  const { address, namespace } = clientSettings(config);
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout: 3000 });
  } catch (err) {
    return [
      {
        name: 'temporal',
        status: 'fail',
        detail: `cannot reach ${address} (${(err as Error).message.split('\n')[0]}): start \`herald dev\` or set TEMPORAL_ADDRESS`,
      },
    ];
  }
  try {
    const info = await connection.workflowService.getSystemInfo({});
    const out: Check[] = [
      { name: 'temporal', status: 'ok', detail: `${address}, server ${info.serverVersion || 'unknown version'}` },
    ];
    try {
      const sa = await connection.operatorService.listSearchAttributes({ namespace });
      const have = new Set(Object.keys(sa.customAttributes ?? {}));
      const missing = SEARCH_ATTRIBUTE_NAMES.filter((n) => !have.has(n));
      out.push(
        missing.length
          ? {
              name: 'search attributes',
              status: 'warn',
              detail: `missing ${missing.join(', ')} in namespace ${namespace} (a worker registers them at start)`,
            }
          : { name: 'search attributes', status: 'ok', detail: `registered in namespace ${namespace}` },
      );
    } catch (err) {
      out.push({ name: 'search attributes', status: 'warn', detail: (err as Error).message.split('\n')[0] ?? '' });
    }
    return out;
  } finally {
    await connection.close();
  }
}

async function postgresChecks(config: HeraldConfig): Promise<Check[]> {
  const url = clientSettings(config).databaseUrl;
  if (!url)
    return [{ name: 'postgres', status: 'fail', detail: 'DATABASE_URL is not set and no `herald dev` is running' }];
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const version = (await client.query<{ v: string }>('SHOW server_version')).rows[0]?.v ?? '?';
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql'));
    const applied = await client
      .query<{ name: string }>('SELECT name FROM herald_migrations')
      .then((r) => new Set(r.rows.map((x) => x.name)))
      .catch(() => new Set<string>());
    const pending = files.filter((f) => !applied.has(f));
    return [
      { name: 'postgres', status: 'ok', detail: `${redactUrl(url)}, PostgreSQL ${version}` },
      pending.length
        ? { name: 'migrations', status: 'warn', detail: `${pending.length} pending (a worker applies them at start)` }
        : { name: 'migrations', status: 'ok', detail: `all ${files.length} applied` },
    ];
  } catch (err) {
    return [{ name: 'postgres', status: 'fail', detail: `${redactUrl(url)}: ${(err as Error).message}` }];
  } finally {
    await client.end().catch(() => {});
  }
}

/** The providers this worker would use: the default model, the fallback chain and the auxiliary model. */
function configuredProviders(config: HeraldConfig): ProviderRef[] {
  const refs: ProviderRef[] = [];
  const add = (req: Parameters<typeof resolveProvider>[0]) => {
    try {
      const ref = resolveProvider(req, config.providerDefaults);
      if (!refs.some((r) => r.baseUrl === ref.baseUrl && r.apiKeyEnv === ref.apiKeyEnv)) refs.push(ref);
    } catch {
      // reported by the provider check of the default model
    }
  };
  add({});
  for (const f of config.file.fallbackProviders) add(f);
  if (config.file.auxiliary) add(config.file.auxiliary);
  return refs;
}

async function providerChecks(config: HeraldConfig, env: NodeJS.ProcessEnv, offline: boolean): Promise<Check[]> {
  const out: Check[] = [];
  try {
    resolveProvider({}, config.providerDefaults);
  } catch (err) {
    out.push({ name: 'provider', status: 'fail', detail: `${(err as Error).message} (set HERALD_MODEL)` });
  }
  for (const ref of configuredProviders(config)) {
    const name = `provider ${ref.provider} (${ref.model})`;
    const key = (ref.credentialPool ?? [ref.apiKeyEnv]).filter((n) => env[n]);
    const keyNote = key.length
      ? `key in ${key.join(', ')}`
      : ref.provider === 'custom'
        ? 'no key (fine for a local server)'
        : `no key: set ${ref.apiKeyEnv}`;
    if (!key.length && ref.provider !== 'custom') {
      out.push({ name, status: 'fail', detail: `${ref.baseUrl}; ${keyNote}` });
      continue;
    }
    if (offline) {
      out.push({ name, status: 'ok', detail: `${ref.baseUrl}; ${keyNote}; endpoint not checked (--offline)` });
      continue;
    }
    out.push(await probeEndpoint(name, ref, key[0] ? env[key[0]] : undefined, keyNote));
  }
  return out;
}

/** A cheap authenticated request: the model list (OpenAI-compatible and Anthropic both have one). */
async function probeEndpoint(name: string, ref: ProviderRef, key: string | undefined, keyNote: string): Promise<Check> {
  const base = ref.baseUrl.replace(/\/+$/, '');
  const anthropic = ref.apiMode === 'anthropic_messages';
  const url = anthropic ? `${base}/v1/models` : `${base}/models`;
  const headers: Record<string, string> = anthropic
    ? { 'x-api-key': key ?? '', 'anthropic-version': '2023-06-01' }
    : key
      ? { authorization: `Bearer ${key}` }
      : {};
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
    if (res.ok) return { name, status: 'ok', detail: `${ref.baseUrl} answers; ${keyNote}` };
    const why = res.status === 401 || res.status === 403 ? 'the key was refused' : `HTTP ${res.status} from ${url}`;
    return { name, status: res.status === 404 ? 'warn' : 'fail', detail: `${ref.baseUrl}: ${why}; ${keyNote}` };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    return { name, status: 'fail', detail: `${ref.baseUrl} unreachable (${cause}); ${keyNote}` };
  }
}

function sandboxCheck(config: HeraldConfig, env: NodeJS.ProcessEnv): Check {
  const sandbox = ToolSandbox.create({ config: config.file.sandbox, env, hidden: [config.home] });
  const s = sandbox.status;
  if (s.active)
    return {
      name: 'sandbox',
      status: 'ok',
      detail:
        `bubblewrap works: tools run as uid 65534 in their own namespaces; network: ${describeNetwork(config.file.sandbox.network)}; ` +
        `caps by ${s.caps === 'cgroup' ? 'per-call cgroups' : 'rlimits'}${s.caps === 'rlimit' && process.getuid?.() === 0 ? ' (the process cap does not bind a root worker)' : ''}`,
    };
  if (s.mode === 'off')
    return { name: 'sandbox', status: 'warn', detail: 'sandbox.mode is off: tools run unsandboxed' };
  return {
    name: 'sandbox',
    status: s.mode === 'required' ? 'fail' : 'warn',
    detail: `${s.reason}; ${s.mode === 'required' ? 'tools that start processes will refuse (sandbox.mode: required)' : 'tools would run UNSANDBOXED (sandbox.mode: auto)'}`,
  };
}

function diskCheck(config: HeraldConfig): Check {
  let dir = config.home;
  while (!existsSync(dir) && dir !== '/') dir = dir.replace(/\/[^/]*$/, '') || '/';
  try {
    const st = statfsSync(dir);
    const freeGb = (st.bavail * st.bsize) / 1024 ** 3;
    return {
      name: 'disk',
      status: freeGb < 1 ? 'fail' : freeGb < 5 ? 'warn' : 'ok',
      detail: `${freeGb.toFixed(1)} GB free under ${dir}`,
    };
  } catch (err) {
    return { name: 'disk', status: 'warn', detail: (err as Error).message };
  }
}

export async function runDoctor(
  config: HeraldConfig,
  o: { offline?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<Check[]> {
  const env = o.env ?? process.env;
  return [
    { name: 'config', status: 'ok', detail: config.configPath ?? `no config file (${config.home}/config.yaml)` },
    ...(await temporalChecks(config)),
    ...(await postgresChecks(config)),
    ...(await providerChecks(config, env, o.offline ?? false)),
    sandboxCheck(config, env),
    diskCheck(config),
  ];
}

const MARK: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗', skip: '-' };

export function renderChecks(checks: readonly Check[]): string {
  const width = Math.max(...checks.map((c) => c.name.length));
  return checks.map((c) => `${MARK[c.status]} ${c.name.padEnd(width)}  ${c.detail}`).join('\n');
}
