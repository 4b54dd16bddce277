#!/usr/bin/env node
// The `herald` command: runs the TypeScript CLI through tsx (no build step to forget).
import { register } from 'tsx/esm/api';
import { register as registerCjs } from 'tsx/cjs/api';

register();
// Temporal loads the payload converter with require(): TypeScript must load that way too.
registerCjs();
const { main } = await import('../client/cli.ts');
await main(process.argv);
// main() returns when the command is done (long-running ones after a clean stop). Exit explicitly,
// once stdout and stderr are flushed (pipes are asynchronous): some libraries keep sockets or exit
// hooks around that would hang the process or change its code.
const code = process.exitCode ?? 0;
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
