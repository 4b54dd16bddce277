/**
 * Record the workflow histories the replay test replays (test/fixtures/histories). Run it after a
 * deliberate workflow change (with `patched()` where old histories must keep replaying), commit the
 * new files next to the old ones, and keep the old ones: they are what running conversations have.
 *
 *   npx tsx scripts/record-histories.ts [suffix]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { PROJECT_ROOT } from '../runtime/paths.js';
import { createTestStack, eventually } from '../test/support/stack.js';

const dir = join(PROJECT_ROOT, 'test', 'fixtures', 'histories');
const suffix = process.argv[2] ? `-${process.argv[2]}` : '';
mkdirSync(dir, { recursive: true });

async function save(client: Client, name: string, workflowId: string, runId?: string): Promise<void> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  writeFileSync(join(dir, `${name}${suffix}.json`), `${historyToJSON(history)}\n`);
  console.log(`recorded ${name}${suffix}.json (${history.events?.length ?? 0} events)`);
}

const stack = await createTestStack();
try {
  const ws = join(stack.home, 'ws');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'a.txt'), 'A\n');
  writeFileSync(join(ws, 'b.txt'), 'B\n');

  // 1. Several turns, parallel reads, a terminal call, an unknown tool, then `end`.
  stack.fake.script([
    {
      text: 'Reading both.',
      toolCalls: [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'read_file', arguments: { path: 'b.txt' } },
      ],
    },
    { toolCalls: [{ name: 'terminal', arguments: { command: 'cat a.txt b.txt | wc -l' } }] },
    { toolCalls: [{ name: 'grep', arguments: { pattern: 'A' } }] },
    { text: 'Two files, two lines.' },
    { text: 'Anything else?' },
  ]);
  const conv = stack.herald.conversation('replay-multi-turn');
  await conv.send('Read a.txt and b.txt and count lines', { id: 'r1', start: { cwd: ws } });
  await conv.send('Thanks', { id: 'r2' });
  await conv.end('recorded');
  await stack.temporal.workflow.getHandle(conv.workflowId).result();
  await save(stack.temporal, 'multi-turn-tools', conv.workflowId);

  // 2. A stop during a model call, a queued signal message, continue-as-new after two turns.
  stack.fake.script([{ text: 'slow…', hangAfterChunks: 1 }, { text: 'second turn' }, { text: 'third turn, new run' }]);
  const c2 = stack.herald.conversation('replay-interrupt-can');
  const pending = c2.send('start something slow', {
    id: 's1',
    start: { continueAsNewAfterTurns: 2, busyPolicy: 'queue' },
  });
  await stack.fake.waitForRequests(6);
  await c2.stop('recording');
  await pending;
  await c2.send('next', { id: 's2' });
  await eventually(async () => {
    const d = await stack.temporal.workflow.getHandle(c2.workflowId).describe();
    return d.runId !== d.raw.workflowExecutionInfo?.firstRunId;
  });
  await c2.send('after continue-as-new', { id: 's3' });
  const first =
    (await stack.temporal.workflow.getHandle(c2.workflowId).describe()).raw.workflowExecutionInfo?.firstRunId ??
    undefined;
  await save(stack.temporal, 'interrupt-then-continue-as-new', c2.workflowId, first);
  await c2.end('recorded');
  await stack.temporal.workflow.getHandle(c2.workflowId).result();
  await save(stack.temporal, 'after-continue-as-new', c2.workflowId);

  // 3. Invalid input.
  const bad = await stack.temporal.workflow.start('conversation', {
    taskQueue: stack.taskQueue,
    workflowId: 'session-replay-invalid',
    args: [{ maxIterations: 0 }],
  });
  await bad.result().catch(() => {});
  await save(stack.temporal, 'invalid-input', 'session-replay-invalid');
} finally {
  await stack.close();
}
process.exit(0);
