/**
 * Delegation (docs/delegation.md): `delegate_task` runs child agents as child workflows with restricted
 * tools; their reports come back as the tool result, their usage joins the parent's, `/stop`
 * reaches them, and a child never waits for an approval nobody can give.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { ChildReport } from '../../common/delegation.js';
import { parseDelegationResult } from '../../common/delegation.js';
import { isValidOrder } from '../../shared/role-order.js';
import type { RecordedRequest, ScriptedReply } from '../support/fake-provider.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: RecordedRequest) => r.body.messages as WireMessage[];
const toolNames = (r: RecordedRequest) =>
  ((r.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
const isChild = (r: RecordedRequest) =>
  messagesOf(r).some((m) => m.role === 'user' && m.content?.startsWith('YOUR TASK'));
const lastOf = (r: RecordedRequest) => messagesOf(r).at(-1)!;

/** A test stack with a workspace holding the files the tests read. */
async function openStack(configYaml: string): Promise<{ stack: TestStack; ws: string }> {
  const stack = await createTestStack({ configYaml });
  const ws = join(stack.workspaces, 'delegation');
  mkdirSync(join(ws, 'reports'), { recursive: true });
  writeFileSync(join(ws, 'alpha.txt'), 'alpha says hello\n');
  writeFileSync(join(ws, 'beta.txt'), 'beta says goodbye\n');
  return { stack, ws };
}

/** The reports of the first delegate_task result in a session's transcript. */
async function reportsIn(stack: TestStack, session: string): Promise<{ text: string; results: ChildReport[] }> {
  const tool = (await stack.transcript(session)).find(
    (m) => m.role === 'tool' && typeof m.content === 'string' && m.content.includes('delegated task(s)'),
  );
  assert.ok(tool, 'the delegate_task result is in the transcript');
  return { text: tool.content!, results: parseDelegationResult(tool.content!) };
}

