/**
 * A versioned rolling deploy the way Kubernetes rolls it (docs/deploy.md, "Versioned deploys"):
 * two worker processes of different builds of one Worker Deployment. An idle conversation and one
 * in the middle of a slow tool start on build A; build B is made current; `herald deploy drain
 * --wait` wakes both — the idle one moves at once, the busy one finishes its turn on A, then moves
 * — and reports none left; A's worker stops; both conversations answer their next message on B;
 * every run of both replays.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RecordedRequest } from '../support/fake-provider.js';
import type { HeraldProcess } from '../support/processes.js';
import { runHerald, spawnHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';
import { buildOf, setCurrentBuild } from '../support/worker-deployment.js';
import { replayEveryRun } from '../support/chaos/replay.js';

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: RecordedRequest) => r.body.messages as WireMessage[];

describe('a versioned rolling deploy, drained', () => {
  let stack: TestStack;
  const processes: HeraldProcess[] = [];
  const deploymentName = `herald-drain-${randomBytes(3).toString('hex')}`;

  before(async () => {
    stack = await createTestStack({ worker: false });
  });
  after(async () => {
    for (const p of processes) p.kill();
    await stack.close();
  });

  /** A `herald worker` process of one build, polling. */
  const worker = async (buildId: string): Promise<HeraldProcess> => {
    const p = spawnHerald(['worker'], {
      ...stack.workerEnv(),
      HERALD_BUILD_ID: buildId,
      HERALD_DEPLOYMENT_NAME: deploymentName,
    });
    processes.push(p);
    await p.waitFor('worker polling');
    return p;
  };

  it('moves an idle and a mid-turn conversation to the new build before the old workers stop', async () => {
    const workspace = join(stack.workspaces, 'drain-ws');
    mkdirSync(workspace, { recursive: true });
    // "slow" asks for a tool that takes seconds; its result ends the turn; anything else is answered at once.
    stack.fake.respond((req) => {
      const messages = messagesOf(req);
      const last = messages[messages.length - 1];
      if (last?.role === 'tool') return { text: 'slow done' };
      if (last?.role === 'user' && last.content?.includes('slow'))
        return { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 6; echo slept' } }] };
      return { text: 'ok' };
    });

    const a = await worker('a');
    await setCurrentBuild(stack.temporal, deploymentName, 'a');
    const idle = stack.herald.conversation('drain-idle');
    assert.equal((await idle.send('hello', { start: { cwd: workspace } })).final_response, 'ok');
    const busy = stack.herald.conversation('drain-busy');
    const slow = busy.send('do the slow thing', { start: { cwd: workspace } });
    await eventually(async () => (await stack.events('drain-busy')).some((e) => e.kind === 'tool.started'), 60_000);
    assert.equal(await buildOf(stack.temporal, idle.workflowId), 'a');
    assert.equal(await buildOf(stack.temporal, busy.workflowId), 'a');

    // The new pods come up and their build is made current; the old ones keep running.
    await worker('b');
    await setCurrentBuild(stack.temporal, deploymentName, 'b');

    // One pass from the library: both are listed on A and signalled.
    const first = await stack.herald.drainOlderBuilds({ deploymentName });
    assert.equal(first.currentBuildId, 'b');
    assert.deepEqual([...first.sample].sort(), ['drain-busy', 'drain-idle']);
    assert.equal(first.signalled, 2);
    assert.deepEqual(first.byBuild, { a: 2 });

    // The CLI follows them until none is left: the busy one once its turn has ended on A.
    const drained = await runHerald(['deploy', 'drain', '--deployment', deploymentName, '--wait', '--timeout', '5m'], {
      ...stack.workerEnv(),
    });
    assert.equal(drained.code, 0, drained.stderr);
    assert.match(drained.stderr, new RegExp(`deployment ${deploymentName}: current build b`));
    assert.match(drained.stderr, /0 conversations remain on older builds/);
    assert.match(drained.stdout, /done: no conversation of .* remains on an older build/);

    const turn = await slow;
    assert.equal(turn.final_response, 'slow done', 'the turn in progress finished (on A)');
    assert.equal(await buildOf(stack.temporal, idle.workflowId), 'b');
    assert.equal(await buildOf(stack.temporal, busy.workflowId), 'b');

    // The old pods go away, as a rolling update ends.
    a.kill('SIGTERM');
    assert.equal(await a.exited, 0);

    // Nothing waits on A: both answer on B.
    assert.equal((await idle.send('after the deploy')).final_response, 'ok');
    assert.equal((await busy.send('after the deploy')).final_response, 'ok');
    assert.equal(await buildOf(stack.temporal, idle.workflowId), 'b');
    assert.equal(await buildOf(stack.temporal, busy.workflowId), 'b');
    const users = async (id: string) =>
      (await stack.transcript(id)).filter((m) => m.role === 'user').map((m) => m.content);
    assert.deepEqual(await users('drain-idle'), ['hello', 'after the deploy']);
    assert.deepEqual(await users('drain-busy'), ['do the slow thing', 'after the deploy']);
    const tool = (await stack.transcript('drain-busy')).find((m) => m.role === 'tool');
    assert.match(tool?.content ?? '', /slept/);
    assert.doesNotMatch(tool?.content ?? '', /re-executed/, 'the tool ran once, on A');

    // The runs that moved (an idle wake-up, a move at the end of a turn) replay as they ran: the
    // new-build path is in no committed history, so it is replayed here.
    const replay = await replayEveryRun(stack.temporal, [idle.workflowId, busy.workflowId], undefined);
    assert.ok(replay.runs >= 4, `${replay.runs} runs`);
    assert.deepEqual(replay.failures, []);

    // Nothing is left to drain, and saying so is not an error.
    const again = await runHerald(['deploy', 'drain', '--deployment', deploymentName, '--json'], stack.workerEnv());
    assert.equal(again.code, 0, again.stderr);
    assert.equal((JSON.parse(again.stdout) as { remaining: number }).remaining, 0);
  });

  it('says what is wrong when the deployment has no current build', async () => {
    const r = await runHerald(['deploy', 'drain', '--deployment', `${deploymentName}-none`], stack.workerEnv());
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot describe the worker deployment|has no current build/);
  });
});
