/**
 * Why a conversation could not answer. When an update dies with its workflow, Temporal says only
 * "Workflow completed before the Update completed" (or "No registered handler for update" when
 * the run failed before it registered any); the cause — e.g. `InvalidInput: invalid conversation
 * input: cwd: no such directory /src/project` — is the workflow's own failure, in its history.
 * This reads it, so every entry point (CLI, client library, REPL) shows the cause itself.
 */
import type { WorkflowHandle } from '@temporalio/client';
import {
  ApplicationFailure,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';

/** The conversation's workflow closed without answering: `message` says why, in the workflow's words. */
export class ConversationFailedError extends Error {
  constructor(
    message: string,
    readonly workflowId: string,
    /** How the workflow closed: FAILED, TERMINATED, TIMED_OUT, CANCELLED or COMPLETED. */
    readonly status: string,
    /** The failure type, e.g. `InvalidInput` or `ConfigError`, when the workflow failed. */
    readonly failureType: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ConversationFailedError';
  }
}

const DIED_WITH_WORKFLOW = [/completed before the update completed/i, /no registered handler for update/i];

/** Whether `err` may mean that the workflow itself is gone (so its own failure says why). */
export function mayHaveDiedWithWorkflow(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError) return true;
  if (!(err instanceof WorkflowUpdateFailedError)) return false;
  const text = `${err.message} ${err.cause?.message ?? ''}`;
  return DIED_WITH_WORKFLOW.some((re) => re.test(text));
}

/**
 * The closed workflow's failure as a ConversationFailedError, or undefined while it runs (or when
 * it cannot be read: the caller's own error is then the best there is).
 */
export async function closedWorkflowFailure(handle: WorkflowHandle): Promise<ConversationFailedError | undefined> {
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch {
    return undefined;
  }
  if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW' || status === 'UNSPECIFIED') return undefined;
  const id = handle.workflowId;
  try {
    // Closed: result() answers at once, with the run's failure as a WorkflowFailedError.
    await handle.result();
  } catch (err) {
    if (err instanceof WorkflowFailedError) {
      const cause = err.cause;
      const type = cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
      const why = cause?.message || err.message;
      return new ConversationFailedError(
        `conversation ${id} ${closedVerb(status)}${type ? ` (${type})` : ''}: ${why}`,
        id,
        status,
        type,
        { cause: err },
      );
    }
    return undefined;
  }
  return new ConversationFailedError(
    `conversation ${id} ended before it answered; start a new one (or resume it)`,
    id,
    status,
    undefined,
  );
}

function closedVerb(status: string): string {
  switch (status) {
    case 'TERMINATED':
      return 'was terminated';
    case 'TIMED_OUT':
      return 'timed out';
    case 'CANCELLED':
    case 'CANCELED':
      return 'was cancelled';
    default:
      return 'failed';
  }
}

/**
 * `err` from an update (or a call that needed a running workflow): when the workflow closed, the
 * error that says why; otherwise `err` itself.
 */
export async function explainUpdateError(handle: WorkflowHandle, err: unknown): Promise<unknown> {
  if (!mayHaveDiedWithWorkflow(err)) return err;
  const closed = await closedWorkflowFailure(handle);
  if (!closed) return err;
  // A conversation that ended normally is what WorkflowNotFoundError already says; a failed one is news.
  if (err instanceof WorkflowNotFoundError && closed.status === 'COMPLETED') return err;
  return closed;
}
