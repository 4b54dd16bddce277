/**
 * Network allowlists for sandboxed tools (`sandbox.network: { allow: [...] }`). A sandboxed process
 * has no network of its own (its namespace holds only a private loopback); a small bridge inside
 * the sandbox listens on its 127.0.0.1:3128 and forwards to this proxy over a Unix socket mounted
 * in. The proxy speaks HTTP (absolute URLs) and CONNECT (HTTPS and any TCP), lets through only the
 * hosts the call may reach, and refuses the rest with a 403 that says why. Like Anthropic's
 * sandbox-runtime; written here because that package needs Node 22 (see docs/architecture.md).
 *
 * A name that resolves to a loopback, private or link-local address is refused unless the entry
 * names that address itself, so an allowed domain cannot be pointed at the worker's own services.
 */
import { lookup } from 'node:dns/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, isIP } from 'node:net';
import type { Socket } from 'node:net';
import { allowEntryMatches } from '../common/sandbox-policy.js';

/** Where the bridge listens inside the sandbox. */
export const SANDBOX_PROXY_PORT = 3128;
/** Where the proxy's socket appears inside the sandbox. */
export const SANDBOX_PROXY_SOCKET = '/run/herald/proxy.sock';

export interface AllowlistProxy {
  /** Hosts refused during the call (shown to the model with the tool result). */
  denied: Set<string>;
  close(): Promise<void>;
}

/** Addresses a sandboxed tool must not reach by name: the worker's machine and its private networks. */
export function isPrivateAddress(addr: string): boolean {
  const v4 = addr.startsWith('::ffff:') ? addr.slice(7) : addr;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split('.').map(Number) as [number, number];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b < 128) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b < 32) ||
      (a === 192 && b === 168) ||
      a >= 224
    );
  }
  const lower = addr.toLowerCase();
  return lower === '::' || lower === '::1' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower);
}

type Decision = { ok: true; address: string } | { ok: false; reason: string };

async function decide(allow: readonly string[], host: string, port: number): Promise<Decision> {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const entry = allow.find((e) => allowEntryMatches(e, bare, port));
  if (!entry) return { ok: false, reason: `${bare} is not in sandbox.network.allow` };
  if (isIP(bare)) return { ok: true, address: bare };
  let addresses: string[];
  try {
    addresses = (await lookup(bare, { all: true })).map((a) => a.address);
  } catch {
    return { ok: false, reason: `${bare} does not resolve` };
  }
  const named = bare === 'localhost' && entry === 'localhost';
  if (!named && addresses.some(isPrivateAddress))
    return { ok: false, reason: `${bare} resolves to a private address (${addresses.join(', ')})` };
  return { ok: true, address: addresses[0]! };
}

function refuse(res: ServerResponse, reason: string): void {
  res.writeHead(403, `Blocked by Herald sandbox: ${reason}`, { 'content-type': 'text/plain' });
  res.end(`Blocked by the Herald sandbox: ${reason}\n`);
}

export function startAllowlistProxy(socketPath: string, allow: readonly string[]): Promise<AllowlistProxy> {
  const denied = new Set<string>();
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return refuse(res, 'only absolute http:// URLs go through the proxy');
    }
    if (url.protocol !== 'http:') return refuse(res, `${url.protocol} is not proxied; use https through CONNECT`);
    const port = Number(url.port || 80);
    void decide(allow, url.hostname, port).then((d) => {
      if (!d.ok) {
        denied.add(url.hostname);
        return refuse(res, d.reason);
      }
      const upstream = httpRequest(
        {
          host: d.address,
          port,
          method: req.method,
          path: `${url.pathname}${url.search}`,
          headers: { ...req.headers, host: url.host },
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.statusMessage, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', (err) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy: ${err.message}\n`);
      });
      req.pipe(upstream);
    });
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    if (!m) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const host = m[1]!;
    const port = Number(m[2]);
    void decide(allow, host, port).then((d) => {
      if (!d.ok) {
        denied.add(host.replace(/^\[(.*)\]$/, '$1'));
        client.end(`HTTP/1.1 403 Blocked by Herald sandbox: ${d.reason}\r\ncontent-length: 0\r\n\r\n`);
        return;
      }
      const upstream = connect({ host: d.address, port }, () => {
        client.write('HTTP/1.1 200 Connection established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', (err) => {
        if (client.writable) client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\nproxy: ${err.message}\n`);
      });
    });
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      resolvePromise({
        denied,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The bridge that runs inside the sandbox: TCP on its loopback → the proxy's Unix socket. */
export const BRIDGE_SOURCE = `'use strict';
const net = require('node:net');
net
  .createServer((c) => {
    const u = net.connect(${JSON.stringify(SANDBOX_PROXY_SOCKET)});
    c.pipe(u);
    u.pipe(c);
    c.on('error', () => u.destroy());
    u.on('error', () => c.destroy());
  })
  .listen(${SANDBOX_PROXY_PORT}, '127.0.0.1');
`;
