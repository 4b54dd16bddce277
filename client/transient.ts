/**
 * Is a failed `send` worth sending again, with the same message id? Yes when Temporal could not be
 * reached or lost the update, because the conversation answers a repeated id from the turn it
 * already ran (`turn_results`), so the resend can never run the message twice:
 *  - the server is unreachable or restarting (a gRPC status the SDK's own retry treats as
 *    transient — UNAVAILABLE, "Connection dropped", ECONNRESET — once its ~20 s of retries ran out);
 *  - the update's long poll timed out (WorkflowUpdateRPCTimeoutOrCancelledError);
 *  - the server restarted between admitting the update and a worker accepting it: admitted updates
 *    live in the server's memory, and the poll for it then answers NOT_FOUND "update … not found",
 *    which the SDK reports as a WorkflowNotFoundError although the workflow runs on;
 *  - the server aborted the update before a worker took it ("workflow update was aborted", "update
 *    registry was cleared": its in-memory registry was reset, or the run closed for a continue-as-new),
 *    whatever status code it came with.
 * Found by `npm run chaos`: each of these reached callers during a Temporal dev server restart.
 */
import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  isGrpcServiceError,
  isRetryableError,
} from '@temporalio/client';

export function isTransientSendError(err: unknown): boolean {
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  if (err instanceof WorkflowNotFoundError) return /update\b.*\bnot found/i.test(err.message);
  const text = err instanceof Error ? `${err.message} ${err.cause instanceof Error ? err.cause.message : ''}` : '';
  if (/update was aborted|update registry was cleared/i.test(text)) return true;
  const grpc = err instanceof ServiceError ? err.cause : err;
  return isGrpcServiceError(grpc) && isRetryableError(grpc);
}
