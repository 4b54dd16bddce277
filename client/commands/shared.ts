/**
 * What every `herald` command module shares: the configuration, a client connection that is always
 * closed, a Postgres connection for the commands that read the store, printing text or `--json`,
 * exit codes, and waiting for a stop signal. Heavy modules (the Temporal client, Postgres) are
 * imported inside these functions, so registering the commands loads little (client/cli.ts).
 */
import pc from 'picocolors';
import { sessionIdFromWorkflowId } from '../../common/constants.js';
import type { TurnResult } from '../../common/contract.js';
import type { HeraldConfig } from '../../runtime/config.js';
import { ConfigError } from '../../runtime/config.js';
import { onStopRequest } from '../../runtime/stop-signals.js';
import type { Db } from '../../store/db.js';
import type { HeraldClient } from '../client.js';
import type * as SessionRef from '../session-ref.js';
import { cliConfig } from '../cli-config.js';

/** 0 ok, 1 error, 2 usage, 3 the turn failed, 4 the turn was interrupted. */
export const EXIT = { ok: 0, error: 1, usage: 2, failed: 3, interrupted: 4 } as const;

/** Strict for the commands that run on the config file, lenient (a warning) for the others: client/cli-config.ts. */
export function config(): HeraldConfig {
  return cliConfig();
}

async function connect(): Promise<HeraldClient> {
  const c = config();
  const [{ HeraldClient }, { clientSettings }, { installRedactor, workerSecrets }] = await Promise.all([
    import('../client.js'),
    import('../connection.js'),
    import('../../runtime/secrets.js'),
  ]);
  // What the user types is redacted with the same rules as the worker's (client/client.ts).
  installRedactor(workerSecrets(process.env, c.file));
  return await HeraldClient.connect(clientSettings(c));
}

/** Connect, run `fn`, and always close the connection (so the process can exit). */
export async function withClient<T>(fn: (client: HeraldClient) => Promise<T>): Promise<T> {
  const client = await connect();
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** Connect, find the running conversation `ref` names (client/session-ref.ts), run `fn` on it, and close. */
export async function withConversation<T>(
  ref: string,
  fn: (conv: Awaited<ReturnType<typeof SessionRef.runningConversation>>) => Promise<T>,
): Promise<T> {
  return await withClient(async (client) =>
    fn(await (await import('../session-ref.js')).runningConversation(client, ref)),
  );
}

/** Open the store (migrated first unless `migrated: false`), run `fn`, and always close it. */
export async function withDb<T>(fn: (db: Db) => Promise<T>, { migrated = true } = {}): Promise<T> {
  const [{ clientSettings }, { createDb }, { migrate }] = await Promise.all([
    import('../connection.js'),
    import('../../store/db.js'),
    import('../../store/migrate.js'),
  ]);
  const url = clientSettings(config()).databaseUrl;
  if (!url) throw new ConfigError('config error: DATABASE_URL is not set (or run `herald dev`)', 'DATABASE_URL');
  const db = createDb(url, 1);
  try {
    if (migrated) await migrate(db);
    return await fn(db);
  } finally {
    await db.end();
  }
}

export function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

export function exitCodeOf(r: TurnResult): number {
  return r.interrupted ? EXIT.interrupted : r.failed ? EXIT.failed : EXIT.ok;
}

export function describeResult(r: TurnResult): string {
  const lines: string[] = [];
  if (r.final_response) lines.push(r.final_response);
  if (r.interrupted) lines.push(pc.yellow(`(interrupted: ${r.turn_exit_reason})`));
  if (r.failed) lines.push(pc.red(`error: ${r.error ?? r.turn_exit_reason}`));
  return lines.join('\n');
}

/** Run until SIGINT/SIGTERM (or, under npm, npm's shell gone), then stop cleanly. */
export function untilSignal(stop: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const dispose = onStopRequest((why) => {
      process.stderr.write(pc.dim(`\n${why}: stopping…\n`));
      void stop().finally(() => (dispose(), resolve()));
    });
  });
}

/** Turn any failure into one clear line. (The Temporal client is loaded here, off the start-up path.) */
export async function describeError(err: unknown): Promise<string> {
  const { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } = await import('@temporalio/client');
  if (err instanceof WorkflowNotFoundError)
    return `session ${err.workflowId ? sessionIdFromWorkflowId(err.workflowId) : '?'} is not running (it ended, or never started): \`herald sessions\` lists them`;
  if (err instanceof WorkflowUpdateFailedError) return `rejected: ${err.cause?.message ?? err.message}`;
  if (err instanceof WorkflowFailedError) return `conversation failed: ${err.cause?.message ?? err.message}`;
  // A config file error carries the file's lines with a caret under the spot.
  if (err instanceof ConfigError) return err.message;
  if (err instanceof Error) return err.message.split('\n')[0] ?? String(err);
  return String(err);
}
