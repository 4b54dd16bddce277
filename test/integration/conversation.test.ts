/**
 * A multi-turn conversation with tool calls on the real stack: Temporal dev server, Postgres,
 * worker, and the fake provider over HTTP through the real openai client.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { isValidOrder } from '../../shared/role-order.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

describe('conversation', () => {
  let stack: TestStack;
  before(async () => {
    stack = await createTestStack();
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  it('runs several turns with tool calls and keeps the transcript in Postgres', async () => {
    const workspace = join(stack.workspaces, 'ws');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    stack.fake.script([
      { text: 'Reading.', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt', offset: 2 } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo from-shell && exit 3' } }] },
      { text: 'notes.txt starts at beta; the shell exited 3.' },
      { text: 'Second answer.' },
    ]);
    const conv = stack.herald.conversation('multi-turn');
    const first = await conv.send('What is in notes.txt?', { id: 'm1', start: { cwd: workspace } });
    assert.equal(first.final_response, 'notes.txt starts at beta; the shell exited 3.');
    assert.equal(first.completed, true);
    assert.equal(first.failed, false);
    assert.equal(first.api_calls, 3);
    assert.equal(first.turn_exit_reason, 'text_response');
    assert.equal(first.session_id, 'multi-turn');
    assert.equal(first.message_id, 'm1');
    assert.equal(first.usage.turn.input_tokens, 300);

    const second = await conv.send('And now?', { id: 'm2' });
    assert.equal(second.final_response, 'Second answer.');
    assert.equal(second.turn, 2);
    assert.equal(second.usage.session.input_tokens, 400);

    const transcript = await stack.transcript('multi-turn');
    assert.deepEqual(
      transcript.map((m) => `${m.seq}:${m.role}`),
      ['0:user', '1:assistant', '2:tool', '3:assistant', '4:tool', '5:assistant', '6:user', '7:assistant'],
    );
    assert.ok(isValidOrder(transcript));
    assert.match(transcript[2]!.content!, /2\tbeta\n3\tgamma/);
    assert.match(transcript[4]!.content!, /from-shell\n\[exit code 3/);

    // What reached the model: the system prompt, then the tool results in order.
    const third = stack.fake.requests[2]!.body as {
      messages: Array<{ role: string; content: string; tool_call_id?: string }>;
      tools: unknown[];
    };
    assert.equal(third.messages[0]!.role, 'system');
    assert.deepEqual(
      third.messages.map((m) => m.role),
      ['system', 'user', 'assistant', 'tool', 'assistant', 'tool'],
    );
    assert.match(third.messages[5]!.content, /from-shell/);
    assert.equal(third.tools.length, 12); // every built-in tool
    // The system prompt is byte-identical on every call of the session.
    const prompts = new Set(stack.fake.requests.map((r) => JSON.stringify((r.body.messages as unknown[])[0])));
    assert.equal(prompts.size, 1);

    const state = await conv.state();
    assert.equal(state.status, 'idle');
    assert.equal(state.turn, 2);
    assert.equal(state.model, 'fake-model');
    assert.equal(state.provider, 'custom');
    assert.equal(state.last_result?.final_response, 'Second answer.');
    assert.equal(state.usage.input_tokens, 400);

    const kinds = (await stack.events('multi-turn')).map((e) => e.kind);
    for (const k of [
      'turn.started',
      'step',
      'thinking',
      'text.delta',
      'tool.generating',
      'tool.started',
      'tool.completed',
      'turn.ended',
    ]) {
      assert.ok(kinds.includes(k as never), `missing event ${k}`);
    }
    stack.fake.assertDone();
  });

  it('refuses file paths outside the workspace and reports it to the model', async () => {
    const workspace = join(stack.workspaces, 'ws2');
    mkdirSync(workspace, { recursive: true });
    stack.fake.script([
      { toolCalls: [{ name: 'read_file', arguments: { path: '../../etc/passwd' } }] },
      { text: 'Not allowed.' },
    ]);
    const r = await stack.herald.conversation('escape').send('read /etc/passwd', { start: { cwd: workspace } });
    assert.equal(r.final_response, 'Not allowed.');
    const transcript = await stack.transcript('escape');
    assert.match(transcript[2]!.content!, /outside the workspace/);
    stack.fake.assertDone();
  });

  it('answers an unknown tool name with the list of tools and a suggestion', async () => {
    stack.fake.script([{ toolCalls: [{ name: 'read_fil', arguments: { path: 'x' } }] }, { text: 'ok' }]);
    const r = await stack.herald.conversation('unknown-tool').send('go', { start: {} });
    assert.equal(r.final_response, 'ok');
    const transcript = await stack.transcript('unknown-tool');
    assert.match(transcript[2]!.content!, /Tool 'read_fil' does not exist\. Did you mean 'read_file'\?/);
    stack.fake.assertDone();
  });

  it('repairs a tool name that differs only in spelling style or leaked markup, as Hermes does', async () => {
    stack.fake.script([
      {
        toolCalls: [
          { name: 'readFile', arguments: { path: 'x' } },
          { name: 'read_file" parameter="path"', arguments: { path: 'y' } },
        ],
      },
      { text: 'ok' },
    ]);
    const r = await stack.herald.conversation('repaired-tool').send('go', { start: {} });
    assert.equal(r.final_response, 'ok');
    const transcript = await stack.transcript('repaired-tool');
    assert.deepEqual(
      transcript[1]!.tool_calls!.map((c) => c.function.name),
      ['read_file', 'read_file'],
      'the stored calls carry the real tool name',
    );
    assert.match(transcript[2]!.content!, /x/);
    assert.doesNotMatch(transcript[2]!.content!, /does not exist/);
    stack.fake.assertDone();
  });
});
