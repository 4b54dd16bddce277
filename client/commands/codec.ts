/** `herald codec-server` and `herald codec-key`: the payload codec for the Web UI and the Temporal CLI. */
import type { Command } from 'commander';
import { config, untilSignal } from './shared.js';

export function registerCodecServer(program: Command): void {
  program
    .command('codec-server')
    .description('serve the payload codec over HTTP for the Temporal Web UI and `temporal --codec-endpoint`')
    .option('--host <host>', 'address to listen on (beyond loopback only with HERALD_CODEC_TOKEN set)', '127.0.0.1')
    .option('--port <port>', 'port (default HERALD_CODEC_PORT, 8888)')
    .option('--ui-origin <origin...>', 'Web UI origins allowed by CORS (default: the dev Web UI on HERALD_UI_PORT)')
    .option('--max-body-bytes <n>', 'largest request accepted', String(8 * 1024 * 1024))
    .action(async (o: { host: string; port?: string; uiOrigin?: string[]; maxBodyBytes: string }) => {
      const { runCodecServer } = await import('../codec-command.js');
      const server = await runCodecServer(config(), o);
      await untilSignal(() => server.close());
    });
}

export function registerCodecKey(program: Command): void {
  program
    .command('codec-key')
    .description('print a new payload codec key entry (id:base64key) for HERALD_CODEC_KEY or a key file')
    .argument('[id]', 'the key id (default: key-<date>)')
    .action(async (id: string | undefined) => {
      const { runCodecKey } = await import('../codec-command.js');
      process.stdout.write(`${runCodecKey(id)}\n`);
    });
}
