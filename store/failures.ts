/**
 * Is a database error worth retrying? A lost connection, a restarting server, a deadlock: yes —
 * the same write will work in a moment. A value the database refuses (SQLSTATE classes 22 data,
 * 23 integrity, 42 syntax or access, P0 a trigger's RAISE, XX internal), or a bug of ours: no —
 * retrying writes the same thing and fails the same way, forever, and after a model call each
 * retry pays for the call again. Those fail at once, with the database's own message.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { STORE_REJECTED } from '../common/error-reasons.js';

/** SQLSTATE classes that mean "try again": connection, resources, object state (a lock), operator intervention, rollback, system. */
const TRANSIENT_CLASSES = new Set(['08', '53', '55', '57', '40', '58']);
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
]);

export function isTransientDbError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const e = err as Error & { code?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && /^[0-9A-Z]{5}$/.test(code)) return TRANSIENT_CLASSES.has(code.slice(0, 2));
  if (code && TRANSIENT_CODES.has(code)) return true;
  // node-postgres reports a dropped or unobtainable connection without a code.
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)/i.test(
    e.message,
  );
}

/** A database refusal (SQLSTATE, not transient) as a failure Temporal does not retry; anything else as is. */
export function refusalAsFailure(err: unknown): unknown {
  const code = err instanceof Error ? (err as Error & { code?: unknown }).code : undefined;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || isTransientDbError(err)) return err;
  return ApplicationFailure.create({
    type: STORE_REJECTED,
    message: `the database refused it (SQLSTATE ${code}): ${(err as Error).message}`,
    nonRetryable: true,
  });
}
