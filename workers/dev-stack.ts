/**
 * The embedded stack behind `herald dev`, `npm run demo` and the integration tests: a Temporal dev
 * server (unless TEMPORAL_ADDRESS is set), a Postgres (DATABASE_URL, else embedded), and a worker.
 * Everything it starts, it stops; a second start reuses the data under the Herald home.
 *
 * The stack owns its home while it runs (runtime/home-lock.ts): a second start on the same home
 * refuses before touching anything. If a server it started dies, `died` says which and why; the
 * caller stops the rest and exits non-zero rather than restarting it (a crash that repeats — a
 * full disk, a corrupt history file — would otherwise loop quietly while every client fails).
 */
import { writeFileSync, rmSync } from 'node:fs';
import type { HeraldConfig } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import { acquireHomeLock } from '../runtime/home-lock.js';
import { ensureDir, homePaths } from '../runtime/paths.js';
import { assertPortFree } from '../runtime/ports.js';
import { ensureTemporalCli } from '../runtime/temporal-cli.js';
import { redactUrl } from '../store/db.js';
import type { EmbeddedDb } from './embedded-postgres.js';
import { postgresDataDir, startEmbeddedPostgres, stopLeftoverPostgres } from './embedded-postgres.js';
import type { DevServer } from './temporal-dev-server.js';
import { startTemporalDevServer, stopLeftoverDevServer } from './temporal-dev-server.js';
import type { RunningWorker } from './worker.js';
import type { SandboxStatus } from '../sandbox/sandbox.js';
import { startWorker } from './worker.js';
import { clientCodec } from '../runtime/data-converter.js';
import { startCodecServer } from '../runtime/codec-server.js';
import { observabilityLines, providerLines, providerSummary, webUiLines } from './dev-banner.js';

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
  /**
   * Run the Temporal server in its own process group (see DevServerOptions.ownProcessGroup): only
   * for a caller that handles SIGINT/SIGTERM from before the start (`herald dev`).
   */
  ownProcessGroup?: boolean;
  /** The environment the worker reads keys from (default process.env). */
  env?: NodeJS.ProcessEnv;
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
  /** Resolves if a server the stack started exits on its own, with which and why. */
  died: Promise<string>;
  stop(): Promise<void>;
}

export async function startDevStack(o: DevStackOptions): Promise<DevStack> {
  const say = o.say ?? (() => {});
  const paths = homePaths(ensureDir(o.config.home));
  const embeddedTemporal = !o.config.temporalAddress;
  const lock = acquireHomeLock(paths.home, {
    ports: {
      temporal: embeddedTemporal ? o.config.ports.temporal : undefined,
      ui: embeddedTemporal && o.ui !== false ? o.config.ports.ui : undefined,
      postgres: o.config.databaseUrl ? undefined : o.config.ports.postgres,
    },
  });
  // A crash of this process (an uncaught error) still frees the home; SIGKILL leaves a stale lock,
  // which the next start recognises by its dead owner.
  const releaseOnExit = () => lock.release();
  process.once('exit', releaseOnExit);
  const stops: Array<() => Promise<void>> = [
    () => {
      process.removeListener('exit', releaseOnExit);
      lock.release();
      return Promise.resolve();
    },
  ];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    stops.length = 0;
  };
  const deaths: Array<Promise<string>> = [];
  try {
    // This home's lock is ours, so servers still running on its data belong to a Herald that died:
    // stop them first, or their ports would look taken by someone else.
    if (embeddedTemporal) await stopLeftoverDevServer(paths.temporalDb);
    if (!o.config.databaseUrl) await stopLeftoverPostgres(postgresDataDir(paths.home));
    let temporalAddress = o.config.temporalAddress;
    let uiUrl: string | undefined;
    let codecUrl: string | undefined;
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
      // Encrypted payloads: the Web UI reads them through a loopback codec server for its origin.
      const codecArgs: string[] = [];
      if (o.config.codec && o.ui !== false) {
        const port = o.config.ports.codec;
        await assertPortFree(port, 'codec server for the Web UI', 'HERALD_CODEC_PORT');
        const codecServer = await startCodecServer({
          codec: clientCodec(o.config.codec),
          port,
          origins: [`http://127.0.0.1:${ui}`, `http://localhost:${ui}`],
          log: o.log,
        });
        stops.push(() => codecServer.close());
        codecUrl = codecServer.url;
        codecArgs.push('--ui-codec-endpoint', codecServer.url);
      }
      const server: DevServer = await startTemporalDevServer({
        cliPath: cli,
        port: temporal,
        uiPort: o.ui === false ? undefined : ui,
        dbFile: paths.temporalDb,
        namespace: o.config.namespace,
        extraArgs: [...codecArgs, ...(o.temporalArgs ?? [])],
        ownProcessGroup: o.ownProcessGroup === true,
      });
      stops.push(() => server.stop());
      deaths.push(server.died);
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
      deaths.push(embedded.died);
      databaseUrl = embedded.url;
      embeddedData = embedded.dataDir;
    }

    // The embedded server takes no credentials: TEMPORAL_API_KEY / TEMPORAL_TLS* are for TEMPORAL_ADDRESS.
    const config: HeraldConfig = {
      ...o.config,
      temporalAddress,
      databaseUrl,
      ...(embeddedTemporal ? { temporalSecurity: {} } : {}),
    };
    let worker: RunningWorker | undefined;
    if (o.worker !== false) {
      worker = await startWorker({ config, log: o.log, ...(o.env ? { env: o.env } : {}) });
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
    for (const line of webUiLines(uiUrl, config.namespace)) say(line);
    if (config.codec)
      say(
        `Payloads:  encrypted (key ${config.codec.keys[0]!.id}, from ${config.codec.source})${codecUrl ? `; the Web UI decodes them through ${codecUrl}` : ''}`,
      );
    say(`Database:  ${redactUrl(databaseUrl)}${embeddedData ? ` (embedded, data in ${embeddedData})` : ''}`);
    say(`Home:      ${paths.home}`);
    for (const line of providerLines(
      providerSummary(config.providerDefaults, o.env ?? process.env),
      config.configPath,
      paths.home,
    ))
      say(line);
    if (worker) say(sandboxLine(worker.sandbox.status));
    for (const line of observabilityLines(worker?.metricsUrl, o.env ?? process.env)) say(line);
    return {
      config,
      info,
      worker,
      died: Promise.race(deaths.length ? deaths : [new Promise<string>(() => {})]),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
