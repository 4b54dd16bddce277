/**
 * `npm test`: unit, replay and integration tests with node:test. Integration tests share one
 * Temporal dev server and one Postgres server started here (each test file gets its own database
 * and task queue), and one pre-built workflow bundle, so the suite runs in minutes.
 * Postgres is DATABASE_URL when set, else an embedded one started for the run.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freePort } from '../runtime/ports.js';
import { PROJECT_ROOT } from '../runtime/paths.js';
import { ensureTemporalCli } from '../runtime/temporal-cli.js';
import { startEmbeddedPostgres } from '../workers/embedded-postgres.js';
import { startTemporalDevServer } from '../workers/temporal-dev-server.js';
import { WORKFLOWS_PATH } from '../workers/worker.js';
import { PAYLOAD_CONVERTER_PATH } from '../runtime/data-converter.js';

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const only = args.filter((a) => !a.startsWith('--'));
/** `--name=<regex>`: only tests whose name matches (node's --test-name-pattern). */
const namePatterns = args.filter((a) => a.startsWith('--name=')).map((a) => `--test-name-pattern=${a.slice(7)}`);

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out.sort();
}

const testRoot = join(PROJECT_ROOT, 'test');
let files = findTests(unitOnly ? join(testRoot, 'unit') : testRoot);
if (only.length) files = files.filter((f) => only.some((o) => f.includes(o)));
const log = (line: string) => process.stderr.write(`[test] ${line}\n`);

const tmp = join(testRoot, '.tmp');
mkdirSync(tmp, { recursive: true });
const env: NodeJS.ProcessEnv = { ...process.env, HERALD_LOG_LEVEL: process.env.HERALD_LOG_LEVEL ?? 'warn' };
const cleanups: Array<() => Promise<void>> = [];

try {
  if (!unitOnly) {
    const started = Date.now();
    const cli = ensureTemporalCli(process.env, log);
    env.TEMPORAL_CLI_PATH = cli;
    const server = await startTemporalDevServer({ cliPath: cli, port: await freePort(), namespace: 'default' });
    cleanups.push(() => server.stop());
    env.HERALD_TEST_TEMPORAL_ADDRESS = server.address;

    if (process.env.DATABASE_URL) {
      env.HERALD_TEST_ADMIN_DATABASE_URL = process.env.DATABASE_URL;
      log(`Postgres: DATABASE_URL`);
    } else {
      const dataDir = join(tmp, `pg-${process.pid}`);
      const pg = await startEmbeddedPostgres(dataDir, await freePort());
      cleanups.push(async () => {
        await pg.stop();
        rmSync(dataDir, { recursive: true, force: true });
      });
      env.HERALD_TEST_ADMIN_DATABASE_URL = pg.url;
      log('Postgres: embedded (DATABASE_URL not set)');
    }
    delete env.DATABASE_URL;
    delete env.TEMPORAL_ADDRESS;

    const bundle = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      payloadConverterPath: PAYLOAD_CONVERTER_PATH,
      logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} },
    });
    const bundlePath = join(tmp, 'workflow-bundle.js');
    writeFileSync(bundlePath, bundle.code);
    env.HERALD_WORKFLOW_BUNDLE = bundlePath;
    log(
      `Temporal dev server ${server.address}, workflow bundle ready (${((Date.now() - started) / 1000).toFixed(1)}s)`,
    );
  }

  log(`running ${files.length} test files: ${files.map((f) => relative(PROJECT_ROOT, f)).join(' ')}`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        '--test-reporter=spec',
        '--test-concurrency=3',
        // A test file whose tests are done exits even if a failed test left a handle open (a
        // listener, a timer): a hang would otherwise run until CI's limit.
        '--test-force-exit',
        ...namePatterns,
        ...files,
      ],
      {
        cwd: PROJECT_ROOT,
        env,
        stdio: 'inherit',
      },
    );
    child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0)));
  });
  process.exitCode = code;
} finally {
  for (const c of cleanups.reverse()) await c().catch((err: unknown) => log(`cleanup failed: ${String(err)}`));
}
