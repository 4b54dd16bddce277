/**
 * How a client finds Herald: environment variables first, else the runtime file a running
 * `herald dev` wrote under the Herald home, else where `herald dev` would listen
 * (127.0.0.1:HERALD_TEMPORAL_PORT). When Temporal does not answer, the error names the address
 * tried, where that address came from, and what to do.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import type { HeraldConfig } from '../runtime/config.js';
import { homePaths } from '../runtime/paths.js';
import { pidExists } from '../runtime/process-identity.js';
import type { RuntimeInfo } from '../workers/dev-stack.js';
import type { CodecKeyring } from '../runtime/codec-keys.js';
import { clientDataConverter } from '../runtime/data-converter.js';
import type { TemporalSecurity } from '../runtime/temporal-connection.js';
import { missingCredentialsHint } from '../runtime/temporal-connection.js';
import { tracingWanted } from '../runtime/tracing-config.js';

/** Where a client's Temporal address came from (for the "cannot reach" message). */
export type AddressOrigin =
  { kind: 'env' } | { kind: 'runtime'; file: string; pid: number } | { kind: 'default'; home: string; port: number };

export interface ClientSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  databaseUrl: string | undefined;
  uiUrl: string | undefined;
  origin?: AddressOrigin;
  /** The payload codec's keys (must match the workers'); absent: payloads are written in plaintext. */
  codec?: CodecKeyring | undefined;
  /** TLS / API key: only for an address from the environment or a Temporal profile, never `herald dev`'s. */
  security?: TemporalSecurity;
  /**
   * Propagate the caller's trace into the workflow (the OpenTelemetry client interceptor); by
   * default when the `OTEL_*` environment turns tracing on. Spans need a registered tracer
   * provider: the CLI starts one (runtime/tracing.ts), a program using the library its own.
   */
  tracing?: boolean;
}

export function readRuntimeInfo(home: string): RuntimeInfo | undefined {
  const file = homePaths(home).runtimeFile;
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as RuntimeInfo;
  } catch {
    return undefined;
  }
}

export function clientSettings(config: HeraldConfig): ClientSettings {
  const rt = readRuntimeInfo(config.home);
  const origin: AddressOrigin = config.temporalAddress
    ? { kind: 'env' }
    : rt?.temporalAddress
      ? { kind: 'runtime', file: homePaths(config.home).runtimeFile, pid: rt.pid }
      : { kind: 'default', home: config.home, port: config.ports.temporal };
  return {
    address: config.temporalAddress ?? rt?.temporalAddress ?? `127.0.0.1:${config.ports.temporal}`,
    namespace: config.temporalAddress ? config.namespace : (rt?.namespace ?? config.namespace),
    taskQueue: config.taskQueue,
    databaseUrl: config.databaseUrl ?? rt?.databaseUrl,
    uiUrl: rt?.uiUrl,
    origin,
    codec: config.codec,
    security: config.temporalAddress ? config.temporalSecurity : {},
  };
}

/** The one-line error for a Temporal that does not answer: the address tried, its origin, the fix. */
export function cannotReachMessage(
  address: string,
  origin: AddressOrigin | undefined,
  reason: string,
  alive: (pid: number) => boolean = pidExists,
): string {
  const head = `cannot reach Temporal at ${address} (${reason})`;
  switch (origin?.kind) {
    case 'env':
      return `${head}: that is TEMPORAL_ADDRESS; check the server there, or unset TEMPORAL_ADDRESS and run \`herald dev\``;
    case 'runtime':
      return alive(origin.pid)
        ? `${head}: the address of the \`herald dev\` running as pid ${origin.pid} (${origin.file}); its Temporal server does not answer, check that process's output`
        : `${head}: ${origin.file} names it, but the \`herald dev\` that wrote it (pid ${origin.pid}) is gone; start the stack again with \`herald dev\``;
    case 'default':
      return `${head}: no \`herald dev\` is running for ${origin.home} (port from HERALD_TEMPORAL_PORT, default 7233); start the stack with \`herald dev\` in another terminal, or set TEMPORAL_ADDRESS`;
    default:
      return `${head}; start the stack with \`herald dev\` or set TEMPORAL_ADDRESS`;
  }
}

export async function connectTemporal(
  settings: Pick<ClientSettings, 'address' | 'namespace' | 'origin' | 'security' | 'tracing' | 'codec'>,
): Promise<Client> {
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...settings.security, address: settings.address, connectTimeout: 5000 });
  } catch (err) {
    const hint = missingCredentialsHint(settings.address, settings.security ?? {});
    const message = cannotReachMessage(settings.address, settings.origin, (err as Error).message);
    throw new Error(hint ? `${message}. ${hint}` : message);
  }
  const tracing = settings.tracing ?? tracingWanted(process.env);
  // The OpenTelemetry interceptor is loaded only for tracing: every CLI command connects here.
  const otel = tracing ? await import('@temporalio/interceptors-opentelemetry/lib/client/index.js') : undefined;
  return new Client({
    connection,
    namespace: settings.namespace,
    dataConverter: clientDataConverter(settings.codec),
    ...(otel ? { interceptors: { workflow: [new otel.OpenTelemetryWorkflowClientInterceptor()] } } : {}),
  });
}
