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
import type { RecordedRequest } from '../test/support/fake-provider.js';
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

  // 4. A todo list, a dangerous command approved, a clarify question answered, a manual compression,
  //    then a parallel batch (with the batch deadline) in the compressed session.
  mkdirSync(join(ws, 'build'), { recursive: true });
  stack.fake.script([
    {
      toolCalls: [
        {
          name: 'todo',
          arguments: {
            todos: [
              { id: '1', content: 'clean the build', status: 'in_progress' },
              { id: '2', content: 'pick a database', status: 'pending' },
            ],
          },
        },
      ],
    },
    { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build && echo cleaned' } }] },
    { toolCalls: [{ name: 'clarify', arguments: { question: 'Which database?', choices: ['postgres', 'sqlite'] } }] },
    { text: 'Cleaned the build; using postgres.' },
  ]);
  const c4 = stack.herald.conversation('replay-human');
  const p4 = c4.send('Clean the build, then set up a database', { id: 'h1', start: { cwd: ws } });
  const approval = await eventually(async () => (await c4.state()).pending_approvals[0]);
  await c4.approve(approval.request_id, 'once');
  await eventually(async () => (await c4.state()).clarify);
  await c4.answer('postgres');
  await p4;
  // Enough transcript that the compression has a middle to summarise.
  stack.fake.script(Array.from({ length: 5 }, (_, i) => ({ text: `note ${i} ${'detail '.repeat(60)}` })));
  for (let i = 0; i < 5; i++) await c4.send(`question ${i}`, { id: `q${i}` });
  stack.fake.script([{ text: '## Goal\nClean and set up.\n## Remaining work\nnone' }]);
  const compressed = await c4.compress('the database choice');
  if (!compressed.compressed) throw new Error(`the recording needs a real compression: ${compressed.message}`);
  stack.fake.script([
    {
      toolCalls: [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'search_files', arguments: { pattern: 'B' } },
      ],
    },
    { text: 'Both read.' },
  ]);
  await c4.send('Read a.txt and find B', { id: 'h2' });
  await c4.end('recorded');
  await stack.temporal.workflow.getHandle(c4.workflowId).result();
  await save(stack.temporal, 'human-todo-compress', c4.workflowId);

  // 5. Delegation: two child agents that read a file each, then a child stopped with its parent.
  const brief = (r: RecordedRequest) =>
    (r.body.messages as Array<{ role: string; content: string | null }>).find((m) => m.content?.startsWith('YOUR TASK'))
      ?.content;
  let stopping = false;
  stack.fake.reset().respond((r) => {
    const messages = r.body.messages as Array<{ role: string; content: string | null }>;
    const last = messages.at(-1)!;
    const task = brief(r);
    if (task) {
      if (stopping) return { text: 'thinking…', hangAfterChunks: 1 };
      const file = /\w\.txt/.exec(task)?.[0] ?? 'a.txt';
      return last.role === 'user'
        ? { toolCalls: [{ name: 'read_file', arguments: { path: file } }] }
        : { text: `${file} holds ${last.content ?? ''}` };
    }
    if (last.role !== 'user') return { text: 'The children reported.' };
    return {
      toolCalls: [
        {
          name: 'delegate_task',
          arguments: stopping
            ? { goal: 'Think about a.txt' }
            : { tasks: [{ goal: 'Read a.txt', context: 'In the workspace root.' }, { goal: 'Read b.txt' }] },
        },
      ],
    };
  });
  const c5 = stack.herald.conversation('replay-delegation');
  await c5.send('What do a.txt and b.txt hold?', { id: 'd1', start: { cwd: ws } });
  stopping = true;
  const p5 = c5.send('Think about a.txt', { id: 'd2' });
  await eventually(() => stack.fake.requests.filter((r) => brief(r)?.includes('Think')).length > 0);
  await c5.stop('recording');
  await p5;
  await c5.end('recorded');
  await stack.temporal.workflow.getHandle(c5.workflowId).result();
  await save(stack.temporal, 'delegation', c5.workflowId);
  await save(stack.temporal, 'delegation-child', 'session-replay-delegation.d1-2-0');
} finally {
  await stack.close();
}

// 6. Background delegation: the reports come back as a second turn; a second batch is stopped.
const bg = await createTestStack({ configYaml: 'delegation: { mode: background }\n' });
try {
  const ws = join(bg.home, 'ws');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'a.txt'), 'A\n');
  let hang = false;
  bg.fake.respond((r) => {
    const messages = r.body.messages as Array<{ role: string; content: string | null }>;
    const last = messages.at(-1)!;
    if (messages.some((m) => m.content?.startsWith('YOUR TASK'))) {
      if (hang) return { text: 'thinking…', hangAfterChunks: 1 };
      return last.role === 'user'
        ? { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }
        : { text: `a.txt holds ${last.content ?? ''}` };
    }
    if (last.content?.startsWith('[Background task results]')) return { text: 'The child reported.' };
    if (last.role === 'user' && last.content !== 'carry on')
      return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Read a.txt' } }] };
    return { text: 'Dispatched.' };
  });
  const c6 = bg.herald.conversation('replay-background');
  await c6.send('What does a.txt hold?', { id: 'b1', start: { cwd: ws } });
  await eventually(async () => {
    const s = await c6.state();
    return s.turn === 2 && s.status === 'idle';
  });
  hang = true;
  await c6.send('Read it again', { id: 'b2' });
  await eventually(async () => (await c6.state()).background_sessions.length === 1);
  await c6.stop('recording');
  await eventually(async () => (await c6.state()).background_sessions.length === 0);
  await c6.send('carry on', { id: 'b3' });
  await c6.end('recorded');
  await bg.temporal.workflow.getHandle(c6.workflowId).result();
  await save(bg.temporal, 'delegation-background', c6.workflowId);
} finally {
  await bg.close();
}
process.exit(0);
