/**
 * What the Temporal Web UI and CLI show of a conversation (docs/web-ui.md): search attributes
 * that answer "which conversations need me?" (`HeraldStatus="awaiting_approval"`), the title, the
 * primary model kept apart from the active one, labelled timers, child summaries, readable
 * activity results and heartbeats, current details about the current message; `setModel`
 * switching a conversation's model in place; a failing fallback chain naming every provider.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import type { StartOptions } from '../../client/client.js';
import { NEEDS_PERSON_QUERY } from '../../shared/needs-person.js';
import type { RecordedRequest } from '../support/fake-provider.js';
import type { TestStack } from '../support/stack.js';
import { FAKE_MODEL, createTestStack, eventually } from '../support/stack.js';
import { temporal } from '../support/temporal-cli.js';

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: RecordedRequest) => r.body.messages as WireMessage[];
const decode = (p: Payload | null | undefined): unknown => (p ? defaultPayloadConverter.fromPayload(p) : undefined);

describe('Web UI and CLI view of a conversation', () => {
  let stack: TestStack;
  let ws: string;
  let withBackup: StartOptions;

  before(async () => {
    stack = await createTestStack({
      configYaml: 'retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\n',
    });
    ws = join(stack.workspaces, 'ws');
    mkdirSync(join(ws, 'build1'), { recursive: true });
    withBackup = {
      cwd: ws,
      fallbackProviders: [{ provider: 'custom', model: 'backup-model', baseUrl: stack.fake.url }],
    };
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  /** Search attributes as the server indexed them. */
  const attributes = async (workflowId: string) =>
    (await stack.temporal.workflow.getHandle(workflowId).describe()).searchAttributes as Record<string, unknown[]>;

  it('`temporal workflow list --query HeraldStatus="awaiting_approval"` finds a conversation waiting for an approval', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build1 && echo removed' } }] },
      { text: 'Removed build1.' },
    ]);
    const conv = stack.herald.conversation('w-approval');
    const pending = conv.send('Clean up\nthe build1   folder, please', { start: { cwd: ws } });
    const approval = await eventually(async () => (await conv.state()).pending_approvals[0]);

    const listed = await eventually(async () => {
      const r = await temporal(stack.temporalAddress, [
        'workflow',
        'list',
        '--query',
        'HeraldStatus="awaiting_approval"',
      ]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.includes(conv.workflowId) ? r.stdout : undefined;
    });
    assert.match(listed, /conversation/);
    const sa = await attributes(conv.workflowId);
    assert.deepEqual(sa.HeraldTitle, ['Clean up the build1 folder, please']);
    assert.deepEqual(sa.HeraldPrimaryModel, [FAKE_MODEL]);
    assert.deepEqual(sa.HeraldModel, [FAKE_MODEL]);

    // Current details speak of the message being answered, and of the approval it waits for.
    const handle = stack.temporal.workflow.getHandle(conv.workflowId);
    const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    assert.match(meta.currentDetails, /\*\*Status:\*\* awaiting_approval/);
    assert.match(meta.currentDetails, /\*\*Current message:\*\* Clean up the build1 folder, please/);
    assert.match(meta.currentDetails, /\*\*Approval needed\*\*/);

    await conv.approve(approval.request_id, 'once');
    assert.equal((await pending).final_response, 'Removed build1.');
    // Decided and done: the status moved on, so the query no longer finds it.
    await eventually(async () => (await attributes(conv.workflowId)).HeraldStatus?.[0] === 'idle');
    const after = await temporal(stack.temporalAddress, [
      'workflow',
      'list',
      '--query',
      'HeraldStatus="awaiting_approval"',
    ]);
    assert.ok(!after.stdout.includes(conv.workflowId), after.stdout);
    const idle = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    assert.match(idle.currentDetails, /\*\*Last reply:\*\* Removed build1\./);
    assert.doesNotMatch(idle.currentDetails, /Current message/);

    const history = await handle.fetchHistory();
    // The approval wait and the idle wait are labelled timers.
    const timers = history
      .events!.filter((e) => e.timerStartedEventAttributes)
      .map((e) => decode(e.userMetadata?.summary));
    assert.ok(timers.includes('approval wait: terminal: rm -rf build1 && echo removed (5 minutes)'), String(timers));
    assert.ok(timers.includes('idle until end (30 days)'), String(timers));
    // No activity result is an empty binary/null payload (local activities' results are in their markers).
    const results = history.events!.flatMap((e) =>
      e.activityTaskCompletedEventAttributes
        ? [e.activityTaskCompletedEventAttributes.result?.payloads?.[0]]
        : e.markerRecordedEventAttributes?.markerName === 'core_local_activity'
          ? [e.markerRecordedEventAttributes.details?.result?.payloads?.[0]]
          : [],
    );
    assert.ok(results.length > 3);
    for (const p of results) {
      assert.ok(p, 'a result payload');
      assert.notEqual(Buffer.from(p.metadata!.encoding!).toString(), 'binary/null');
    }
    assert.ok(results.some((p) => JSON.stringify(decode(p)) === '{"ok":true}'));
  });

  it("the needs-you query finds a conversation waiting on a question, and its details show the question's choices", async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'clarify', arguments: { question: 'Which database?', choices: ['postgres', 'sqlite'] } }] },
      { text: 'Using sqlite.' },
    ]);
    const conv = stack.herald.conversation('w-clarify');
    const pending = conv.send('Set up the database', { start: { cwd: ws } });
    await eventually(async () => (await conv.state()).clarify ?? undefined);
    // The same query `herald dev` and `herald sessions` put in their Web UI link.
    await eventually(async () => {
      const r = await temporal(stack.temporalAddress, ['workflow', 'list', '--query', NEEDS_PERSON_QUERY]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.includes(conv.workflowId) || undefined;
    });
    const handle = stack.temporal.workflow.getHandle(conv.workflowId);
    const meta = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    assert.match(meta.currentDetails, /\*\*Question for the user:\*\* Which database\?/);
    assert.match(meta.currentDetails, /\*\*Choices:\*\* 1\) postgres · 2\) sqlite/);
    await conv.answer('sqlite');
    assert.equal((await pending).final_response, 'Using sqlite.');
    await eventually(async () => (await attributes(conv.workflowId)).HeraldStatus?.[0] === 'idle');
    const after = await temporal(stack.temporalAddress, ['workflow', 'list', '--query', NEEDS_PERSON_QUERY]);
    assert.ok(!after.stdout.includes(conv.workflowId), after.stdout);
  });

  it("a running tool's heartbeat shows its command, elapsed time and output tail", async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo warming up; sleep 8; echo done' } }] },
      { text: 'Done.' },
    ]);
    const conv = stack.herald.conversation('w-heartbeat');
    const pending = conv.send('run it', { start: { cwd: ws } });
    const details = await eventually(async () => {
      const d = await stack.temporal.workflow.getHandle(conv.workflowId).describe();
      const beat = d.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0];
      const v = decode(beat) as { outputTail?: string } | undefined;
      return v?.outputTail ? v : undefined;
    });
    assert.deepEqual(
      { ...details, elapsedSeconds: typeof (details as { elapsedSeconds?: unknown }).elapsedSeconds },
      {
        tool: 'terminal',
        command: 'terminal: echo warming up; sleep 8; echo done',
        elapsedSeconds: 'number',
        outputTail: 'warming up\n',
      },
    );
    await conv.stop();
    await pending;
  });

  it('a fallback changes HeraldModel, never HeraldPrimaryModel', async () => {
    stack.fake.script([{ status: 500 }, { status: 500 }, { status: 500 }], FAKE_MODEL);
    stack.fake.script([{ text: 'answered by the backup' }], 'backup-model');
    const conv = stack.herald.conversation('w-fallback');
    const r = await conv.send('hello', { start: withBackup });
    assert.equal(r.model, 'backup-model');
    const sa = await eventually(async () => {
      const a = await attributes(conv.workflowId);
      return a.HeraldStatus?.[0] === 'idle' ? a : undefined;
    });
    assert.deepEqual(sa.HeraldModel, ['backup-model']);
    assert.deepEqual(sa.HeraldPrimaryModel, [FAKE_MODEL]);
  });

  it("a fallback chain that fails names every provider's error, the primary's first; HeraldStatus says failed", async () => {
    stack.fake.script([{ status: 401, error: { message: 'Incorrect API key provided: primary' } }], FAKE_MODEL);
    stack.fake.script([{ status: 404, error: { message: 'The model backup-model does not exist' } }], 'backup-model');
    const conv = stack.herald.conversation('w-chain');
    const r = await conv.send('hello', { start: withBackup });
    assert.equal(r.failed, true);
    assert.match(
      r.error ?? '',
      /^every provider failed \(2\): 1\. custom\/fake-model \(primary\): auth: .*Incorrect API key provided: primary.*; 2\. custom\/backup-model: model_not_found: .*does not exist.*$/,
    );
    assert.ok((r.error ?? '').length < 2_000);
    await eventually(async () => (await attributes(conv.workflowId)).HeraldStatus?.[0] === 'failed');
  });

  it('setModel switches the model in place for the next turn, and refuses what the worker cannot serve', async () => {
    stack.fake.script([{ text: 'first, on the fake model' }]);
    const conv = stack.herald.conversation('w-model');
    await conv.send('hello', { start: { cwd: ws } });
    const switched = await conv.setModel({ model: 'other-model' });
    assert.deepEqual(switched, {
      provider: 'custom',
      model: 'other-model',
      api_mode: 'chat_completions',
      applies: 'now',
      previous: { provider: 'custom', model: FAKE_MODEL },
    });
    assert.equal((await conv.state()).model, 'other-model');
    stack.fake.script([{ text: 'second, on the other model' }], 'other-model');
    const r = await conv.send('and now?');
    assert.equal(r.final_response, 'second, on the other model');
    assert.equal(r.model, 'other-model');
    // The same session: the new model sees the whole conversation.
    assert.equal(r.session_id, 'w-model');
    const last = stack.fake.requests.at(-1)!;
    assert.equal(last.body.model, 'other-model');
    assert.ok(messagesOf(last).some((m) => m.content === 'first, on the fake model'));
    await eventually(async () => (await attributes(conv.workflowId)).HeraldPrimaryModel?.[0] === 'other-model');

    await assert.rejects(conv.setModel({ model: 'claude-x', provider: 'anthropic' }), /no API key.*ANTHROPIC_API_KEY/);
    await assert.rejects(
      conv.setModel({ model: 'm', provider: 'nosuch' as never }),
      /invalid setModel: provider: Invalid option/,
    );
    await assert.rejects(conv.setModel({ model: '' }), /invalid setModel/);
    assert.equal((await conv.state()).model, 'other-model');
  });

  it("a child agent's summary in the Web UI is its goal", async () => {
    stack.fake.respond((req) => {
      const messages = messagesOf(req);
      if (messages.some((m) => m.role === 'user' && m.content?.startsWith('YOUR TASK'))) return { text: 'child done' };
      if (messages.at(-1)!.role === 'user')
        return { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Count the files in the workspace' } }] };
      return { text: 'The child reported.' };
    });
    const conv = stack.herald.conversation('w-child');
    assert.equal((await conv.send('delegate it', { start: { cwd: ws } })).final_response, 'The child reported.');
    const history = await stack.temporal.workflow.getHandle(conv.workflowId).fetchHistory();
    const started = history.events!.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)!;
    const childId = started.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!;
    const child: WorkflowHandle = stack.temporal.workflow.getHandle(childId);
    const d = await child.describe();
    assert.equal(await d.staticSummary(), 'delegated: Count the files in the workspace');
    assert.match((await d.staticDetails()) ?? '', /\*\*Goal:\*\* Count the files in the workspace/);
    assert.deepEqual((await attributes(childId)).HeraldTitle, ['Count the files in the workspace']);
  });
});
