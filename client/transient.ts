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
 *    whatever status code it came with;
 *  - the workflow task that held the update completed or failed without the worker handling it
 *    ("rejected because it wasn't processed by worker"): many updates at once, or another caller's
 *    update that failed the task (one too big to decode), drop the ones in flight with it.
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
  // The server's own failure type for an update no worker handled.
  if (err instanceof Error && (err.cause as { type?: unknown } | undefined)?.type === 'UnprocessedUpdate') return true;
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  if (err instanceof WorkflowNotFoundError) return /update\b.*\bnot found/i.test(err.message);
  const text = err instanceof Error ? `${err.message} ${err.cause instanceof Error ? err.cause.message : ''}` : '';
  if (/update was aborted|update registry was cleared|(?:wasn't|was not) processed by (?:the )?worker/i.test(text))
    return true;
  const grpc = err instanceof ServiceError ? err.cause : err;
  return isGrpcServiceError(grpc) && isRetryableError(grpc);
}

/**
 * Did a send only run out of time waiting (the update's RPC deadline, a server too busy to answer
 * within it) rather than find Temporal down? Under load (hundreds of conversations on one dev
 * server) an update can wait longer than its deadline while everything is healthy: the same
 * message id goes again at once, with no outage clock — a repeated id joins the update already
 * admitted, or is answered from the turn it ran.
 */
/** gRPC status 4 (the SDK's own grpc-js is not Herald's dependency). */
const GRPC_DEADLINE_EXCEEDED = 4;

export function isUpdateDeadlineError(err: unknown): boolean {
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  const grpc = err instanceof ServiceError ? err.cause : err;
  if (isGrpcServiceError(grpc) && Number(grpc.code) === GRPC_DEADLINE_EXCEEDED) return true;
  const text = err instanceof Error ? `${err.message} ${err.cause instanceof Error ? err.cause.message : ''}` : '';
  return /deadline exceeded/i.test(text);
}
