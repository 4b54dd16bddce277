/** How a database failure during a model call (or a compression) reaches the workflow. */
import { ApplicationFailure } from '@temporalio/activity';
import { STORAGE_UNAVAILABLE, STORE_REJECTED } from '../../common/error-reasons.js';
import { isTransientDbError } from '../../store/failures.js';

/**
 * A database failure while `doing`: unreachable for now is retryable (the workflow waits longer
 * than for a provider); anything else fails for good at once (it would on every retry).
 */
export function storageFailure(err: unknown, doing: string): ApplicationFailure {
  const message = (err as Error).message ?? String(err);
  if (!isTransientDbError(err))
    return ApplicationFailure.create({
      type: STORE_REJECTED,
      message: `the database refused ${doing}: ${message}`,
      nonRetryable: true,
    });
  return ApplicationFailure.create({
    type: STORAGE_UNAVAILABLE,
    message: `the database is unavailable while ${doing}: ${message}`,
    nonRetryable: false,
  });
}