describe('delegation', () => {
  let stack: TestStack;
  let ws: string;
  before(async () => {
    ({ stack, ws } = await openStack('retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\n'));
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  it('runs tasks as child agents in parallel and hands their reports back', async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (isChild(req)) {
        const task = messagesOf(req).find((m) => m.content?.startsWith('YOUR TASK'))!.content!;
        const file = /(\w+)\.txt/.exec(task)![0];
        if (lastOf(req).role === 'user')
          return {
            toolCalls: [{ name: 'read_file', arguments: { path: file } }],
            usage: { prompt: 100, completion: 10 },
          };
        const line = (lastOf(req).content ?? '').split('\n')[0]!.replace(/^\s*\d+\t/, '');
        return { text: `Report: ${file} contains "${line}".`, usage: { prompt: 120, completion: 20 } };
      }
      if (lastOf(req).role === 'user')
        return {
          toolCalls: [
            {
              name: 'delegate_task',
              arguments: {
                tasks: [
                  { goal: 'Read alpha.txt and report its first line', context: 'The file is in the workspace root.' },
                  { goal: 'Read beta.txt and report its first line' },
                ],
              },
            },
          ],
          usage: { prompt: 50, completion: 5 },
        };
      return { text: 'Both children reported back.', usage: { prompt: 60, completion: 6 } };
    });

    const r = await stack.herald
      .conversation('d-basic')
      .send('find out what alpha and beta say', { start: { cwd: ws } });
    assert.equal(r.completed, true, r.error);
    assert.equal(r.final_response, 'Both children reported back.');

    const { text, results } = await reportsIn(stack, 'd-basic');
    assert.match(text, /^2 delegated task\(s\): 2 completed\./);
    assert.deepEqual(
      results.map((x) => [x.task_index, x.status, x.summary]),
      [
        [0, 'completed', 'Report: alpha.txt contains "alpha says hello".'],
        [1, 'completed', 'Report: beta.txt contains "beta says goodbye".'],
      ],
    );
    for (const x of results) {
      assert.equal(x.api_calls, 2);
      assert.equal(x.tokens.total, 250);
      assert.equal(x.exit_reason, 'text_response');
    }

    // Child usage rolls up into the parent's ledger: its own 121 tokens plus 2 × 250.
    assert.equal(r.usage.turn.total_tokens, 121 + 500);
    assert.equal(r.usage.session.total_tokens, 121 + 500);

    // The children ran concurrently: both first calls arrived before either child's second call.
    const childCalls = stack.fake.requests.filter(isChild);
    assert.equal(childCalls.length, 4);
    assert.deepEqual(
      childCalls.map((c) => lastOf(c).role),
      ['user', 'user', 'tool', 'tool'],
    );

    // Children get the parent's tools minus delegate_task, clarify and memory, and the sub-agent prompt.
    const parentTools = toolNames(stack.fake.requests.find((q) => !isChild(q))!);
    assert.ok(parentTools.includes('delegate_task'));
    for (const c of childCalls) {
      const tools = toolNames(c);
      for (const banned of ['delegate_task', 'clarify', 'memory']) assert.ok(!tools.includes(banned), banned);
      assert.ok(tools.includes('read_file') && tools.includes('terminal'));
      assert.match(messagesOf(c)[0]!.content!, /sub-agent/);
    }
    const alphaBrief = childCalls.map((c) => messagesOf(c)[1]!.content!).find((t) => t.includes('alpha.txt'))!;
    assert.match(
      alphaBrief,
      /^YOUR TASK:\nRead alpha.txt .*\n\nCONTEXT \(from the agent that delegated this task\):\nThe file/,
    );

    // Each child is a session of its own, linked to the parent, and a completed child workflow.
    const sessions = await stack.db.query<{ id: string; source: string; parent_id: string }>(
      "SELECT id, source, parent_id FROM sessions WHERE parent_id = 'd-basic' ORDER BY id",
    );
    assert.deepEqual(
      sessions.rows.map((row) => [row.id, row.source]),
      results.map((x) => [x.session_id, 'subagent']),
    );
    for (const x of results) {
      assert.ok(isValidOrder(await stack.transcript(x.session_id)));
      const child = await stack.temporal.workflow.getHandle(`session-${x.session_id}`).describe();
      assert.equal(child.status.name, 'COMPLETED');
      assert.equal(child.parentExecution?.workflowId, 'session-d-basic');
    }
  });

  it('refuses more tasks than may run at once, and starts none', async () => {
    const tasks = ['a', 'b', 'c', 'd'].map((x) => ({ goal: `task ${x}` }));
    stack.fake.script([{ toolCalls: [{ name: 'delegate_task', arguments: { tasks } }] }, { text: 'ok, fewer then' }]);
    const r = await stack.herald.conversation('d-limit').send('do four things', { start: { cwd: ws } });
    assert.equal(r.final_response, 'ok, fewer then');
    const tool = (await stack.transcript('d-limit')).find((m) => m.role === 'tool')!;
    assert.match(tool.content as string, /at most 3 tasks per call/);
    assert.equal(stack.fake.requests.filter(isChild).length, 0);
  });

  it('denies a child agent’s dangerous command at once instead of waiting for an approval', async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (isChild(req)) {
        if (lastOf(req).role === 'user')
          return { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf reports' } }] };
        return { text: `Could not clean: ${(lastOf(req).content ?? '').slice(0, 80)}` };
      }
      if (lastOf(req).role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Delete the build directory' } }] };
      return { text: 'The child could not delete it.' };
    });
    const r = await stack.herald.conversation('d-deny').send('clean up', { start: { cwd: ws } });
    assert.equal(r.final_response, 'The child could not delete it.');
    assert.ok(existsSync(join(ws, 'reports')), 'the command did not run');
    const { results } = await reportsIn(stack, 'd-deny');
    assert.equal(results[0]!.status, 'completed');
    assert.match(results[0]!.summary, /Could not clean: DENIED: this command needs a person's approval/);
    const events = await stack.events(results[0]!.session_id);
    assert.equal(events.filter((e) => e.kind === 'approval.requested').length, 0);
  });

  it('gives children only what is left of the session budget, and counts what they spend', async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (isChild(req))
        return {
          toolCalls: [{ name: 'read_file', arguments: { path: 'alpha.txt' } }],
          usage: { prompt: 240, completion: 10 },
        };
      if (lastOf(req).role === 'user')
        return {
          toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Read alpha.txt' } }],
          usage: { prompt: 90, completion: 10 },
        };
      return { text: 'never reached: the session budget is spent' };
    });
    const r = await stack.herald
      .conversation('d-budget')
      .send('read it', { start: { cwd: ws, budget: { maxTokens: 300 } } });
    // The child had 200 tokens left, spent 250 in its first call, and was stopped by its own cap.
    const { results } = await reportsIn(stack, 'd-budget');
    assert.equal(results[0]!.exit_reason, 'session_budget_exceeded');
    assert.equal(results[0]!.tokens.total, 250);
    assert.equal(stack.fake.requests.filter(isChild).length, 1);
    // Parent 100 + child 250 = 350 > 300: the parent's next call is refused too.
    assert.equal(r.turn_exit_reason, 'session_budget_exceeded');
    assert.equal(r.usage.session.total_tokens, 350);
  });

  it('stops running child agents when the parent is stopped, and keeps their reports', async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (isChild(req)) return { text: 'still thinking', hangAfterChunks: 1 };
      return {
        toolCalls: [
          {
            name: 'delegate_task',
            arguments: { tasks: [{ goal: 'Think about alpha.txt' }, { goal: 'Think about beta.txt' }] },
          },
        ],
      };
    });
    const conv = stack.herald.conversation('d-stop');
    const pending = conv.send('think hard', { start: { cwd: ws } });
    await eventually(() => stack.fake.requests.filter(isChild).length === 2);
    // The parent's state names the children it waits for; each child names its parent.
    const state = await conv.state();
    assert.equal(state.status, 'running_tools');
    assert.equal(state.child_sessions.length, 2);
    const childState = await stack.herald.conversation(state.child_sessions[0]!).state();
    assert.equal(childState.parent_session_id, 'd-stop');
    assert.equal(childState.status, 'thinking');
    const stoppedAt = Date.now();
    await conv.stop();
    const r = await pending;
    assert.equal(r.interrupted, true);
    assert.equal(r.turn_exit_reason, 'interrupted_during_tools');

    // Both hung model calls were aborted: the stop reached the children's HTTP requests.
    const childCalls = stack.fake.requests.filter(isChild);
    await eventually(() => childCalls.every((c) => c.abortedAt !== undefined));
    assert.ok(childCalls.every((c) => c.abortedAt! >= stoppedAt));

    const { results } = await reportsIn(stack, 'd-stop');
    assert.deepEqual(
      results.map((x) => [x.status, x.exit_reason]),
      [
        ['interrupted', 'interrupted_during_api_call'],
        ['interrupted', 'interrupted_during_api_call'],
      ],
    );
    const parent = await stack.transcript('d-stop');
    assert.ok(isValidOrder(parent));
    for (const x of results) {
      assert.ok(isValidOrder(await stack.transcript(x.session_id)));
      const child = await stack.temporal.workflow.getHandle(`session-${x.session_id}`).describe();
      assert.equal(child.status.name, 'COMPLETED');
    }
  });
});

