/**
 * Durability: the worker process is killed (SIGKILL) in the middle of a turn, a new one starts,
 * and the turn finishes with no duplicated and no missing messages.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isValidOrder } from '../../common/role-order.js';
import type { HeraldProcess } from '../support/processes.js';
import { spawnHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

async function worker(stack: TestStack): Promise<HeraldProcess> {
  const p = spawnHerald(['worker'], stack.workerEnv());
  await p.waitFor('worker polling');
  return p;
}

describe('worker crash mid-turn', () => {
  let stack: TestStack;
  const processes: HeraldProcess[] = [];
  before(async () => {
    stack = await createTestStack({ worker: false });
  });
  after(async () => {
    for (const p of processes) p.kill();
    await stack.close();
  });

  it('finishes the turn on a new worker after a kill during the model call and during a tool', async () => {
    const workspace = join(stack.home, 'crash-ws');
    mkdirSync(workspace, { recursive: true });
    stack.fake.script([
      { text: 'this reply never arrives', delayMs: 60_000 },
      {
        text: 'Running it.',
        toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 2; echo ran >> runs.log; cat runs.log' } }],
      },
      { text: 'All done.' },
    ]);
    const first = await worker(stack);
    processes.push(first);
    const conv = stack.herald.conversation('crash');
    const pending = conv.send('please do the thing', { id: 'crash-1', start: { cwd: workspace } });

    // Kill while the model call is in flight.
    const req = await stack.fake.waitForRequests(1);
    first.kill('SIGKILL');
    await eventually(() => req.abortedAt !== undefined);
    const second = await worker(stack);
    processes.push(second);

    // Kill again while the terminal tool runs.
    await eventually(async () => (await stack.events('crash')).some((e) => e.kind === 'tool.started'), 60_000);
    second.kill('SIGKILL');
    processes.push(await worker(stack));

    const result = await pending;
    assert.equal(result.final_response, 'All done.');
    assert.equal(result.completed, true);

    const transcript = await stack.transcript('crash');
    assert.deepEqual(
      transcript.map((m) => `${m.seq}:${m.role}`),
      ['0:user', '1:assistant', '2:tool', '3:assistant'],
    );
    assert.ok(isValidOrder(transcript));
    assert.equal(transcript[1]!.content, 'Running it.');
    // The tool ran twice (at-least-once) and the transcript says so instead of hiding it.
    assert.match(transcript[2]!.content!, /re-executed after worker restart/);
    assert.match(transcript[2]!.content!, /ran\nran/);
    assert.equal(transcript[3]!.content, 'All done.');
    stack.fake.assertDone();
  });
});
