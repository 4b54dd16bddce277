/**
 * The worker's one scrape target: `GET /metrics` on the metrics port answers Herald's registry
 * (activities/metrics.ts) followed by the Temporal SDK's own worker metrics.
 *
 * Why one port and a proxy: the SDK's Prometheus endpoint belongs to the Rust core (it binds it
 * itself at `Runtime.install`, and Node cannot add series to it), while Herald's series live in a
 * prom-client registry. The core's endpoint is bound on a loopback port of its own and read at
 * each scrape; both texts are the Prometheus text format and their names never collide
 * (`temporal_` and `herald_`), so one target is one scrape job, one port to open in a container
 * and one `up` series. When the core's endpoint does not answer, Herald's metrics are still served.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from '../runtime/logger.js';

export interface MetricsServerOptions {
  port: number;
  host: string;
  registry: Registry;
  /** The core's Prometheus endpoint (`http://127.0.0.1:<port>/metrics`), when this process installed it. */
  coreUrl: string | undefined;
  log: Logger;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

const CORE_TIMEOUT_MS = 2000;
/** The core's answer is read whole; this bounds what a scrape can make the worker hold. */
const MAX_CORE_BYTES = 16 * 1024 * 1024;

async function coreMetrics(url: string | undefined): Promise<string> {
  if (!url) return '';
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(CORE_TIMEOUT_MS) });
    if (!res.ok) return `# the Temporal SDK's metrics endpoint answered ${res.status}\n`;
    const text = await res.text();
    return text.length > MAX_CORE_BYTES ? "# the Temporal SDK's metrics were too large to include\n" : text;
  } catch (err) {
    return `# the Temporal SDK's metrics endpoint did not answer: ${(err as Error).message}\n`;
  }
}

export async function startMetricsServer(o: MetricsServerOptions): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || (path !== '/metrics' && path !== '/')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at /metrics\n');
      return;
    }
    void (async () => {
      try {
        const [own, core] = await Promise.all([o.registry.metrics(), coreMetrics(o.coreUrl)]);
        res.writeHead(200, { 'content-type': o.registry.contentType });
        res.end(`${own}\n${core}`);
      } catch (err) {
        o.log.warn({ err: (err as Error).message }, 'metrics scrape failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('metrics unavailable\n');
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
