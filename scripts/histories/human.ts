/** Scenarios where a person answers the workflow: approvals (by hand and `smart`), clarify, todos, manual compression, steer. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestStack } from '../../test/support/stack.js';
import { eventually } from '../../test/support/stack.js';
import type { Scenario } from './support.js';
import { endConversation, expect, messagesOf, save } from './support.js';

export const humanScenarios: readonly Scenario[] = [
  {
    name: 'human-todo-compress',
    stack: 'plain',
    proves: {
      'human-todo-compress':
        'a todo list, a dangerous command approved, a clarify answered, a manual compression, then a parallel batch with its deadline timer',
    },
    record: (on) => recordHuman(on!.stack, on!.ws),
  },
  {
    name: 'smart-approval',
    stack: 'short-retries',
    proves: {
      'smart-approval': '`smart` approvals: the auxiliary model approves one command and escalates another, denied',
    },
    record: (on) => recordSmartApproval(on!.stack, on!.ws),
  },
  {
    name: 'steer',
    stack: 'short-retries',
    proves: {
      steer:
        'busyPolicy `steer`: a message during a tool call reaches the next model call; late steer becomes the next message',
    },
    record: (on) => recordSteer(on!.stack, on!.ws),
  },
  {
    name: 'steer-stopped',
    stack: 'short-retries',
    proves: {
      'steer-stopped': 'steer carried by a model call that `/stop` cancelled comes back as the next user message',
    },
    record: (on) => recordSteerStopped(on!.stack, on!.ws),
  },
];

/**
 * A todo list, a dangerous command approved, a clarify question answered, a manual compression,
 * then a parallel batch (with the batch deadline) in the compressed session.
 */
async function recordHuman(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  mkdirSync(join(ws, 'build-old'), { recursive: true });
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
    { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build-old && echo cleaned' } }] },
    {
      toolCalls: [{ name: 'clarify', arguments: { question: 'Which database?', choices: ['postgres', 'sqlite'] } }],
    },
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
}

/** `smart` approvals: the auxiliary model approves a low-risk delete; it escalates another, which the user denies. */
async function recordSmartApproval(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  mkdirSync(join(ws, 'dist-old'), { recursive: true });
  const conv = stack.herald.conversation('replay-smart');
  stack.fake.script([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf dist-old' } }] },
    { text: 'APPROVE' },
    { text: 'cleaned dist' },
  ]);
  const r1 = await conv.send('clean', { id: 'sm1', start: { cwd: ws, approvals: { mode: 'smart' } } });
  expect(r1.final_response === 'cleaned dist', 'turn 1 answered');
  expect(
    /review shell commands/.test(messagesOf(stack.fake.requests[1]!)[0]!.content ?? ''),
    'the auxiliary model reviewed',
  );
  stack.fake.script([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'chmod 777 secrets' } }] },
    { text: 'ESCALATE' },
    { text: 'Left the permissions alone.' },
  ]);
  const p2 = conv.send('open up secrets', { id: 'sm2' });
  const approval = await eventually(async () => (await conv.state()).pending_approvals[0]);
  await conv.approve(approval.request_id, 'deny');
  expect((await p2).final_response === 'Left the permissions alone.', 'turn 2 answered');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'smart-approval', conv.workflowId);
}

/**
 * busyPolicy `steer`: a message posted during a tool call reaches the next model call; a steer
 * signal during a model call that ends the turn becomes the next user message.
 */
async function recordSteer(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const conv = stack.herald.conversation('replay-steer');
  stack.fake.script([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1.5; echo slept' } }] },
    { text: 'Switched to the new plan.' },
  ]);
  const p1 = conv.send('do the old plan', { id: 'se1', start: { cwd: ws, busyPolicy: 'steer' } });
  await eventually(async () => (await stack.events('replay-steer')).some((e) => e.kind === 'tool.started'));
  await conv.post('actually, use the new plan', 'se1-steer');
  expect((await p1).final_response === 'Switched to the new plan.', 'turn 1 answered');
  expect(/OUT-OF-BAND USER MESSAGE/.test(messagesOf(stack.fake.requests[1]!).at(-1)!.content ?? ''), 'steered');
  stack.fake.script([{ text: 'a slow first answer', chunkDelayMs: 200 }, { text: 'handled the steer' }]);
  const p2 = conv.send('hello', { id: 'se2' });
  await stack.fake.waitForRequests(3);
  await conv.steer('and mention the weather');
  await p2;
  await eventually(async () => {
    const s = await conv.state();
    return s.turn === 3 && s.status === 'idle';
  });
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'steer', conv.workflowId);
}

/** Steer carried by a model call that /stop cancelled: it comes back as the next user message (patched path). */
async function recordSteerStopped(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const conv = stack.herald.conversation('replay-steer-stopped');
  stack.fake.script([
    { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1; echo done' } }] },
    { text: 'too late', delayMs: 5_000 },
    { text: 'got the steer' },
  ]);
  const p1 = conv.send('go', { id: 'ss1', start: { cwd: ws, busyPolicy: 'steer' } });
  await stack.fake.waitForRequests(1);
  await conv.steer('use tabs');
  await stack.fake.waitForRequests(2);
  await conv.stop();
  const stopped = await p1;
  expect(stopped.interrupted, 'turn 1 stopped');
  expect(stopped.api_calls === 2, `turn 1 counted the stopped call: ${stopped.api_calls}`);
  await eventually(() => stack.fake.requests.length === 3);
  expect(messagesOf(stack.fake.requests[2]!).at(-1)!.content === 'use tabs', 'the steer became a message');
  await eventually(async () => (await conv.state()).status === 'idle');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'steer-stopped', conv.workflowId);
}
