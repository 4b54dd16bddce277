/**
 * Which code `bin/herald.js` runs: the compiled dist/ in an installed package, and in a checkout only
 * while `npm run build` is newer than every source (else the sources, through tsx) — an edit or a
 * `git pull` is never run stale. Checked on a copy of the launcher in a folder of its own, with
 * stand-in modules that say which one ran.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../runtime/paths.js';

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function write(root: string, path: string, text: string, time?: Date): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  if (time) utimesSync(join(root, path), time, time);
}

/** A package folder: the real launcher, a stand-in build (stamped at `built`), stand-in sources if `sources`. */
function packageFolder(o: { built?: Date; sources?: Date }): string {
  const root = mkdtempSync(join(tmpdir(), 'herald-bin-'));
  made.push(root);
  mkdirSync(join(root, 'bin'));
  copyFileSync(join(PROJECT_ROOT, 'bin', 'herald.js'), join(root, 'bin', 'herald.js'));
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(root, 'node_modules'));
  write(root, 'dist/client/cli.js', "export async function main() { console.log('ran dist'); }\n");
  if (o.built) write(root, 'dist/BUILT', 'stamp\n', o.built);
  if (o.sources) {
    write(
      root,
      'client/cli.ts',
      "export async function main(): Promise<void> { console.log('ran sources'); }\n",
      o.sources,
    );
    write(root, 'store/migrations/001.sql', 'SELECT 1;\n', o.sources);
  }
  return root;
}

function ran(root: string): string {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'herald.js')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

const hourAgo = new Date(Date.now() - 3_600_000);
const now = new Date();

describe('bin/herald.js: which code runs', () => {
  it('an installed package (no sources) runs dist/', () => {
    assert.equal(ran(packageFolder({ built: hourAgo })), 'ran dist');
  });

  it('a checkout whose build is newer than every source runs dist/', () => {
    assert.equal(ran(packageFolder({ built: now, sources: hourAgo })), 'ran dist');
  });

  it('a checkout with a source newer than the build runs the sources', () => {
    assert.equal(ran(packageFolder({ built: hourAgo, sources: now })), 'ran sources');
  });

  it('a checkout without a build runs the sources', () => {
    assert.equal(ran(packageFolder({ sources: now })), 'ran sources');
  });
});
