/**
 * The servers a chaos run owns, so it can restart them without touching anyone else's: a Temporal
 * dev server whose history lives in a SQLite file, and an embedded Postgres (workers/embedded-postgres.ts)
 * in a temporary folder. Each restarts on the same port and the same data, as a crash and a
 * supervisor's restart would: the dev server is killed (SIGKILL), Postgres is shut down in
 * immediate mode (SIGQUIT: connections cut, no checkpoint, crash recovery at the next start; a
 * SIGKILL of the postmaster would leave its backends holding the shared memory).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../../runtime/ports.js';
import { waitForExit } from '../../../runtime/process-exit.js';
import { ensureTemporalCli } from '../../../runtime/temporal-cli.js';
import type { EmbeddedDb } from '../../../workers/embedded-postgres.js';
import { startEmbeddedPostgres } from '../../../workers/embedded-postgres.js';
import type { DevServer } from '../../../workers/temporal-dev-server.js';
import { startTemporalDevServer } from '../../../workers/temporal-dev-server.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface ChaosServers {
  temporalAddress: string;
  databaseUrl: string;
  /** Kill the dev server, leave it down `downMs`, start it again; resolves once it answers. */
  restartTemporal(downMs: number): Promise<void>;
  /** Shut Postgres down (immediate), leave it down `downMs`, start it again; resolves once it accepts connections. */
  restartPostgres(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startChaosServers(dir: string, log: (line: string) => void): Promise<ChaosServers> {
  const cliPath = ensureTemporalCli(process.env, log);
  const [temporalPort, pgPort] = [await freePort(), await freePort()];
  const dbFile = join(dir, 'temporal', 'history.db');
  const pgDir = join(dir, 'postgres');
  const startTemporal = () => startTemporalDevServer({ cliPath, port: temporalPort, dbFile, namespace: 'default' });
  const startPostgres = () => startEmbeddedPostgres(pgDir, pgPort);
  let temporal: DevServer | undefined;
  let pg: EmbeddedDb | undefined;
  try {
    [temporal, pg] = await Promise.all([startTemporal(), startPostgres()]);
  } catch (err) {
    await temporal?.stop().catch(() => {});
    await pg?.stop().catch(() => {});
    throw err;
  }
  const postmasterPid = () => Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    temporalAddress: temporal.address,
    databaseUrl: pg.url,
    async restartTemporal(downMs) {
      const old = temporal!;
      const exited = new Promise<void>((r) =>
        old.process.exitCode !== null ? r() : old.process.once('exit', () => r()),
      );
      old.process.kill('SIGKILL');
      await exited;
      await old.stop(); // forgets its pid file
      await sleep(downMs);
      temporal = await startTemporal();
    },
    async restartPostgres(downMs) {
      const pid = postmasterPid();
      process.kill(pid, 'SIGQUIT');
      if (!(await waitForExit(pid, 30_000))) throw new Error(`postgres (pid ${pid}) did not shut down in 30 s`);
      await pg!.stop();
      await sleep(downMs);
      pg = await startPostgres();
    },
    async stop() {
      await temporal?.stop().catch((err: unknown) => log(`stopping Temporal: ${String(err)}`));
      await pg?.stop().catch((err: unknown) => log(`stopping Postgres: ${String(err)}`));
    },
  };
}
