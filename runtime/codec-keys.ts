/**
 * The payload codec's keys: `HERALD_CODEC_KEY` (comma-separated `id:base64key` pairs) or the key
 * file the config's `codec.keyFile` names (the same pairs, by commas or lines, `#` comments). The
 * first key encrypts; every listed key decrypts, so a rotation puts the new key first and keeps
 * the old one after it. Bad key material is a `ConfigError` at startup, naming the key id and
 * never the key. Keys come from the process's environment or files, never from workflow input.
 */
import { randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createSecretKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** A key id: short, printable, safe in metadata and messages. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** At most this many keys (a rotation needs two; a few more are history). */
export const MAX_KEYS = 16;

export interface CodecKey {
  id: string;
  /** A KeyObject: its bytes never serialize (JSON.stringify gives `{}`). */
  key: KeyObject;
}

/** Where the keys came from, for messages (`HERALD_CODEC_KEY`, or the key file's path). */
export interface CodecKeyring {
  keys: CodecKey[];
  source: string;
}

/** Thrown for bad key material; runtime/config.ts turns it into a ConfigError with its key. */
export class CodecKeyError extends Error {
  constructor(
    message: string,
    readonly configKey: string,
  ) {
    super(message);
    this.name = 'CodecKeyError';
  }
}

const HINT = 'generate one with `herald codec-key` or `openssl rand -base64 32`';

/** Parse `id:base64key` pairs. `where` names the source in every message. */
export function parseCodecKeys(text: string, where: string, configKey: string): CodecKey[] {
  const fail = (m: string) => new CodecKeyError(`config error: ${where}: ${m}`, configKey);
  const entries = text
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .join(',')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (entries.length === 0) throw fail(`no keys (expected comma-separated id:base64key pairs; ${HINT})`);
  if (entries.length > MAX_KEYS) throw fail(`${entries.length} keys, at most ${MAX_KEYS}`);
  const keys: CodecKey[] = [];
  entries.forEach((entry, i) => {
    const colon = entry.indexOf(':');
    if (colon < 0) throw fail(`entry ${i + 1} is not id:base64key (no ":")`);
    const id = entry.slice(0, colon).trim();
    const b64 = entry.slice(colon + 1).trim();
    if (!KEY_ID_PATTERN.test(id))
      throw fail(
        `entry ${i + 1}: key id must be 1-64 letters, digits, ".", "_" or "-" (got ${JSON.stringify(id.slice(0, 70))})`,
      );
    if (keys.some((k) => k.id === id)) throw fail(`key id "${id}" is listed twice`);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) throw fail(`key "${id}" is not base64 (${HINT})`);
    const bytes = Buffer.from(b64, 'base64');
    if (bytes.length !== 32) throw fail(`key "${id}" is ${bytes.length} bytes; an AES-256 key is 32 (${HINT})`);
    if (bytes.every((b) => b === bytes[0])) throw fail(`key "${id}" is one byte repeated; use a random key (${HINT})`);
    keys.push({ id, key: createSecretKey(bytes) });
    bytes.fill(0);
  });
  return keys;
}

/**
 * The keyring from the environment, else from the config file's `codec.keyFile` (relative to the
 * config file), else none (payloads stay plaintext).
 */
export function loadCodecKeyring(
  env: NodeJS.ProcessEnv,
  keyFile: string | undefined,
  configPath: string,
): CodecKeyring | undefined {
  const fromEnv = env.HERALD_CODEC_KEY?.trim();
  if (fromEnv)
    return { keys: parseCodecKeys(fromEnv, 'HERALD_CODEC_KEY', 'HERALD_CODEC_KEY'), source: 'HERALD_CODEC_KEY' };
  if (!keyFile) return undefined;
  const path = resolve(dirname(configPath), keyFile);
  if (!existsSync(path))
    throw new CodecKeyError(`config error in ${configPath}: codec.keyFile: no such file ${path}`, 'codec.keyFile');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CodecKeyError(
      `config error in ${configPath}: codec.keyFile: cannot read ${path}: ${(err as Error).message}`,
      'codec.keyFile',
    );
  }
  return { keys: parseCodecKeys(text, `codec key file ${path}`, 'codec.keyFile'), source: path };
}

/** A new key entry for `herald codec-key`: `<id>:<base64 of 32 random bytes>`. */
export function newCodecKeyEntry(id: string): string {
  if (!KEY_ID_PATTERN.test(id)) throw new Error('a key id is 1-64 letters, digits, ".", "_" or "-"');
  return `${id}:${randomBytes(32).toString('base64')}`;
}
