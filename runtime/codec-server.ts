/**
 * `herald codec-server`: Temporal's remote codec protocol over HTTP, so the Web UI (its "Remote
 * Codec Endpoint") and `temporal --codec-endpoint` show decrypted payloads. `POST /encode` and
 * `POST /decode` (also under a namespace segment, `/<namespace>/decode`, for endpoint templating)
 * take and return `{"payloads":[{"metadata":{k: base64}, "data": base64}]}`.
 *
 * Whoever reaches it can read every conversation, so it fails closed: loopback unless a bearer
 * token is set (HERALD_CODEC_TOKEN, compared in constant time; the Web UI sends it when "Pass the
 * user access token" is on, or put a proxy in front); CORS only for the listed Web UI origins
 * (with credentials, as the UI's "Include cross-origin credentials" needs), and a request from any
 * other origin is refused; bodies over a bound are refused before they are read whole.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload } from '@temporalio/common';
import { isLoopbackHost } from '../common/loopback.js';
import type { AesGcmCodec } from './codec.js';
import { PayloadDecryptError, isEncrypted } from './codec.js';

export const DEFAULT_CODEC_PORT = 8888;
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
const MAX_PAYLOADS = 10_000;
const ALLOWED_HEADERS = 'Content-Type, X-Namespace, Authorization';

export interface CodecServerOptions {
  codec: AesGcmCodec;
  host?: string;
  port?: number;
  /** Web UI origins allowed by CORS (e.g. http://127.0.0.1:8233). */
  origins?: readonly string[];
  /** Required as `Authorization: Bearer <token>` when set. */
  token?: string | undefined;
  maxBodyBytes?: number;
  log?: { warn(obj: object, msg: string): void };
}

export interface RunningCodecServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export class CodecServerError extends Error {}

/** The codec server binds without a token only to loopback (common/loopback.ts). */
export const isLoopback = isLoopbackHost;

export async function startCodecServer(o: CodecServerOptions): Promise<RunningCodecServer> {
  const host = o.host ?? '127.0.0.1';
  if (!isLoopback(host) && !o.token)
    throw new CodecServerError(
      `refusing to serve decrypted payloads on ${host} without a token: set HERALD_CODEC_TOKEN (or listen on 127.0.0.1)`,
    );
  if (o.token !== undefined && o.token.length < 16)
    throw new CodecServerError(
      'HERALD_CODEC_TOKEN is too short: use at least 16 characters (e.g. `openssl rand -hex 24`)',
    );
  const origins = new Set((o.origins ?? []).map(normalizeOrigin));
  const maxBody = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const server = createServer((req, res) => {
    handle(req, res, { ...o, origins, maxBody }).catch((err: unknown) => {
      o.log?.warn({ err: String(err) }, 'codec server request failed');
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? DEFAULT_CODEC_PORT, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shown}:${addr.port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function normalizeOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    throw new CodecServerError(`not an origin: ${JSON.stringify(origin)} (expected e.g. http://127.0.0.1:8233)`);
  }
}

interface Ctx extends Omit<CodecServerOptions, 'origins'> {
  origins: Set<string>;
  maxBody: number;
}

async function handle(req: IncomingMessage, res: ServerResponse, ctx: Ctx): Promise<void> {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (!ctx.origins.has(origin)) {
      send(res, 403, { error: `origin ${origin} is not allowed (start the codec server with --ui-origin ${origin})` });
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Vary', 'Origin');
  }
  const path = new URL(req.url ?? '/', 'http://codec').pathname;
  const op = /^(?:\/[^/]+)?\/(encode|decode)\/?$/.exec(path)?.[1] as 'encode' | 'decode' | undefined;
  if (!op) {
    send(res, 404, { error: 'not found: POST /encode or /decode' });
    return;
  }
  if (req.method === 'OPTIONS') {
    // A preflight carries no credentials: it is answered without the token.
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    res.writeHead(204).end();
    return;
  }
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST, OPTIONS');
    send(res, 405, { error: 'method not allowed' });
    return;
  }
  if (ctx.token !== undefined && !bearerMatches(req.headers.authorization, ctx.token)) {
    res.setHeader('WWW-Authenticate', 'Bearer');
    send(res, 401, { error: 'missing or wrong bearer token' });
    return;
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > ctx.maxBody) {
    send(res, 413, { error: `request over ${ctx.maxBody} bytes` }, true);
    return;
  }
  const body = await readBody(req, ctx.maxBody);
  if (body === undefined) {
    send(res, 413, { error: `request over ${ctx.maxBody} bytes` }, true);
    return;
  }
  let payloads: Payload[];
  try {
    payloads = parsePayloads(body);
  } catch (err) {
    send(res, 400, { error: (err as Error).message });
    return;
  }
  const out = op === 'encode' ? await ctx.codec.encode(payloads) : payloads.map((p) => decodeForDisplay(ctx.codec, p));
  send(res, 200, { payloads: out.map(toJson) });
}

/**
 * A payload this server cannot decrypt is shown as a string that says why (which key it needs),
 * rather than failing the whole batch: the rest of the history stays readable in the UI.
 */
function decodeForDisplay(codec: AesGcmCodec, p: Payload): Payload {
  if (!isEncrypted(p)) return p;
  try {
    return codec.open(p);
  } catch (err) {
    if (!(err instanceof PayloadDecryptError)) throw err;
    return {
      metadata: { encoding: new TextEncoder().encode('json/plain') },
      data: new TextEncoder().encode(JSON.stringify(`[herald codec] ${err.message}`)),
    };
  }
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m) return false;
  const a = Buffer.from(m[1]!.trim());
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > max) {
        over = true;
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function bytesOf(v: unknown, what: string): Uint8Array {
  if (typeof v !== 'string' || !BASE64.test(v)) throw new Error(`${what} is not a base64 string`);
  return new Uint8Array(Buffer.from(v, 'base64'));
}

/** `{payloads:[...]}` with base64 fields, checked (a bad one is a 400, not a crash). */
export function parsePayloads(body: Buffer): Payload[] {
  let raw: unknown;
  try {
    raw = JSON.parse(body.toString('utf8'));
  } catch {
    throw new Error('body is not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('body is not a JSON object');
  // Protobuf JSON leaves an empty list out: `{}` is no payloads (the temporal CLI sends it for a query).
  const list = (raw as { payloads?: unknown }).payloads ?? [];
  if (!Array.isArray(list)) throw new Error('"payloads" is not an array');
  if (list.length > MAX_PAYLOADS) throw new Error(`over ${MAX_PAYLOADS} payloads`);
  return list.map((p: unknown, i) => {
    if (typeof p !== 'object' || p === null) throw new Error(`payloads[${i}] is not an object`);
    const { metadata, data } = p as { metadata?: unknown; data?: unknown };
    const meta: Record<string, Uint8Array> = {};
    if (metadata !== undefined && metadata !== null) {
      if (typeof metadata !== 'object') throw new Error(`payloads[${i}].metadata is not an object`);
      for (const [k, v] of Object.entries(metadata)) meta[k] = bytesOf(v, `payloads[${i}].metadata.${k}`);
    }
    return {
      metadata: meta,
      data: data === undefined || data === null ? new Uint8Array() : bytesOf(data, `payloads[${i}].data`),
    };
  });
}

function toJson(p: Payload): { metadata: Record<string, string>; data: string } {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) if (v) metadata[k] = Buffer.from(v).toString('base64');
  return { metadata, data: Buffer.from(p.data ?? new Uint8Array()).toString('base64') };
}

function send(res: ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...(close ? { Connection: 'close' } : {}),
  });
  res.end(text);
}
