import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Metadata, status } from '@grpc/grpc-js';
import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { isTransientSendError, isUpdateDeadlineError } from '../../client/transient.js';

const grpc = (code: status, details: string) =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata: new Metadata() });

describe('isTransientSendError: which failed sends go again with the same id', () => {
  it('a Temporal server that is down or restarting', () => {
    assert.ok(
      isTransientSendError(
        new ServiceError('Update-With-Start failed', { cause: grpc(status.UNAVAILABLE, 'Connection dropped') }),
      ),
    );
    assert.ok(isTransientSendError(new ServiceError('x', { cause: grpc(status.UNAVAILABLE, 'read ECONNRESET') })));
    assert.ok(isTransientSendError(new WorkflowUpdateRPCTimeoutOrCancelledError('timeout')));
  });

  it('an update the server aborted before a worker took it', () => {
    // The SDK rethrows a multi-operation failure as the raw gRPC error with the operation's message.
    assert.ok(isTransientSendError(grpc(status.FAILED_PRECONDITION, 'workflow update was aborted')));
    assert.ok(
      isTransientSendError(new ServiceError('x', { cause: grpc(status.INTERNAL, 'update registry was cleared') })),
    );
  });

  it('an update the worker never handled: its workflow task completed or failed without it', () => {
    const text =
      "Workflow Update is rejected because it wasn't processed by worker. Probably, Workflow Update is not supported by the worker.";
    assert.ok(isTransientSendError(new WorkflowUpdateFailedError('Workflow Update failed', new Error(text))));
    assert.ok(isTransientSendError(new ServiceError('x', { cause: grpc(status.NOT_FOUND, text) })));
  });

  it('an update the server lost in a restart, not a workflow that is gone', () => {
    assert.ok(isTransientSendError(new WorkflowNotFoundError('update "m1" not found', 'session-a', undefined)));
    assert.ok(
      !isTransientSendError(new WorkflowNotFoundError('workflow not found for ID: session-a', 'session-a', undefined)),
    );
  });

  it('never a refusal or a failure of the conversation itself', () => {
    assert.ok(!isTransientSendError(new ServiceError('x', { cause: grpc(status.INVALID_ARGUMENT, 'bad request') })));
    assert.ok(!isTransientSendError(new WorkflowUpdateFailedError('Workflow Update failed', new Error('rejected'))));
    assert.ok(!isTransientSendError(new Error('message refused: too large')));
  });
});

describe('isUpdateDeadlineError: a send that ran out of time on a busy server', () => {
  it('the update RPC timing out, a deadline-exceeded status, or the server saying so', () => {
    assert.ok(isUpdateDeadlineError(new WorkflowUpdateRPCTimeoutOrCancelledError('timeout')));
    assert.ok(isUpdateDeadlineError(grpc(status.DEADLINE_EXCEEDED, 'Deadline exceeded')));
    assert.ok(isUpdateDeadlineError(new ServiceError('x', { cause: grpc(status.DEADLINE_EXCEEDED, 'x') })));
    assert.ok(
      isUpdateDeadlineError(new ServiceError('x', { cause: grpc(status.UNKNOWN, 'context deadline exceeded') })),
    );
  });
  it('not a server that is down, nor a refusal', () => {
    assert.ok(!isUpdateDeadlineError(new ServiceError('x', { cause: grpc(status.UNAVAILABLE, 'Connection dropped') })));
    assert.ok(!isUpdateDeadlineError(new WorkflowUpdateFailedError('Workflow Update failed', new Error('rejected'))));
  });
});
