/**
 * A rolling deploy under Worker Versioning (docs/architecture.md, "Deploys"): two builds of the
 * worker on one task queue. A conversation started on build A stays on A (its run is pinned);
 * when B becomes current, the conversation moves to B at its next continue-as-new, carrying its
 * state; rolling back makes A current again and the conversation moves back the same way.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import proto from '@temporalio/proto';
import { after, before, describe, it } from 'node:test';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

describe('rolling deploy with Worker Versioning', () => {
  let stack: TestStack;
  const deploymentName = `herald-test-${randomBytes(3).toString('hex')}`;
  const build = (id: string) => ({ HERALD_BUILD_ID: id, HERALD_DEPLOYMENT_NAME: deploymentName });

  before(async () => {
    stack = await createTestStack({ worker: false });
  });
  after(async () => {
    await stack.close();
  });

  /**
   * Make a build current (once its workers have registered it), and wait until the server has
   * propagated it to the task queue: a workflow task started before that does not carry "target
   * version changed" (the conversation would move one message later, not at this one).
   */
  const setCurrent = async (buildId: string) => {
    await makeCurrent(buildId);
    await eventually(
      async () => {
        const d = await stack.temporal.workflowService.describeWorkerDeployment({
          namespace: 'default',
          deploymentName,
        });
        const info = d.workerDeploymentInfo;
        return (
          info?.routingConfig?.currentDeploymentVersion?.buildId === buildId &&
          // Older servers do not report the state: only the current version is checked there.
          (info.routingConfigUpdateState == null ||
            info.routingConfigUpdateState ===
              proto.temporal.api.enums.v1.RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_COMPLETED ||
            info.routingConfigUpdateState ===
              proto.temporal.api.enums.v1.RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_UNSPECIFIED)
        );
      },
      30_000,
      100,
    );
  };
  const makeCurrent = async (buildId: string) =>
    eventually(
      async () => {
        try {
          await stack.temporal.workflowService.setWorkerDeploymentCurrentVersion({
            namespace: 'default',
            deploymentName,
            buildId,
            identity: 'deploy-test',
            ignoreMissingTaskQueues: true,
          });
          return true;
        } catch {
          return false;
        }
      },
      30_000,
      250,
    );
  const buildOf = async (workflowId: string) => {
    const d = await stack.temporal.workflow.getHandle(workflowId).describe();
    const v = d.raw.workflowExecutionInfo?.versioningInfo;
    return v?.deploymentVersion?.buildId ?? undefined;
  };

  it('keeps a conversation on its build, then moves it at continue-as-new; rollback moves it back', async () => {
    stack.fake.respond(() => ({ text: 'ok' }));
    await stack.startWorker(build('a'));
    await setCurrent('a');
    const conv = stack.herald.conversation('deploy-1');
    assert.equal((await conv.send('on a', { start: {} })).final_response, 'ok');
    assert.equal(await buildOf(conv.workflowId), 'a');
    const firstRun = (await conv.handle.describe()).runId;

    await stack.startWorker(build('b'));
    await setCurrent('b');
    // The next message finds a new build current: the run hands over, and the message runs on B.
    const r = await conv.send('after the deploy');
    assert.equal(r.final_response, 'ok');
    assert.notEqual((await conv.handle.describe()).runId, firstRun, 'continued as new');
    await eventually(async () => (await buildOf(conv.workflowId)) === 'b');
    assert.equal((await conv.state()).turn, 2, 'the state came along');

    // Rollback: A is current again; the conversation moves back the same way.
    await setCurrent('a');
    assert.equal((await conv.send('after the rollback')).final_response, 'ok');
    await eventually(async () => (await buildOf(conv.workflowId)) === 'a');
    assert.equal((await conv.state()).turn, 3);
    const users = (await stack.transcript('deploy-1')).filter((m) => m.role === 'user').map((m) => m.content);
    assert.deepEqual(users, ['on a', 'after the deploy', 'after the rollback']);
  });
});
