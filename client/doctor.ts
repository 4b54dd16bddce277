/**
 * `herald doctor`: what works on this machine and what does not, each check one line with the
 * cause and what to do. Temporal (reachable, its version, Herald's search attributes), Postgres
 * (reachable, migrated), each configured provider (key present, endpoint answering — skipped with
 * `--offline`), the tool sandbox (what bubblewrap can do here), the workspace roots, and disk space
 * under the home.
 */
import { statfsSync, existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import { SEARCH_ATTRIBUTE_NAMES } from '../common/constants.js';
import type { ProviderRef } from '../common/providers.js';
import { keyOptional, resolveProvider } from '../common/providers.js';
import { describeNetwork } from '../common/sandbox-policy.js';
import { ToolSandbox } from '../sandbox/sandbox.js';
import type { SandboxStatus } from '../sandbox/sandbox.js';
import { CREATE_ACCOUNT, FIXED_SANDBOX_ID, SANDBOX_ACCOUNT, sandboxIdentity } from '../sandbox/sandbox-user.js';
import { spawnSync } from 'node:child_process';
import { redactUrl } from '../store/db.js';
import type { ClientOptions } from '../model-adapters/clients.js';
import { anthropicClient, openaiClient } from '../model-adapters/clients.js';
import type { HeraldConfig } from '../runtime/config.js';
import { describeSecurity, missingCredentialsHint } from '../runtime/temporal-connection.js';
import { clientSettings } from './connection.js';
import { clientCodec } from '../runtime/data-converter.js';
import { buildWorkspacePolicy, confineCwd } from '../runtime/workspace-roots.js';
import { checkpointStore } from '../checkpoints/paths.js';
import { storeSize } from '../checkpoints/retention.js';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
}

const MIGRATIONS_DIR = fileURLToPath(new URL('../store/migrations/', import.meta.url));

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

async function temporalChecks(config: HeraldConfig): Promise<Check[]> {
  const { address, namespace, security } = clientSettings(config);
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...security, address, connectTimeout: 3000 });
  } catch (err) {
    return [
      {
        name: 'temporal',
        status: 'fail',
        detail: `cannot reach ${address} (${firstLine(err)}): ${missingCredentialsHint(address, security ?? {}) ?? 'start `herald dev`, or set TEMPORAL_ADDRESS to a running server'}`,
      },
    ];
  }
  try {
    const info = await connection.workflowService.getSystemInfo({});
    const out: Check[] = [
      {
        name: 'temporal',
        status: 'ok',
        detail: `${address}${security?.apiKey || security?.tls ? ` (${describeSecurity(security)})` : ''}, server ${info.serverVersion || 'unknown version'}`,
      },
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
              detail: `missing ${missing.join(', ')} in namespace ${namespace}: start a worker (it registers them), or \`temporal operator search-attribute create --namespace ${namespace} --name ${missing[0]} --type Keyword\` for each`,
            }
          : { name: 'search attributes', status: 'ok', detail: `registered in namespace ${namespace}` },
      );
    } catch (err) {
      out.push({
        name: 'search attributes',
        status: 'warn',
        detail: `cannot list them in namespace ${namespace} (${firstLine(err)}): check the namespace (TEMPORAL_NAMESPACE)`,
      });
    }
    return out;
  } finally {
    await connection.close();
  }
}

async function postgresChecks(config: HeraldConfig): Promise<Check[]> {
  const url = clientSettings(config).databaseUrl;
  if (!url)
    return [
      {
        name: 'postgres',
        status: 'fail',
        detail: 'DATABASE_URL is not set and no `herald dev` is running: start `herald dev`, or set DATABASE_URL',
      },
    ];
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const version =
      (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? '?';
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
    const applied = await client
      .query<{ name: string }>('SELECT name FROM herald_migrations')
      .then((r) => r.rows.map((x) => x.name))
      .catch(() => [] as string[]);
    return [
      { name: 'postgres', status: 'ok', detail: `${redactUrl(url)}, PostgreSQL ${version}` },
      migrationCheck(files, applied),
    ];
  } catch (err) {
    return [
      {
        name: 'postgres',
        status: 'fail',
        detail: `cannot reach ${redactUrl(url)} (${firstLine(err)}): start \`herald dev\`, or fix DATABASE_URL`,
      },
    ];
  } finally {
    await client.end().catch(() => {});
  }
}