describe('delegation, configured', () => {
  let stack: TestStack;
  let ws: string;
  before(async () => {
    ({ stack, ws } = await openStack(
      'delegation: { autoApprove: true, childTimeoutSeconds: 3, maxIterations: 3, maxDepth: 2, model: { provider: custom, model: child-model } }\n',
    ));
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  it('runs a child’s dangerous command without asking when autoApprove is set, on the configured child model', async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (isChild(req)) {
        if (lastOf(req).role === 'user')
          return { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf reports && echo gone' } }] };
        return { text: 'Deleted the build directory.' };
      }
      if (lastOf(req).role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Delete the build directory' } }] };
      return { text: 'Done.' };
    });
    const r = await stack.herald.conversation('dc-auto').send('clean up', { start: { cwd: ws } });
    assert.equal(r.final_response, 'Done.');
    assert.equal(existsSync(join(ws, 'reports')), false);
    // delegation.model: the children run on their own model, the parent on its own.
    assert.deepEqual([...new Set(stack.fake.requests.filter(isChild).map((q) => q.body.model))], ['child-model']);
    assert.deepEqual(
      [...new Set(stack.fake.requests.filter((q) => !isChild(q)).map((q) => q.body.model))],
      ['fake-model'],
    );
  });

  it('gives each child the configured iteration budget, not the parent’s', async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (isChild(req)) {
        const iteration = messagesOf(req).filter((m) => m.role === 'assistant').length;
        return iteration < 10 ? { toolCalls: [{ name: 'todo', arguments: {} }] } : { text: 'never reached' };
      }
      if (lastOf(req).role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Loop forever' } }] };
      return { text: 'The child ran out of budget.' };
    });
    await stack.herald.conversation('dc-budget').send('go', { start: { cwd: ws } });
    const [report] = (await reportsIn(stack, 'dc-budget')).results;
    assert.equal(report!.exit_reason, 'budget_exhausted');
    assert.equal(report!.api_calls, 4); // 3 iterations and the closing summary call
  });

  it('stops a child that runs past its timeout and reports it as timed out', async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (isChild(req)) return { text: 'slow', hangAfterChunks: 1 };
      if (lastOf(req).role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Take forever' } }] };
      return { text: 'The child timed out.' };
    });
    const r = await stack.herald.conversation('dc-timeout').send('go', { start: { cwd: ws } });
    assert.equal(r.final_response, 'The child timed out.');
    const tool = (await stack.transcript('dc-timeout')).find((m) => m.role === 'tool')!;
    assert.match(tool.content as string, /^1 delegated task\(s\): 1 timeout\./);
    assert.ok(stack.fake.requests.filter(isChild).every((c) => c.abortedAt !== undefined));
  });

  it('lets children delegate in turn up to maxDepth, and no deeper', async () => {
    writeFileSync(join(ws, 'note.txt'), 'deep note\n');
    const briefOf = (r: RecordedRequest) => messagesOf(r).find((m) => m.content?.startsWith('YOUR TASK'))?.content;
    stack.fake.respond((req): ScriptedReply => {
      const brief = briefOf(req);
      const last = lastOf(req);
      if (brief?.includes('Level two')) {
        if (last.role === 'user') return { toolCalls: [{ name: 'read_file', arguments: { path: 'note.txt' } }] };
        return { text: `note.txt: ${(last.content ?? '').split('\n')[0]!.replace(/^\s*\d+\t/, '')}` };
      }
      if (brief?.includes('Level one')) {
        if (last.role === 'user')
          return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Level two: read note.txt' } }] };
        return { text: `Level one heard: ${/"summary": "([^"]*)"/.exec(last.content ?? '')?.[1] ?? '?'}` };
      }
      if (last.role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Level one: get note.txt read' } }] };
      return { text: 'Done at the top.' };
    });
    const r = await stack.herald.conversation('dc-depth').send('go deep', { start: { cwd: ws } });
    assert.equal(r.final_response, 'Done at the top.');
    const { results } = await reportsIn(stack, 'dc-depth');
    assert.equal(results[0]!.summary, 'Level one heard: note.txt: deep note');
    const child = results[0]!.session_id;
    const grandchildren = await stack.db.query<{ id: string }>('SELECT id FROM sessions WHERE parent_id = $1', [child]);
    assert.equal(grandchildren.rows.length, 1);
    const levelOne = stack.fake.requests.filter((q) => briefOf(q)?.includes('Level one'));
    const levelTwo = stack.fake.requests.filter((q) => briefOf(q)?.includes('Level two'));
    assert.ok(levelOne.every((q) => toolNames(q).includes('delegate_task')));
    assert.ok(levelTwo.every((q) => !toolNames(q).includes('delegate_task')));
  });
});

