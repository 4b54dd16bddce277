/**
 * A rolling deploy under Worker Versioning (docs/architecture.md, "Deploys"): two builds of the
 * worker on one task queue. A conversation started on build A stays on A (its run is pinned);
 * when B becomes current, the conversation moves to B at its next continue-as-new, carrying its
 * state; rolling back makes A current again and the conversation moves back the same way.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';
import { buildOf as buildOfRun, setCurrentBuild } from '../support/worker-deployment.js';

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

  const setCurrent = (buildId: string) => setCurrentBuild(stack.temporal, deploymentName, buildId);
  const buildOf = (workflowId: string) => buildOfRun(stack.temporal, workflowId);

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