/** The schema version (the last migration applied) against the one this Herald expects. */
export function migrationCheck(files: readonly string[], applied: readonly string[]): Check {
  const version = (names: readonly string[]) => [...names].sort().at(-1)?.replace(/_.*$/, '') ?? 'none';
  const expected = version(files);
  const unknown = applied.filter((a) => !files.includes(a));
  const pending = files.filter((f) => !applied.includes(f));
  if (unknown.length)
    return {
      name: 'migrations',
      status: 'warn',
      detail: `schema ${version(applied)} is newer than this Herald's ${expected} (${unknown.join(', ')}): upgrade Herald before running its workers here`,
    };
  if (pending.length)
    return {
      name: 'migrations',
      status: 'warn',
      detail: `schema ${version(applied)}, expected ${expected} (${pending.length} pending): a worker applies them at start (\`herald worker\` or \`herald dev\`)`,
    };
  return { name: 'migrations', status: 'ok', detail: `schema ${expected}, as expected (${files.length} migrations)` };
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
    out.push({
      name: 'provider',
      status: 'fail',
      detail: `${firstLine(err)}: set HERALD_MODEL, or model.name in the config`,
    });
  }
  for (const ref of configuredProviders(config)) {
    const name = `provider ${ref.provider} (${ref.model})`;
    const key = (ref.credentialPool ?? [ref.apiKeyEnv]).filter((n) => env[n]);
    const keyNote = key.length
      ? `key in ${key.join(', ')}`
      : keyOptional(ref.provider)
        ? 'no key (fine for a local server)'
        : `no key in ${ref.apiKeyEnv}`;
    if (!key.length && !keyOptional(ref.provider)) {
      out.push({
        name,
        status: 'fail',
        detail: `${ref.baseUrl}; ${keyNote}: set ${ref.apiKeyEnv} where the worker runs`,
      });
      continue;
    }
    if (offline) {
      out.push({ name, status: 'ok', detail: `${ref.baseUrl}; ${keyNote}; endpoint not checked (--offline)` });
      continue;
    }
    out.push(await probeEndpoint(name, ref, { env, endpoints: config.providerDefaults, timeoutMs: 5000 }, keyNote));
  }
  return out;
}

/** The first `code` (ECONNREFUSED, ENOTFOUND, …) down an error's cause chain. */
function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A cheap authenticated request, through the same SDK clients the worker's model calls use: the
 * model list (OpenAI-compatible servers and Anthropic both have one). What a server says on a
 * refusal is not printed: some echo part of the key.
 */
