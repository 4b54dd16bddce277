/**
 * Child agents under control (docs/delegation.md): `herald children` lists a conversation's child
 * agents with their status; one child stopped hands its partial result back to the parent, marked
 * as such, and the parent's turn goes on; a running child is steered.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { approvalLog } from '../../store/approvals.js';
import { parseDelegationResult } from '../../common/delegation.js';
import { isValidOrder } from '../../shared/role-order.js';
import type { RecordedRequest, ScriptedReply } from '../support/fake-provider.js';
import { runHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: RecordedRequest) => r.body.messages as WireMessage[];
const briefOf = (r: RecordedRequest) =>
  messagesOf(r).find((m) => m.role === 'user' && m.content?.startsWith('YOUR TASK'))?.content;
const lastOf = (r: RecordedRequest) => messagesOf(r).at(-1)!;

describe('child agents under control', () => {
  let stack: TestStack;
  let ws: string;
  before(async () => {
    stack = await createTestStack({ configYaml: 'retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\n' });
    ws = join(stack.workspaces, 'children');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'alpha.txt'), 'alpha says hello\n');
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  it('lists the children; one stopped hands back its partial result, marked, and the parent goes on', async () => {
    stack.fake.respond((req): ScriptedReply => {
      const brief = briefOf(req);
      if (brief?.includes('Slow')) {
        if (lastOf(req).role === 'user')
          return { text: 'Found alpha so far.', toolCalls: [{ name: 'read_file', arguments: { path: 'alpha.txt' } }] };
        return { text: 'still reading', hangAfterChunks: 1 };
      }
      if (brief?.includes('Quick')) return { text: 'Quick task done.' };
      if (lastOf(req).role === 'user')
        return {
          toolCalls: [
            {
              name: 'delegate_task',
              arguments: { tasks: [{ goal: 'Slow: study alpha.txt' }, { goal: 'Quick: say done' }] },
            },
          ],
        };
      const partial = /stopped by a person before it finished/.test(lastOf(req).content ?? '');
      return { text: partial ? 'The slow child was stopped; I go on with its partial result.' : 'All done.' };
    });

    const conv = stack.herald.conversation('ch-stop');
    const pending = conv.send('study the files', { start: { cwd: ws } });
    // The slow child is in its second model call (hung), the quick one has answered.
    await eventually(() => stack.fake.requests.filter((q) => briefOf(q)?.includes('Slow')).length === 2);
    const listed = await eventually(async () => {
      const c = await conv.children();
      return c.length === 2 && c.some((x) => x.status === 'completed') ? c : undefined;
    });
    const slow = listed.find((c) => c.task.startsWith('Slow'))!;
    const quick = listed.find((c) => c.task.startsWith('Quick'))!;
    assert.deepEqual(
      [slow.status, slow.activity, quick.status, quick.exit_reason],
      ['running', 'thinking', 'completed', 'text_response'],
    );
    assert.equal(slow.session_id.startsWith('ch-stop.d1-'), true);
    assert.equal(slow.model_calls, 2);
    assert.equal(quick.model_calls, 1);

    // Not a child of this conversation, or one that has ended: refused, saying why.
    await assert.rejects(conv.stopChild('nobody'), /ch-stop has no child agent nobody/);
    await assert.rejects(conv.stopChild(quick.session_id), /has already ended/);

    // Stopped by the part of its id after the parent's.
    const stopped = await conv.stopChild(slow.session_id.slice('ch-stop.'.length));
    assert.equal(stopped, slow.session_id);
    const r = await pending;
    assert.equal(r.completed, true, r.error);
    assert.equal(r.final_response, 'The slow child was stopped; I go on with its partial result.');

    const transcript = await stack.transcript('ch-stop');
    assert.ok(isValidOrder(transcript));
    const tool = transcript.find((m) => m.role === 'tool' && (m.content ?? '').includes('delegated task(s)'))!;
    assert.match(tool.content!, /^2 delegated task\(s\): 1 stopped, 1 completed\./);
    const reports = parseDelegationResult(tool.content!);
    const slowReport = reports.find((x) => x.session_id === slow.session_id)!;
    assert.equal(slowReport.status, 'stopped');
    assert.equal(slowReport.exit_reason, 'interrupted_during_api_call');
    assert.equal(
      slowReport.summary,
      '[stopped by a person before it finished] Found alpha so far.\n\nTool calls so far: read_file: alpha.txt',
    );
    assert.equal(reports.find((x) => x.session_id === quick.session_id)!.summary, 'Quick task done.');

    // Listed afterwards with how each ended.
    const after = await eventually(async () => {
      const c = await conv.children();
      return c.length === 2 && c.every((x) => x.status !== 'running') ? c : undefined;
    });
    assert.deepEqual(after.map((c) => [c.task.slice(0, 5), c.status]).sort(), [
      ['Quick', 'completed'],
      ['Slow:', 'stopped'],
    ]);

    // The same from the command line.
    const cli = await runHerald(['children', 'ch-stop'], stack.workerEnv());
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /^CHILD\s+STATUS\s+CALLS\s+TOKENS\s+TASK$/m);
    assert.match(cli.stdout, /^d1-\S+\s+stopped\s+2\s+\d+\s+Slow: study alpha\.txt$/m);
    assert.match(cli.stdout, /^d1-\S+\s+completed\s+1\s+\d+\s+Quick: say done$/m);
  });

  it('steers a running child: its next model call reads the text', async () => {
    const gate = join(ws, 'go');
    stack.fake.respond((req): ScriptedReply => {
      if (briefOf(req)) {
        if (lastOf(req).role === 'user')
          return {
            toolCalls: [
              { name: 'terminal', arguments: { command: 'until [ -f go ]; do sleep 0.1; done; echo ready' } },
            ],
          };
        const steered = messagesOf(req).some((m) => (m.content ?? '').includes('Also look at beta.'));
        return { text: steered ? 'Looked at beta too, as asked.' : 'Done without steering.' };
      }
      if (lastOf(req).role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Wait for the go file' } }] };
      return { text: 'The child reported.' };
    });
    const conv = stack.herald.conversation('ch-steer');
    const pending = conv.send('wait for it', { start: { cwd: ws } });
    const child = await eventually(async () => {
      const c = await conv.children();
      return c[0]?.activity === 'running_tools' ? c[0] : undefined;
    });
    const cli = await runHerald(
      ['children', 'ch-steer', '--steer', child.session_id, 'Also look at beta.'],
      stack.workerEnv(),
    );
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, new RegExp(`steered ${child.session_id.replace(/\./g, '\\.')}`));
    writeFileSync(gate, '');
    const r = await pending;
    assert.equal(r.final_response, 'The child reported.');
    const reports = parseDelegationResult(
      (await stack.transcript('ch-steer')).find((m) => m.role === 'tool' && (m.content ?? '').includes('delegated'))!
        .content!,
    );
    assert.deepEqual(
      reports.map((x) => [x.status, x.summary]),
      [['completed', 'Looked at beta too, as asked.']],
    );
  });
});

describe('a child agent that may ask a person (delegation.askPerson)', () => {
  let stack: TestStack;
  let ws: string;
  before(async () => {
    stack = await createTestStack({ configYaml: 'delegation: { askPerson: true }\n' });
    ws = join(stack.workspaces, 'asking');
    mkdirSync(join(ws, 'reports'), { recursive: true });
  });
  after(async () => {
    await stack.close();
  });

  it("waits for the approval, which shows in the parent's state and is answered from the parent", async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (briefOf(req)) {
        if (lastOf(req).role === 'user')
          return { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf reports && echo gone' } }] };
        return { text: `Child: ${(lastOf(req).content ?? '').trim()}` };
      }
      if (lastOf(req).role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Delete the reports folder' } }] };
      return { text: 'The child cleaned up.' };
    });
    const conv = stack.herald.conversation('ch-ask');
    const pending = conv.send('clean up', { start: { cwd: ws } });
    const child = await eventually(async () => {
      const c = await conv.children();
      return c[0]?.pending_approvals.length && c[0].activity === 'awaiting_approval' ? c[0] : undefined;
    });
    assert.equal(child.activity, 'awaiting_approval');
    const request = child.pending_approvals[0]!;
    assert.equal(request.command, 'rm -rf reports && echo gone');

    // `herald state <parent>` shows it (once the child's signal has reached the parent); `herald
    // approve <parent> <request>` answers it.
    await eventually(async () => (await conv.state()).child_approvals?.length);
    const state = await runHerald(['state', 'ch-ask'], stack.workerEnv());
    assert.equal(state.code, 0, state.stderr);
    assert.match(
      state.stdout,
      new RegExp(
        `approval ${request.request_id.replace(/\./g, '\\.')} \\(child agent ${child.session_id.replace(/\./g, '\\.')}, `,
      ),
    );
    const approve = await runHerald(['approve', 'ch-ask', request.request_id, 'once'], stack.workerEnv());
    assert.equal(approve.code, 0, approve.stderr);

    const r = await pending;
    assert.equal(r.final_response, 'The child cleaned up.');
    const reports = parseDelegationResult(
      (await stack.transcript('ch-ask')).find((m) => m.role === 'tool' && (m.content ?? '').includes('delegated'))!
        .content!,
    );
    assert.equal(reports[0]!.status, 'completed');
    assert.match(reports[0]!.summary, /gone/);
  });

  it("lists the child's request in the parent's own state, details and events; the parent's approve runs it", async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (briefOf(req)) {
        if (lastOf(req).role === 'user')
          return { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf reports && echo removed' } }] };
        return { text: `Child: ${(lastOf(req).content ?? '').trim()}` };
      }
      if (lastOf(req).role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Remove the reports folder' } }] };
      return { text: 'Removed by the child.' };
    });
    mkdirSync(join(ws, 'reports'), { recursive: true });
    const conv = stack.herald.conversation('ch-ask-parent');
    const pending = conv.send('remove the reports', { start: { cwd: ws } });
    // The parent workflow's own query carries it, with the child that asks.
    const asked = await eventually(async () => (await conv.state()).child_approvals?.[0]);
    assert.equal(asked.command, 'rm -rf reports && echo removed');
    assert.equal(asked.child.startsWith('ch-ask-parent.d1-'), true);
    assert.equal(asked.request_id.startsWith(`${asked.child}:`), true);
    // The Web UI's details of the parent show it, with the command that answers it.
    const details = await eventually(async () => {
      const meta = await stack.temporal.workflow
        .getHandle(conv.workflowId)
        .query<{ currentDetails: string }>('__temporal_workflow_metadata');
      return meta.currentDetails.includes('Approval needed by child agent') ? meta.currentDetails : undefined;
    });
    assert.match(details, new RegExp(`herald approve ch-ask-parent ${asked.request_id.replace(/\./g, '\\.')} once`));
    // `herald chat` on the parent prompts for it: the request is in the parent's own event stream.
    const event = await eventually(async () =>
      (await stack.events('ch-ask-parent')).find((e) => e.kind === 'approval.requested'),
    );
    assert.deepEqual(
      [event.payload.requestId, event.payload.child, event.payload.command],
      [asked.request_id, asked.child, 'rm -rf reports && echo removed'],
    );

    await conv.approve(asked.request_id, 'once');
    const r = await pending;
    assert.equal(r.final_response, 'Removed by the child.');
    const reports = parseDelegationResult(
      (await stack.transcript('ch-ask-parent')).find(
        (m) => m.role === 'tool' && (m.content ?? '').includes('delegated'),
      )!.content!,
    );
    assert.match(reports[0]!.summary, /removed/);
    // Answered, and the child has ended: the parent lists nothing any more.
    assert.deepEqual((await conv.state()).child_approvals, []);
  });
});

describe("a child's request answered at the parent, with approvals.separateApprover", () => {
  let stack: TestStack;
  let ws: string;
  before(async () => {
    stack = await createTestStack({
      configYaml: 'delegation: { askPerson: true }\napprovals: { separateApprover: true }\n',
    });
    ws = join(stack.workspaces, 'separate');
    mkdirSync(join(ws, 'reports'), { recursive: true });
  });
  after(async () => {
    await stack.close();
  });

  it("refuses the parent's sender, takes another person, and the child's audit row names them", async () => {
    stack.fake.respond((req): ScriptedReply => {
      if (briefOf(req)) {
        if (lastOf(req).role === 'user')
          return { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf reports && echo cleared' } }] };
        return { text: `Child: ${(lastOf(req).content ?? '').trim()}` };
      }
      if (lastOf(req).role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Clear the reports folder' } }] };
      return { text: 'Cleared by the child.' };
    });
    const conv = stack.herald.conversation('ch-separate');
    const pending = conv.send('clear the reports', { start: { cwd: ws } });
    const asked = await eventually(async () => (await conv.state()).child_approvals?.[0]);
    // This process sent the parent's message: the child's request is its, so it may not approve it.
    await assert.rejects(conv.approve(asked.request_id, 'once'), /cannot approve it: another person must/);
    await conv.approve(asked.request_id, 'once', undefined, undefined, { by: 'reviewer@example', via: 'chat' });
    assert.equal((await pending).final_response, 'Cleared by the child.');
    const rows = await approvalLog(stack.db, asked.child);
    assert.deepEqual(
      rows.map((r) => [r.decision, r.approver, r.via]),
      [['once', 'reviewer@example', 'chat']],
    );
  });
});
