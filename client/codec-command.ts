/** `herald codec-server` and `herald codec-key` (docs/encryption.md). */
import type { HeraldConfig } from '../runtime/config.js';
import { ConfigError } from '../runtime/config.js';
import { newCodecKeyEntry } from '../runtime/codec-keys.js';
import type { RunningCodecServer } from '../runtime/codec-server.js';
import { startCodecServer } from '../runtime/codec-server.js';
import { clientCodec } from '../runtime/data-converter.js';

export interface CodecServerFlags {
  host: string;
  port?: string | undefined;
  uiOrigin?: string[] | undefined;
  maxBodyBytes: string;
}

export async function runCodecServer(
  cfg: HeraldConfig,
  o: CodecServerFlags,
  env: NodeJS.ProcessEnv = process.env,
  say: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<RunningCodecServer> {
  if (!cfg.codec)
    throw new ConfigError(
      'config error: no codec keys: set HERALD_CODEC_KEY (id:base64key pairs) or codec.keyFile in the config file',
      'HERALD_CODEC_KEY',
    );
  const port = o.port === undefined ? cfg.ports.codec : Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port: ${o.port}`);
  const maxBodyBytes = Number(o.maxBodyBytes);
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1024) throw new Error('--max-body-bytes: at least 1024');
  const origins = o.uiOrigin?.length
    ? o.uiOrigin
    : [`http://127.0.0.1:${cfg.ports.ui}`, `http://localhost:${cfg.ports.ui}`];
  const token = env.HERALD_CODEC_TOKEN || undefined;
  const server = await startCodecServer({
    codec: clientCodec(cfg.codec),
    host: o.host,
    port,
    origins,
    token,
    maxBodyBytes,
  });
  say(
    `codec server on ${server.url} (keys: ${cfg.codec.keys.map((k) => k.id).join(', ')}; encrypting with ${cfg.codec.keys[0]!.id})`,
  );
  say(`Web UI origins allowed: ${origins.join(', ')}${token ? '; bearer token required' : ''}`);
  say(
    `temporal CLI: temporal workflow show -w <id> --codec-endpoint ${server.url}${token ? ' --codec-auth "Bearer $HERALD_CODEC_TOKEN"' : ''}`,
  );
  return server;
}

/** A fresh `id:base64key` entry: 32 random bytes from node:crypto. */
export function runCodecKey(id: string | undefined, now = new Date()): string {
  return newCodecKeyEntry(id ?? `key-${now.toISOString().slice(0, 10).replace(/-/g, '')}`);
}