async function probeEndpoint(name: string, ref: ProviderRef, client: ClientOptions, keyNote: string): Promise<Check> {
  try {
    const models =
      ref.apiMode === 'anthropic_messages'
        ? (await anthropicClient(ref, client).models.list({ limit: 100 })).data.map((m) => m.id)
        : (await openaiClient(ref, client).models.list()).data.map((m) => m.id);
    const listed = models.includes(ref.model) ? `, ${ref.model} among them` : '';
    return { name, status: 'ok', detail: `${ref.baseUrl} answers (${models.length} models${listed}); ${keyNote}` };
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number') {
      if (status === 401 || status === 403)
        return {
          name,
          status: 'fail',
          detail: `${ref.baseUrl} refused the key (HTTP ${status}); ${keyNote}: check it, or rotate it`,
        };
      // Some OpenAI-compatible servers have no model list: the endpoint answers, the call may still work.
      return {
        name,
        status: status === 404 || status === 405 ? 'warn' : 'fail',
        detail: `${ref.baseUrl} answered the model list with HTTP ${status}; ${keyNote}: check the base URL (baseUrl / OPENAI_BASE_URL)`,
      };
    }
    return {
      name,
      status: 'fail',
      detail: `${ref.baseUrl} unreachable (${errorCode(err) ?? firstLine(err)}); ${keyNote}: is the server running? check the base URL, or use --offline`,
    };
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
        `bubblewrap works: tools run as ${runsAs(s.user)} in their own namespaces; network: ${describeNetwork(config.file.sandbox.network)}; ` +
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

function runsAs(user: SandboxStatus['user']): string {
  if (!user) return 'an unprivileged user';
  if (user.kind === 'namespace') return `uid 65534 (your uid ${user.uid} on the host)`;
  return user.source === 'account'
    ? `${SANDBOX_ACCOUNT} (uid ${user.uid}, gid ${user.gid})`
    : `the sandbox user (uid/gid ${user.uid}, no account)`;
}

/**
 * The sandbox user: what a root worker's tools run as on the host. `fix` creates the
 * herald-sandbox account when there is none (useradd; root only).
 */
export function sandboxUserCheck(o: { fix?: boolean; uid?: number } = {}): Check {
  const name = 'sandbox user';
  const uid = o.uid ?? process.getuid?.() ?? -1;
  if (uid !== 0)
    return {
      name,
      status: 'ok',
      detail: `the worker is not root: tools keep its uid ${uid} behind a user namespace (uid 65534 inside); no account needed`,
    };
  let id = sandboxIdentity();
  let made = '';
  if (o.fix && id.ok && id.identity.source === 'fixed') {
    const r = spawnSync(CREATE_ACCOUNT[0]!, CREATE_ACCOUNT.slice(1), { encoding: 'utf8', timeout: 30_000 });
    if (r.status !== 0)
      return {
        name,
        status: 'fail',
        detail: `could not create the ${SANDBOX_ACCOUNT} account (${(r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n')[0]}): run \`${CREATE_ACCOUNT.join(' ')}\``,
      };
    made = 'created just now; ';
    id = sandboxIdentity();
  }
  if (!id.ok) return { name, status: 'fail', detail: id.reason };
  const { identity } = id;
  if (identity.source === 'account')
    return {
      name,
      status: 'ok',
      detail: `${made}tools of this root worker run as ${SANDBOX_ACCOUNT} (uid ${identity.uid}, gid ${identity.gid}), never as root`,
    };
  return {
    name,
    status: 'ok',
    detail: `no ${SANDBOX_ACCOUNT} account: tools of this root worker run as the fixed uid/gid ${FIXED_SANDBOX_ID}, never as root (\`herald doctor --fix\` creates the account)`,
  };
}

/** The workspace roots a worker with this config would use, the ones it would set aside, and the default workspace. */
export async function workspaceCheck(config: HeraldConfig, env: NodeJS.ProcessEnv): Promise<Check> {
  const setting = config.workspaceRoots;
  const policy = await buildWorkspacePolicy({ setting, heraldHome: config.home, env });
  // The built-in default root is made by the worker at its start: missing is no fault yet.
  const refused = policy.refusedRoots.filter((r) => !(setting.isDefault && r.why === 'no such folder'));
  const pending = setting.isDefault && !policy.roots.length && !refused.length ? setting.roots : [];
  const roots = [...policy.roots, ...pending.map((r) => `${r} (made at worker start)`)];
  const fallback = config.workspace ?? policy.roots[0] ?? pending[0];
  const verdict = fallback
    ? await confineCwd(fallback, undefined, { ...policy, roots: [...policy.roots, ...pending] })
    : undefined;
  const parts = [
    roots.length ? `roots ${roots.join(', ')} (${setting.source})` : `no usable root (${setting.source})`,
    ...refused.map((r) => `set aside ${r.root}: ${r.why}`),
    fallback
      ? `default workspace ${fallback}${verdict && !verdict.ok && !pending.includes(fallback) ? ` — refused: ${verdict.why}` : ''}`
      : 'no default workspace',
  ];
  const bad = !roots.length;
  const warn = refused.length > 0 || (verdict !== undefined && !verdict.ok && !pending.includes(fallback ?? ''));
  return {
    name: 'workspaces',
    status: bad ? 'fail' : warn ? 'warn' : 'ok',
    detail: `${parts.join('; ')}${bad ? ': every conversation would be refused; set workspaceRoots or HERALD_WORKSPACE_ROOTS' : ''}`,
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
      detail: `${freeGb.toFixed(1)} GB free under ${dir}${freeGb < 5 ? ': Temporal, Postgres and tool output need room; free some, or set HERALD_HOME on a larger disk' : ''}`,
    };
  } catch (err) {
    return { name: 'disk', status: 'warn', detail: (err as Error).message };
  }
}

