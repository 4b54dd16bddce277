/**
 * The approval trail (docs/human-control.md): the audit names who answered, from where, why a deny
 * was given, and whose message asked; the requester cannot approve its own request when the policy
 * says so; and a run of denials ends the turn.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { after, before, beforeEach, describe, it } from 'node:test';
import { approvalLog } from '../../store/approvals.js';
import { renderApprovalLog } from '../../client/commands/approvals.js';
import { clientIdentity } from '../../client/identity.js';
import { breakerNote } from '../../common/approval-policy.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

describe('approvals with a trail', () => {
  let stack: TestStack;
  let ws: string;
  before(async () => {
    stack = await createTestStack({
      configYaml: 'approvals: { maxDenialsInARow: 2, separateApprover: true }\n',
    });
    ws = join(stack.workspaces, 'trail');
    mkdirSync(ws, { recursive: true });
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  const requested = async (session: string, n = 1) =>
    await eventually(async () => (await stack.events(session)).filter((e) => e.kind === 'approval.requested')[n - 1]);

  it('names the approver, and refuses the requester approving its own request', async () => {
    mkdirSync(join(ws, 'victim'), { recursive: true });
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf victim && echo removed' } }] },
      { text: 'Removed.' },
    ]);
    const conv = stack.herald.conversation('t-approver');
    const pending = conv.send('clean the build', { start: { cwd: ws } });
    const ev = await requested('t-approver');
    const id = ev.payload.requestId as string;
    // This process sent the message: its own identity may not approve it, nor may nobody.
    await assert.rejects(conv.approve(id, 'once'), /cannot approve it: another person must/);
    await conv.approve(id, 'once', undefined, undefined, { by: 'reviewer@example', via: 'web' });
    assert.equal((await pending).final_response, 'Removed.');
    const rows = await approvalLog(stack.db, 't-approver');
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.decision, 'once');
    assert.equal(rows[0]!.approver, 'reviewer@example');
    assert.equal(rows[0]!.via, 'web');
    assert.equal(rows[0]!.requester, clientIdentity());
    assert.ok(rows[0]!.decidedAt);
    // Coloured where the terminal (or a CI variable) asks for colour: the words are what is checked.
    assert.match(
      stripVTControlCharacters(renderApprovalLog(rows)),
      /once by reviewer@example via web {2}t-approver asked by /,
    );
  });

  it('ends the turn after two denials in a row, the reason kept for the model and the audit', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf one' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf two' } }] },
    ]);
    const conv = stack.herald.conversation('t-breaker');
    const pending = conv.send('clean everything', { start: { cwd: ws } });
    const first = await requested('t-breaker', 1);
    await conv.approve(first.payload.requestId as string, 'deny', undefined, 'keep one', { by: 'reviewer@example' });
    const second = await requested('t-breaker', 2);
    await conv.approve(second.payload.requestId as string, 'deny', undefined, undefined, { by: 'reviewer@example' });
    const r = await pending;
    assert.equal(r.turn_exit_reason, 'approvals_denied');
    assert.equal(r.final_response, breakerNote(2));
    assert.equal(stack.fake.requests.length, 2, 'the model is not asked again after the second denial');
    stack.fake.assertDone();
    // The model read the first denial's reason in the tool result.
    const second_request = stack.fake.requests[1]!.body.messages as Array<{ role: string; content: string }>;
    assert.ok(second_request.some((m) => m.role === 'tool' && m.content.includes("The user's reason: keep one")));
    const rows = await approvalLog(stack.db, 't-breaker');
    assert.deepEqual(rows.map((x) => [x.command, x.decision, x.approver, x.denyReason]).reverse(), [
      ['rm -rf one', 'deny', 'reviewer@example', 'keep one'],
      ['rm -rf two', 'deny', 'reviewer@example', null],
    ]);
    // The conversation goes on: the next message is a new turn.
    stack.fake.reset().script([{ text: 'understood' }]);
    assert.equal((await conv.send('never mind')).final_response, 'understood');
  });
});
