/**
 * One pino logger for the process; logs go to stderr so stdout stays for replies and --json.
 * Every record passes the process's redactor first (SPEC §1.6): a provider error that echoes a
 * key, a connection string, a tool's output — whatever a log line carries, no credential the
 * worker knows reaches the log.
 */
import { pino } from 'pino';
import type { Redactor } from '../common/redaction.js';
import { redactor } from './secrets.js';

export type Logger = pino.Logger;

function redactArg(r: Redactor, a: unknown): unknown {
  if (typeof a === 'string') return r.redact(a);
  if (a instanceof Error) return { type: a.name, message: r.redact(a.message), stack: a.stack && r.redact(a.stack) };
  if (a && typeof a === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(a)) out[k] = v instanceof Error ? redactArg(r, v) : r.redactDeep(v);
    return out;
  }
  return a;
}

export function createLogger(level: string, name = 'herald'): Logger {
  return pino(
    {
      name,
      level,
      hooks: {
        logMethod(args, method) {
          const r = redactor();
          return method.apply(this, args.map((a) => redactArg(r, a)) as Parameters<typeof method>);
        },
      },
    },
    pino.destination(2),
  );
}
