/**
 * Continue-as-new is decided only on inputs the history records (docs/architecture.md, "Deploys
 * and patches"). The dev server here suggests continue-as-new at a low history length, and an
 * update that its validator rejects (rejections are not recorded) arrives in the workflow task
 * that first carries the suggestion: the run must not move in that task — a replay, which never
 * sees the rejected update, could not repeat it — but at the next recorded input. Every run of the
 * conversation replays.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Worker } from '@temporalio/worker';
import { workerDataConverter } from '../../runtime/data-converter.js';
import { ensureTemporalCli } from '../../runtime/temporal-cli.js';
import { freePort } from '../../runtime/ports.js';
import type { DevServer } from '../../workers/temporal-dev-server.js';
import { startTemporalDevServer } from '../../workers/temporal-dev-server.js';
import { WORKFLOWS_PATH } from '../../workers/worker.js';
import { approachSuggestion, suggestCanArgs } from '../support/continue-as-new.js';
import { runsOf } from '../support/histories.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

describe('continue-as-new suggested by the server', () => {
  let server: DevServer;
  let stack: TestStack;

  before(async () => {
    server = await startTemporalDevServer({
      cliPath: ensureTemporalCli(),
      port: await freePort(),
      namespace: 'default',
      extraArgs: suggestCanArgs(),
    });
    stack = await createTestStack({ temporalAddress: server.address });
  });
  after(async () => {
    await stack?.close();
    await server?.stop();
  });

  it('moves at the next recorded input, not in the task of a rejected update, and every run replays', async () => {
    stack.fake.script([{ text: 'first answer' }]);
    const conv = stack.herald.conversation('can-suggested');
    assert.equal((await conv.send('hello', { id: 'm1', start: {} })).final_response, 'first answer');
    const handle = stack.temporal.workflow.getHandle(conv.workflowId);
    const firstRun = (await handle.describe()).runId;

    await approachSuggestion(stack.temporal, conv.workflowId, 'm1');
    // The server's next workflow task carries the suggestion; this update is refused in it.
    await assert.rejects(conv.approve('no-such-request', 'once'), /no pending approval/);
    // A query forces nothing either: the run is where it was.
    assert.equal((await conv.state()).status, 'idle');
    const movedUnrecorded = (await handle.describe()).runId !== firstRun;
    if (!movedUnrecorded) {
      // The next recorded input (a signal) is where the run moves.
      await handle.signal('approve', { requestId: 'no-such-request', decision: 'once' });
      await eventually(async () => (await handle.describe()).runId !== firstRun);
    }

    // The conversation goes on in the new run.
    stack.fake.script([{ text: 'second answer' }]);
    assert.equal((await conv.send('and now?', { id: 'm2' })).final_response, 'second answer');

    const runs = await runsOf(stack.temporal, conv.workflowId);
    assert.ok(runs.length >= 2, `${runs.length} run(s)`);
    const suggested = runs[0]!.events.some((e) => e.workflowTaskStartedEventAttributes?.suggestContinueAsNew);
    assert.ok(suggested, 'the first run took the server-suggested path');
    const histories = await Promise.all(
      runs.map(async (r) => ({
        workflowId: conv.workflowId,
        history: await stack.temporal.workflow.getHandle(conv.workflowId, r.runId).fetchHistory(),
      })),
    );
    let replayed = 0;
    for await (const result of Worker.runReplayHistories(
      { workflowsPath: WORKFLOWS_PATH, dataConverter: workerDataConverter() },
      histories,
    )) {
      assert.equal(result.error, undefined, `run ${replayed + 1}: ${String(result.error)}`);
      replayed++;
    }
    assert.equal(replayed, runs.length);
    assert.equal(movedUnrecorded, false, 'no move in a task the history does not record');
  });
});
