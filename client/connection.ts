/**
 * How a client finds Herald: environment variables first, else the runtime file a running
 * `herald dev` wrote under the Herald home, else the Temporal default address.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import type { HeraldConfig } from '../runtime/config.js';
import { homePaths } from '../runtime/paths.js';
import type { RuntimeInfo } from '../workers/dev-stack.js';
import { payloadCodecs } from '../runtime/data-converter.js';

export interface ClientSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  databaseUrl: string | undefined;
  uiUrl: string | undefined;
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
  return {
    address: config.temporalAddress ?? rt?.temporalAddress ?? '127.0.0.1:7233',
    namespace: config.temporalAddress ? config.namespace : (rt?.namespace ?? config.namespace),
    taskQueue: config.taskQueue,
    databaseUrl: config.databaseUrl ?? rt?.databaseUrl,
    uiUrl: rt?.uiUrl,
  };
}

export async function connectTemporal(settings: Pick<ClientSettings, 'address' | 'namespace'>): Promise<Client> {
  let connection: Connection;
  try {
    connection = await Connection.connect({ address: settings.address, connectTimeout: 5000 });
  } catch (err) {
    throw new Error(
      `cannot reach Temporal at ${settings.address} (${(err as Error).message}); start it with \`herald dev\` or set TEMPORAL_ADDRESS`,
    );
  }
  return new Client({ connection, namespace: settings.namespace, dataConverter: { payloadCodecs: payloadCodecs() } });
}