describe('delegation in the background', () => {
  let stack: TestStack;
  let ws: string;
  before(async () => {
    ({ stack, ws } = await openStack('delegation: { mode: background }\n'));
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  /** Background reports come as a user message marked by Herald (the session's nonce, then the prefix). */
  const BACKGROUND = /^\[herald:[0-9a-f]{16}\] \[Background task results\]/;
  const backgroundReports = (m: WireMessage) => m.role === 'user' && BACKGROUND.test(m.content ?? '');

  it('returns at once, then brings the reports back as a new turn', async () => {
    stack.fake.respond((req): ScriptedReply | undefined => {
      const last = lastOf(req);
      if (isChild(req)) {
        if (last.role === 'user') return { toolCalls: [{ name: 'read_file', arguments: { path: 'alpha.txt' } }] };
        return { text: 'alpha.txt says hello.', usage: { prompt: 40, completion: 4 } };
      }
      if (backgroundReports(last)) return { text: 'The background child says alpha says hello.' };
      if (last.role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Read alpha.txt' } }] };
      return { text: 'I have sent a child to read it; I will tell you.' };
    });
    const conv = stack.herald.conversation('db-basic');
    const first = await conv.send('what does alpha.txt say?', { start: { cwd: ws } });
    assert.equal(first.final_response, 'I have sent a child to read it; I will tell you.');
    const dispatched = (await stack.transcript('db-basic')).find((m) => m.role === 'tool')!;
    assert.match(
      dispatched.content!,
      /^Dispatched 1 task\(s\) to child agents running in the background \(db-basic\.d1-2-0\)/,
    );

    // The reports arrive as a second turn, which the model answers.
    const second = await eventually(async () => {
      const s = await conv.state();
      return s.turn === 2 && s.status === 'idle' ? s : undefined;
    });
    assert.equal(second.last_result?.final_response, 'The background child says alpha says hello.');
    assert.deepEqual(second.background_sessions, []);
    const transcript = await stack.transcript('db-basic');
    assert.ok(isValidOrder(transcript));
    const reports = transcript.find((m) => m.role === 'user' && BACKGROUND.test(m.content ?? ''))!;
    assert.match(reports.content!, /1 delegated task\(s\): 1 completed\./);
    assert.match(reports.content!, /"summary": "alpha.txt says hello."/);
    // Child usage joined the parent's session.
    assert.ok(second.usage.total_tokens >= 44);
  });

  it('/stop reaches background children; their reports wait for the next user message', async () => {
    stack.fake.respond((req): ScriptedReply => {
      const last = lastOf(req);
      if (isChild(req)) return { text: 'pondering', hangAfterChunks: 1 };
      if (backgroundReports(last)) return { text: 'The child was stopped before it finished.' };
      if (last.role === 'user' && last.content === 'carry on') return { text: 'Carrying on.' };
      if (last.role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Ponder alpha.txt' } }] };
      return { text: 'Dispatched.' };
    });
    const conv = stack.herald.conversation('db-stop');
    await conv.send('ponder in the background', { start: { cwd: ws } });
    await eventually(() => stack.fake.requests.filter(isChild).length === 1);
    assert.equal((await conv.state()).background_sessions.length, 1);

    await conv.stop();
    const child = stack.fake.requests.find(isChild)!;
    await eventually(() => child.abortedAt !== undefined);
    await eventually(async () => (await conv.state()).background_sessions.length === 0);
    // No turn started on its own after the stop.
    assert.equal((await conv.state()).turn, 1);

    const r = await conv.send('carry on');
    assert.equal(r.final_response, 'Carrying on.');
    const transcript = await stack.transcript('db-stop');
    assert.ok(isValidOrder(transcript));
    const users = transcript.filter((m) => m.role === 'user').map((m) => m.content!.split('\n')[0]);
    assert.equal(users.length, 3);
    assert.equal(users[2], 'carry on');
    assert.match(users[1]!, BACKGROUND);
    const text = transcript.find((m) => m.role === 'user' && BACKGROUND.test(m.content ?? ''))!.content!;
    assert.match(text, /1 delegated task\(s\): 1 interrupted\./);
  });

  it('reports held after /stop survive continue-as-new and come with the next user message', async () => {
    stack.fake.respond((req): ScriptedReply => {
      const last = lastOf(req);
      if (isChild(req)) return { text: 'pondering', hangAfterChunks: 1 };
      if (backgroundReports(last)) return { text: 'The child was stopped before it finished.' };
      if (last.role === 'user' && last.content === 'carry on') return { text: 'Carrying on.' };
      if (last.role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Ponder alpha.txt' } }] };
      return { text: 'Dispatched.' };
    });
    const conv = stack.herald.conversation('db-stop-can');
    await conv.send('ponder in the background', { start: { cwd: ws, continueAsNewAfterTurns: 1 } });
    await eventually(() => stack.fake.requests.filter(isChild).length === 1);
    const firstRun = (await conv.handle.describe()).runId;
    await conv.stop();
    // The children end, their reports are held, and the run continues as new carrying them.
    await eventually(async () => (await conv.handle.describe()).runId !== firstRun);
    const r = await conv.send('carry on');
    assert.equal(r.final_response, 'Carrying on.');
    const users = (await stack.transcript('db-stop-can')).filter((m) => m.role === 'user').map((m) => m.content!);
    assert.equal(users.length, 3);
    assert.match(users[1]!, BACKGROUND);
    assert.match(users[1]!, /1 delegated task\(s\): 1 interrupted\./);
  });

  it('ends with `end`: background children are stopped, not left running', async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (isChild(req)) return { text: 'pondering', hangAfterChunks: 1 };
      if (lastOf(req).role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Ponder forever' } }] };
      return { text: 'Dispatched.' };
    });
    const conv = stack.herald.conversation('db-end');
    await conv.send('ponder', { start: { cwd: ws } });
    await eventually(() => stack.fake.requests.filter(isChild).length === 1);
    const childId = (await conv.state()).background_sessions[0]!;
    await conv.end('done for today');
    await stack.temporal.workflow.getHandle('session-db-end').result();
    const child = await stack.temporal.workflow.getHandle(`session-${childId}`).describe();
    assert.equal(child.status.name, 'COMPLETED');
    assert.ok(isValidOrder(await stack.transcript(childId)));
  });

  it('does not continue-as-new while background children run (it would terminate them)', async () => {
    stack.fake.respond((req): ScriptedReply => {
      const last = lastOf(req);
      if (isChild(req)) return { text: 'slow but sure', delayMs: 1500 };
      if (backgroundReports(last)) return { text: 'Got the slow report.' };
      if (last.role === 'user') return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Be slow' } }] };
      return { text: 'Dispatched.' };
    });
    const conv = stack.herald.conversation('db-can');
    await conv.send('go', { start: { cwd: ws, continueAsNewAfterTurns: 1 } });
    const childId = (await conv.state()).background_sessions[0]!;
    const handle = stack.temporal.workflow.getHandle('session-db-can');
    const firstRun = (await handle.describe()).runId;
    const after = await eventually(async () => {
      const s = await conv.state();
      return s.turn === 2 && s.status === 'idle' ? s : undefined;
    });
    assert.equal(after.last_result?.final_response, 'Got the slow report.');
    const child = await stack.temporal.workflow.getHandle(`session-${childId}`).describe();
    assert.equal(child.status.name, 'COMPLETED');
    // It did continue-as-new afterwards, once no child was running.
    await eventually(async () => (await handle.describe()).runId !== firstRun);
  });
});

describe('delegation under a narrowed network', () => {
  let stack: TestStack;
  let ws: string;
  before(async () => {
    ({ stack, ws } = await openStack('sandbox: { network: all }\n'));
  });
  after(async () => {
    await stack.close();
  });

  it('gives a child the network its parent was narrowed to, not the worker’s wider one', async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (isChild(req)) return { text: 'done' };
      if (lastOf(req).role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Say done' } }] };
      return { text: 'The child is done.' };
    });
    const parent = stack.herald.conversation('dc-narrow');
    await parent.send('go', { start: { cwd: ws, sandbox: { network: 'none' } } });
    assert.equal((await parent.state()).sandbox?.network, 'no network');
    const [report] = (await reportsIn(stack, 'dc-narrow')).results;
    assert.equal(report!.status, 'completed');
    const child = await stack.herald.conversation(report!.session_id).state();
    assert.equal(child.sandbox?.network, 'no network', 'the child keeps its parent’s narrowed network');
  });
});
