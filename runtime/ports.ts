/** Port checks: a port already taken is a clear error, never a hang. */
import { createServer } from 'node:net';
import { ConfigError } from './config.js';

export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

export async function assertPortFree(port: number, what: string, envName: string, alternative?: string): Promise<void> {
  if (await isPortFree(port)) return;
  throw new ConfigError(
    `port ${port} (${what}) is already in use: set ${envName} to a free port${alternative ? `, or ${alternative}` : ''}`,
    envName,
  );
}

/** A port the OS says is free right now (for tests and throwaway stacks). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
