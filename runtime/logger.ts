/**
 * One pino logger for the process; logs go to stderr so stdout stays for replies and --json.
 * Every record passes the process's redactor first (docs/tool-sandbox.md): a provider error that echoes a
 * key, a connection string, a tool's output — whatever a log line carries, no credential the
 * worker knows reaches the log. Errors anywhere in a record keep their message and cause
 * (runtime/log-format.ts). `pretty` prints one readable line per record (the foreground
 * `herald dev`); otherwise JSON lines, for log collectors.
 */
import { pino } from 'pino';
import { formatLogRecord, loggable } from './log-format.js';
import { redactor } from './secrets.js';

export type Logger = pino.Logger;

export interface LoggerOptions {
  /** Human-readable lines instead of JSON (HERALD_LOG_FORMAT overrides: `json` or `pretty`). */
  pretty?: boolean;
}

/** Whether logs should be human-readable, given the command's default and HERALD_LOG_FORMAT. */
export function wantsPretty(commandDefault: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.HERALD_LOG_FORMAT === 'json') return false;
  if (env.HERALD_LOG_FORMAT === 'pretty') return true;
  return commandDefault;
}

export function createLogger(level: string, name = 'herald', o: LoggerOptions = {}): Logger {
  const destination = wantsPretty(o.pretty ?? false)
    ? { write: (line: string) => process.stderr.write(formatLogRecord(line)) }
    : pino.destination(2);
  return pino(
    {
      name,
      level,
      hooks: {
        logMethod(args, method) {
          const r = redactor();
          const clean = (s: string) => r.redact(s);
          return method.apply(this, args.map((a) => loggable(a, clean)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
