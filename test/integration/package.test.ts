/**
 * Herald as a user installs it: a copy of the repository's files (as a fresh clone has them) is
 * packed with `npm pack` (its `prepack` runs `npm run build`), the tarball installed with
 * `npm i -g --prefix <tmp>` (dependencies from the npm registry, through npm's cache when it has
 * them), and the installed package used from outside the repository: `herald --help`, the client
 * library imported and type-checked as `herald/client`, and `herald demo --once` — the embedded
 * stack, a worker bundling the compiled workflows, tools in the sandbox — all from dist/.
 * The repository's own dist/ is not touched: other tests may be running bin/herald.js from it.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../runtime/ports.js';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import { ensureTemporalCli } from '../../runtime/temporal-cli.js';

/** Runs a command to its end; throws with its output when it fails. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Like `run`, without blocking the event loop (the install takes a while). */
function runAsync(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, out }));
  });
}

describe('the packed package', () => {
  let tmp: string;
  let prefix: string;
  let herald: string;
  let installed: string;

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'herald-package-'));
    // Run as root, the embedded Postgres runs as a `postgres` user, who must reach its binaries.
    chmodSync(tmp, 0o755);
    // The files a clone has (tracked, and new ones not ignored), without the recorded histories.
    const clone = join(tmp, 'clone');
    const files = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], PROJECT_ROOT)
      .split('\0')
      .filter((f) => f && !f.startsWith('test/fixtures/') && existsSync(join(PROJECT_ROOT, f)));
    for (const f of files) {
      mkdirSync(dirname(join(clone, f)), { recursive: true });
      cpSync(join(PROJECT_ROOT, f), join(clone, f));
    }
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(clone, 'node_modules'));
    run('npm', ['pack', '--pack-destination', tmp], clone);
    const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack wrote a tarball');

    prefix = join(tmp, 'prefix');
    const install = await runAsync(
      'npm',
      ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(tmp, tarball)],
      tmp,
      process.env,
    );
    assert.equal(install.code, 0, install.out);
    herald = join(prefix, 'bin', 'herald');
    installed = join(prefix, 'lib', 'node_modules', 'herald');
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('installs the compiled build without TypeScript sources or tsx, and `herald --help` prints the usage', () => {
    assert.ok(existsSync(join(installed, 'dist', 'client', 'cli.js')));
    assert.ok(existsSync(join(installed, 'dist', 'store', 'migrations', '001_init.sql')));
    assert.ok(!existsSync(join(installed, 'client')), 'no sources in the package');
    assert.ok(!existsSync(join(installed, 'node_modules', 'tsx')), 'tsx is a dev dependency');
    const help = run(herald, ['--help'], tmp);
    assert.match(help, /^Usage: herald \[options\] \[command\]/);
    assert.match(help, /\bsessions\b.*list recent sessions/);
  });

  it('exports the client library as `herald/client`, with type declarations', () => {
    // Beside the installed package, so `herald` resolves as any dependency does.
    const lib = dirname(installed);
    writeFileSync(
      join(lib, 'use-client.mjs'),
      "import { HeraldClient, newSessionId } from 'herald/client';\n" +
        'console.log(typeof HeraldClient.connect, /^[a-z0-9-]+$/.test(newSessionId()));\n',
    );
    assert.equal(run(process.execPath, ['use-client.mjs'], lib).trim(), 'function true');
    writeFileSync(
      join(lib, 'use-client.mts'),
      "import { HeraldClient } from 'herald/client';\n" +
        "import type { StartOptions } from 'herald/client';\n" +
        "const options: StartOptions = { model: 'm' };\n" +
        'export const connect: typeof HeraldClient.connect = HeraldClient.connect;\n' +
        'export { options };\n',
    );
    const tsc = join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    run(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--typeRoots',
        join(PROJECT_ROOT, 'node_modules', '@types'),
        '--types',
        'node',
        'use-client.mts',
      ],
      lib,
    );
  });

  it('runs `herald demo --once` from the package: embedded stack, compiled workflows and tools', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NO_COLOR: '1',
      HERALD_HOME: join(tmp, 'home'),
      HERALD_TEMPORAL_PORT: String(await freePort()),
      HERALD_UI_PORT: String(await freePort()),
      HERALD_PG_PORT: String(await freePort()),
      TEMPORAL_CLI_PATH: ensureTemporalCli(),
    };
    for (const k of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'HERALD_TASK_QUEUE', 'HERALD_WORKFLOW_BUNDLE', 'npm_command'])
      delete env[k];
    const demo = await runAsync(herald, ['demo', '--once'], tmp, env);
    assert.equal(demo.code, 0, demo.out.slice(-3000));
    assert.match(demo.out, /Demo complete/);
    assert.match(demo.out, /average: 4/, 'the sandboxed terminal ran the fixed program');
  });
});
