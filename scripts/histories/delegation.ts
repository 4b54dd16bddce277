/** Scenarios of child agents: delegated in the turn, in the background, and past their deadline. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseDelegationResult } from '../../common/delegation.js';
import type { RecordedRequest } from '../../test/support/fake-provider.js';
import type { TestStack } from '../../test/support/stack.js';
import { createTestStack, eventually } from '../../test/support/stack.js';
import type { Scenario } from './support.js';
import { endConversation, expect, messagesOf, save } from './support.js';

export const delegationScenarios: readonly Scenario[] = [
  {
    name: 'delegation',
    stack: 'plain',
    proves: {
      delegation: 'two child agents run and report; a child stopped with its parent turn (wind-down timer cancelled)',
      'delegation-child': 'a child agent run: its one task, its result back to the parent',
    },
    record: (on) => recordDelegation(on!.stack, on!.ws),
  },
  {
    name: 'delegation-background',
    stack: 'background',
    proves: {
      'delegation-background':
        'background delegation: reports come back as a new turn; a batch stopped, its report held for the next message',
    },
    record: (on) => recordBackground(on!.stack, on!.ws),
  },
  {
    name: 'child-deadline',
    stack: 'own',
    proves: {
      'child-deadline': 'a child agent past its deadline is stopped and reported as timed out',
      'child-deadline-child': 'the child agent run that was stopped at its deadline',
    },
    record: () => recordChildDeadline(),
  },
];

/** Delegation: two child agents that read a file each, then a child stopped with its parent. */
async function recordDelegation(stack: TestStack, ws: string): Promise<void> {
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
}

/** Background delegation: the reports come back as a second turn; a second batch is stopped. */
async function recordBackground(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  let hang = false;
  stack.fake.respond((r) => {
    const messages = r.body.messages as Array<{ role: string; content: string | null }>;
    const last = messages.at(-1)!;
    if (messages.some((m) => m.content?.startsWith('YOUR TASK'))) {
      if (hang) return { text: 'thinking…', hangAfterChunks: 1 };
      return last.role === 'user'
        ? { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }
        : { text: `a.txt holds ${last.content ?? ''}` };
    }
    // Reports come back as a user message behind Herald's marker (`[herald:…] [Background task results] …`).
    if (last.content?.includes('[Background task results]')) return { text: 'The child reported.' };
    if (last.role === 'user' && last.content !== 'carry on')
      return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Read a.txt' } }] };
    return { text: 'Dispatched.' };
  });
  const c6 = stack.herald.conversation('replay-background');
  await c6.send('What does a.txt hold?', { id: 'b1', start: { cwd: ws } });
  await eventually(async () => {
    const s = await c6.state();
    return s.turn === 2 && s.status === 'idle';
  });
  hang = true;
  await c6.send('Read it again', { id: 'b2' });
  await eventually(async () => (await c6.state()).background_sessions.length === 1, 60_000);
  await c6.stop('recording');
  // The child ends its turn (its model call aborted) and reports: slow on a loaded machine.
  await eventually(async () => (await c6.state()).background_sessions.length === 0, 60_000);
  await c6.send('carry on', { id: 'b3' });
  await c6.end('recorded');
  await stack.temporal.workflow.getHandle(c6.workflowId).result();
  await save(stack.temporal, 'delegation-background', c6.workflowId);
}

/** A child agent runs past `delegation.childTimeoutSeconds`: stopped, reported as timed out. */
async function recordChildDeadline(): Promise<void> {
  const stack = await createTestStack({
    configYaml: 'retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\ndelegation: { childTimeoutSeconds: 3 }\n',
  });
  try {
    const ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    stack.fake.respond((r) => {
      const messages = messagesOf(r);
      if (messages.some((m) => m.role === 'user' && m.content?.startsWith('YOUR TASK')))
        return { text: 'slow', hangAfterChunks: 1 };
      if (messages.at(-1)!.role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Take forever' } }] };
      return { text: 'The child timed out.' };
    });
    const conv = stack.herald.conversation('replay-child-deadline');
    const r = await conv.send('go', { id: 'cd1', start: { cwd: ws } });
    expect(r.final_response === 'The child timed out.', 'the parent answered');
    const tool = (await stack.transcript('replay-child-deadline')).find((m) => m.role === 'tool');
    const [report] = parseDelegationResult(tool?.content ?? '');
    expect(report?.status === 'timeout', `the child timed out: ${JSON.stringify(report)}`);
    const child = `session-${report!.session_id}`;
    await stack.temporal.workflow.getHandle(child).result();
    await endConversation(stack, conv.workflowId);
    await save(stack.temporal, 'child-deadline', conv.workflowId);
    await save(stack.temporal, 'child-deadline-child', child);
  } finally {
    await stack.close();
  }
}
