#!/usr/bin/env node
// The `herald` command: runs the TypeScript CLI through tsx (no build step to forget).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../client/cli.ts');
await main(process.argv);
// Some clients keep sockets open after the command is done; one-shot commands should not hang.
if (!['dev', 'worker', 'chat', 'watch', 'demo'].includes(process.argv[2] ?? '')) process.exit(process.exitCode ?? 0);
