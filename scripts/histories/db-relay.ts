/** A TCP relay in front of Postgres: the storage-wait recording cuts it (the database unreachable) and restores it. */
import type { AddressInfo, Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';

export class DbRelay {
  lastTraffic = 0;
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;

  private constructor(
    private readonly target: { host: string; port: number },
    private port: number,
  ) {}

  /** A relay to the database of `url`, and the same URL through the relay. */
  static async start(url: string): Promise<{ relay: DbRelay; url: string }> {
    const u = new URL(url);
    if (u.searchParams.has('host')) throw new Error('the database relay needs a TCP database URL');
    const relay = new DbRelay({ host: u.hostname || 'localhost', port: Number(u.port || 5432) }, 0);
    await relay.restore();
    u.hostname = '127.0.0.1';
    u.port = String(relay.port);
    return { relay, url: u.toString() };
  }

  /** Accept connections again (on the same port). */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target);
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(from);
        from.on('data', (chunk) => {
          this.lastTraffic = Date.now();
          to.write(chunk);
        });
        from.on('close', () => {
          this.sockets.delete(from);
          to.destroy();
        });
        from.on('error', () => to.destroy());
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Drop every connection and refuse new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

/** The relay every stack reaches Postgres through, when the storage-wait scenario is recorded. */
export const databaseRelay: { current: DbRelay | undefined } = { current: undefined };
