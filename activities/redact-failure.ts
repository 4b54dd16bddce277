/**
 * An activity's failure redacted in place before the SDK turns it into a Temporal failure: message,
 * stack and `ApplicationFailure` details, down the cause chain. A provider's 401 that echoes the key
 * it was sent is the case this exists for (docs/tool-sandbox.md).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { redactor } from '../runtime/secrets.js';

export function redactFailure(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error) || depth > 5) return err;
  const r = redactor();
  err.message = r.redact(err.message);
  if (err.stack) err.stack = r.redact(err.stack);
  if (err instanceof ApplicationFailure && err.details)
    (err as { details: unknown[] | null | undefined }).details = r.redactDeep(err.details);
  if (err.cause !== undefined) redactFailure(err.cause, depth + 1);
  return err;
}
