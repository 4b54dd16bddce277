/**
 * `npm run build`: compile Herald to JavaScript in dist/ (tsconfig.build.json), the tree the
 * packed package runs (`bin/herald.js`, the worker, the `herald/client` library; docs/install.md).
 * tsc, not a bundler: the output keeps the source tree's shape, so the worker hands Temporal's
 * workflow bundler the compiled `dist/workflows/index.js` with its imports as they are, the files
 * found next to the code (migrations) are found the same way, and the client library gets its
 * type declarations from the same compiler that checks the project.
 * Steps: empty dist/, compile, copy the SQL migrations next to the compiled migrate.js, then write
 * dist/BUILT last — bin/herald.js in a source checkout runs the build only when no source is newer.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../runtime/paths.js';

const dist = join(PROJECT_ROOT, 'dist');
rmSync(dist, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(PROJECT_ROOT, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  console.error('herald build: tsc failed');
  process.exit(compiled.status ?? 1);
}

// Files the code reads next to itself (store/migrate.ts, client/doctor.ts).
const migrations = join('store', 'migrations');
cpSync(join(PROJECT_ROOT, migrations), join(dist, migrations), { recursive: true });

// The name bin/herald.js looks for.
writeFileSync(join(dist, 'BUILT'), `${new Date().toISOString()}\n`);
console.log(`built ${dist}`);
