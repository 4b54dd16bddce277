/**
 * The embedded stack behind `herald dev`, `npm run demo` and the integration tests: a Temporal dev
 * server (unless TEMPORAL_ADDRESS is set), a Postgres (DATABASE_URL, else embedded), and a worker.
 * Everything it starts, it stops; a second start reuses the data under the Herald home.
 */
import { writeFileSync, rmSync } from 'node:fs';
import type { HeraldConfig } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import { ensureDir, homePaths } from '../runtime/paths.js';
import { assertPortFree } from '../runtime/ports.js';
import { ensureTemporalCli } from '../runtime/temporal-cli.js';
import { redactUrl } from '../activities/store/db.js';
import type { EmbeddedDb } from './embedded-postgres.js';
import { postgresDataDir, startEmbeddedPostgres } from './embedded-postgres.js';
import type { DevServer } from './temporal-dev-server.js';
import { startTemporalDevServer } from './temporal-dev-server.js';
import type { RunningWorker } from './worker.js';
import type { SandboxStatus } from '../activities/sandbox/sandbox.js';
import { startWorker } from './worker.js';

export interface DevStackOptions {
  config: HeraldConfig;
  log: Logger;
  /** Start a worker in this process (default true). */
  worker?: boolean;
  /** Serve the Web UI (default true). */
  ui?: boolean;
  /** Extra `temporal server start-dev` arguments (tests use dynamic config). */
  temporalArgs?: string[];
  say?: (line: string) => void;
}

/** Where the running stack is, written to `<home>/runtime.json` so other `herald` commands find it. */
/** The banner's sandbox line: loud when tools would run without it. */
function sandboxLine(s: SandboxStatus): string {
  if (s.active) return `Sandbox:   bubblewrap (tools run isolated; network: ${s.network})`;
  if (s.mode === 'off') return 'Sandbox:   OFF (sandbox.mode: off) — tools run with your own access';
  return `Sandbox:   ⚠ NOT AVAILABLE — ${s.reason}; ${s.mode === 'required' ? 'tools that start processes will refuse' : 'tools run UNSANDBOXED with your own access'} (herald doctor)`;
}

export interface RuntimeInfo {
  temporalAddress: string;
  namespace: string;
  databaseUrl: string;
  taskQueue: string;
  uiUrl: string | undefined;
  pid: number;
}

export interface DevStack {
  config: HeraldConfig;
  info: RuntimeInfo;
  worker: RunningWorker | undefined;
  stop(): Promise<void>;
}

export async function startDevStack(o: DevStackOptions): Promise<DevStack> {
  const say = o.say ?? (() => {});
  const paths = homePaths(ensureDir(o.config.home));
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    stops.length = 0;
  };
  try {
    let temporalAddress = o.config.temporalAddress;
    let uiUrl: string | undefined;
    if (!temporalAddress) {
      const cli = ensureTemporalCli(process.env, say);
      const { temporal, ui } = o.config.ports;
      await assertPortFree(
        temporal,
        'Temporal dev server',
        'HERALD_TEMPORAL_PORT',
        'set TEMPORAL_ADDRESS to use the server already running there',
      );
      if (o.ui !== false) await assertPortFree(ui, 'Temporal Web UI', 'HERALD_UI_PORT');
      const server: DevServer = await startTemporalDevServer({
        cliPath: cli,
        port: temporal,
        uiPort: o.ui === false ? undefined : ui,
        dbFile: paths.temporalDb,
        namespace: o.config.namespace,
        extraArgs: o.temporalArgs ?? [],
      });
      stops.push(() => server.stop());
      temporalAddress = server.address;
      uiUrl = server.uiUrl;
    }

    let databaseUrl = o.config.databaseUrl;
    let embeddedData: string | undefined;
    if (!databaseUrl) {
      await assertPortFree(
        o.config.ports.postgres,
        'embedded Postgres',
        'HERALD_PG_PORT',
        'set DATABASE_URL to use an existing Postgres',
      );
      const embedded: EmbeddedDb = await startEmbeddedPostgres(postgresDataDir(paths.home), o.config.ports.postgres);
      stops.push(() => embedded.stop());
      databaseUrl = embedded.url;
      embeddedData = embedded.dataDir;
    }

    const config: HeraldConfig = { ...o.config, temporalAddress, databaseUrl };
    let worker: RunningWorker | undefined;
    if (o.worker !== false) {
      worker = await startWorker({ config, log: o.log });
      stops.push(() => worker!.shutdown());
    }

    const info: RuntimeInfo = {
      temporalAddress,
      namespace: config.namespace,
      databaseUrl,
      taskQueue: config.taskQueue,
      uiUrl,
      pid: process.pid,
    };
    writeFileSync(paths.runtimeFile, `${JSON.stringify(info, null, 2)}\n`);
    stops.push(() => Promise.resolve(rmSync(paths.runtimeFile, { force: true })));
    say(`Temporal:  ${temporalAddress} (namespace ${config.namespace}, task queue ${config.taskQueue})`);
    if (uiUrl) say(`Web UI:    ${uiUrl}`);
    say(`Database:  ${redactUrl(databaseUrl)}${embeddedData ? ` (embedded, data in ${embeddedData})` : ''}`);
    say(`Home:      ${paths.home}`);
    if (worker) say(sandboxLine(worker.sandbox.status));
    return { config, info, worker, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
