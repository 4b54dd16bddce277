#!/usr/bin/env node
// The `herald` command. It runs the compiled build (dist/, `npm run build`): an installed package
// has nothing else. A source checkout runs its TypeScript through tsx (a dev dependency) whenever
// its build is missing or older than any source file, so an edit or a `git pull` is never run stale
// (docs/install.md).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** What the build compiles (tsconfig.build.json; the demo's fake model is in test/support). */
const SOURCE_DIRS = [
  'activities',
  'checkpoints',
  'command-safety',
  'mcp',
  'model-adapters',
  'sandbox',
  'shared',
  'skills',
  'store',
  'untrusted-text',
  'workspace-files',
  'client',
  'common',
  'runtime',
  'types',
  'workers',
  'workflows',
  'test/support',
];

function newestSource() {
  let newest = 0;
  for (const dir of SOURCE_DIRS) {
    if (!existsSync(join(root, dir))) continue;
    for (const name of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }))
      if (name.endsWith('.ts') || name.endsWith('.sql'))
        newest = Math.max(newest, statSync(join(root, dir, name)).mtimeMs);
  }
  return newest;
}

/** dist/BUILT is written last by `npm run build`. */
function buildIsCurrent() {
  const stamp = join(root, 'dist', 'BUILT');
  return (
    existsSync(stamp) && (!existsSync(join(root, 'client', 'cli.ts')) || newestSource() <= statSync(stamp).mtimeMs)
  );
}

let main;
if (buildIsCurrent()) {
  ({ main } = await import('../dist/client/cli.js'));
} else {
  let tsx;
  try {
    tsx = [await import('tsx/esm/api'), await import('tsx/cjs/api')];
  } catch {
    process.stderr.write('herald: no current build in dist/ and no tsx to run the sources: run `npm run build`\n');
    process.exit(1);
  }
  tsx[0].register();
  // Temporal loads the payload converter with require(): TypeScript must load that way too.
  tsx[1].register();
  ({ main } = await import('../client/cli.ts'));
}
await main(process.argv);
// main() returns when the command is done (long-running ones after a clean stop). Exit explicitly,
// once stdout and stderr are flushed (pipes are asynchronous): some libraries keep sockets or exit
// hooks around that would hang the process or change its code.
const code = process.exitCode ?? 0;
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