export async function runDoctor(
  config: HeraldConfig,
  o: { offline?: boolean; env?: NodeJS.ProcessEnv; fix?: boolean } = {},
): Promise<Check[]> {
  const env = o.env ?? process.env;
  // First: --fix may create the account the sandbox check then finds.
  const user = sandboxUserCheck({ fix: o.fix ?? false });
  return [
    { name: 'config', status: 'ok', detail: config.configPath ?? `no config file (${config.home}/config.yaml)` },
    ...(await temporalChecks(config)),
    ...(await postgresChecks(config)),
    ...(await providerChecks(config, env, o.offline ?? false)),
    sandboxCheck(config, env),
    user,
    await workspaceCheck(config, env),
    await payloadCheck(config),
    diskCheck(config),
    checkpointStoreCheck(config),
  ];
}

/** The checkpoint store's size (docs/checkpoints.md). */
function checkpointStoreCheck(config: HeraldConfig): Check {
  const c = config.file.checkpoints;
  if (!c.enabled) return { name: 'checkpoints', status: 'skip', detail: 'off (checkpoints.enabled: false)' };
  const { repos, bytes } = storeSize(checkpointStore(config.home));
  const mb = bytes / 1024 / 1024;
  return {
    name: 'checkpoints',
    status: mb > c.maxStoreMb ? 'warn' : 'ok',
    detail: `${mb.toFixed(1)} MB in ${repos} shadow repositor${repos === 1 ? 'y' : 'ies'} under ${checkpointStore(config.home)} (limit ${c.maxStoreMb} MB, ${c.retentionDays} days)`,
  };
}

/** Whether payloads are encrypted, and that the codec round-trips with the configured keys. */
async function payloadCheck(config: HeraldConfig): Promise<Check> {
  if (!config.codec)
    return {
      name: 'payloads',
      status: 'skip',
      detail: 'plaintext in Temporal history (no HERALD_CODEC_KEY or codec.keyFile)',
    };
  const codec = clientCodec(config.codec);
  const probe = {
    metadata: { encoding: new TextEncoder().encode('json/plain') },
    data: new TextEncoder().encode('"probe"'),
  };
  try {
    const [sealed] = await codec.encode([probe]);
    const [opened] = await codec.decode([sealed!]);
    if (new TextDecoder().decode(opened!.data) !== '"probe"') throw new Error('round trip changed the payload');
  } catch (err) {
    return { name: 'payloads', status: 'fail', detail: `the codec does not round-trip: ${firstLine(err)}` };
  }
  const ids = config.codec.keys.map((k) => k.id);
  return {
    name: 'payloads',
    status: 'ok',
    detail: `encrypted with key ${ids[0]} (AES-256-GCM; ${ids.length > 1 ? `also decrypts ${ids.slice(1).join(', ')}; ` : ''}from ${config.codec.source})`,
  };
}

const MARK: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗', skip: '-' };

/** One line a check: mark, status word (greppable), name, cause and fix. */
export function renderChecks(checks: readonly Check[]): string {
  const width = Math.max(...checks.map((c) => c.name.length));
  return checks.map((c) => `${MARK[c.status]} ${c.status.padEnd(4)} ${c.name.padEnd(width)}  ${c.detail}`).join('\n');
}
