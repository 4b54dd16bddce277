/**
 * The public contract driven by the real `temporal` CLI, exactly as the README shows it:
 * `temporal workflow start --type conversation …` produces a reply; signals steer the run; invalid
 * input fails at once with InvalidInput.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';
import { queryState, temporal } from '../support/temporal-cli.js';

describe('temporal CLI', () => {
  let stack: TestStack;
  before(async () => {
    stack = await createTestStack();
  });
  after(async () => {
    await stack.close();
  });

  it('starts a conversation, signals messages, stops and ends it', async () => {
    const addr = stack.temporalAddress;
    stack.fake.script([{ text: 'I looked at main.py; the bug is an off-by-one.' }, { text: 'You are welcome.' }]);
    const started = await temporal(addr, [
      'workflow',
      'start',
      '--type',
      'conversation',
      '--task-queue',
      stack.taskQueue,
      '--workflow-id',
      'session-cli-demo',
      '--input',
      '{"message":"Fix the bug in main.py"}',
    ]);
    assert.equal(started.code, 0, started.stderr);

    const first = await eventually(async () => {
      const s = await queryState(addr, 'session-cli-demo');
      return s.last_result?.final_response ? s : undefined;
    });
    assert.equal(first.last_result.final_response, 'I looked at main.py; the bug is an off-by-one.');
    assert.equal(first.session_id, 'cli-demo');
    assert.equal(first.status, 'idle');

    const signalled = await temporal(addr, [
      'workflow',
      'signal',
      '-w',
      'session-cli-demo',
      '--name',
      'userMessage',
      '--input',
      '"Thanks!"',
    ]);
    assert.equal(signalled.code, 0, signalled.stderr);
    const second = await eventually(async () => {
      const s = await queryState(addr, 'session-cli-demo');
      return s.turn === 2 && s.status === 'idle' ? s : undefined;
    });
    assert.equal(second.last_result.final_response, 'You are welcome.');

    // A malformed signal is logged and ignored; the conversation is unharmed.
    assert.equal(
      (
        await temporal(addr, [
          'workflow',
          'signal',
          '-w',
          'session-cli-demo',
          '--name',
          'userMessage',
          '--input',
          '{"txt":1}',
        ])
      ).code,
      0,
    );
    assert.equal((await temporal(addr, ['workflow', 'signal', '-w', 'session-cli-demo', '--name', 'stop'])).code, 0);
    assert.equal((await queryState(addr, 'session-cli-demo')).turn, 2);

    assert.equal(
      (
        await temporal(addr, [
          'workflow',
          'signal',
          '-w',
          'session-cli-demo',
          '--name',
          'end',
          '--input',
          '"done for today"',
        ])
      ).code,
      0,
    );
    const result = await stack.temporal.workflow.getHandle('session-cli-demo').result();
    assert.equal((result as { final_response: string }).final_response, 'You are welcome.');
    stack.fake.assertDone();
  });

  it('fails invalid input at once with InvalidInput naming the field', async () => {
    const r = await temporal(stack.temporalAddress, [
      'workflow',
      'execute',
      '--type',
      'conversation',
      '--task-queue',
      stack.taskQueue,
      '--workflow-id',
      'session-cli-bad',
      '--input',
      '{"maxIterations":"lots"}',
    ]);
    assert.notEqual(r.code, 0);
    const describe = await stack.temporal.workflow.getHandle('session-cli-bad').describe();
    assert.equal(describe.status.name, 'FAILED');
    const history = await stack.temporal.workflow.getHandle('session-cli-bad').fetchHistory();
    const failed = history.events?.find((e) => e.workflowExecutionFailedEventAttributes);
    const failure = failed?.workflowExecutionFailedEventAttributes?.failure;
    assert.equal(failure?.applicationFailureInfo?.type, 'InvalidInput');
    assert.equal(failure?.applicationFailureInfo?.nonRetryable, true);
    assert.match(failure?.message ?? '', /maxIterations/);
    // One workflow task, no retries.
    assert.equal(history.events?.filter((e) => e.workflowTaskStartedEventAttributes).length, 1);
  });
});
