/**
 * Tool-loop guardrails and the budget's last call (docs/loop-guard.md), against the fake provider: a small
 * model that repeats itself is nudged, refused and stopped within a bounded number of calls, while
 * running the tests, fixing the code and running them again just works;
 * identical calls of one reply run once; edits going in circles pause the tools; a repeated memory
 * write saves one entry; a tool call
 * written as text after the budget ran out is not shipped as the answer.
 */
import assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { BUDGET_FINAL_NOTE } from '../../common/budget.js';
import { isValidOrder } from '../../shared/role-order.js';
import type { RecordedRequest, ScriptedReply } from '../support/fake-provider.js';
import { BUGGY_APP, TEST_APP } from '../support/retest-project.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

type WireMessage = { role: string; content: string | null; tool_calls?: unknown[] };
const messagesOf = (r: RecordedRequest) => r.body.messages as WireMessage[];
const readSettings: ScriptedReply = { toolCalls: [{ name: 'read_file', arguments: { path: 'settings.ini' } }] };
const runTests: ScriptedReply = { toolCalls: [{ name: 'terminal', arguments: { command: 'python3 test_app.py' } }] };

describe('tool-loop guardrails', () => {
  let stack: TestStack;
  let ws: string;

  before(async () => {
    stack = await createTestStack();
    ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'settings.ini'), '[server]\nport = 8080\n');
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  it('a model repeating read_file is nudged, answered from the earlier result, refused, then the turn ends guardrail_halt', async () => {
    stack.fake.script(Array.from({ length: 10 }, () => readSettings));
    const conv = stack.herald.conversation('lg-repeat');
    const r = await conv.send('read settings.ini and tell me the port', { start: { cwd: ws } });
    assert.equal(r.turn_exit_reason, 'guardrail_halt');
    assert.equal(r.completed, false);
    assert.match(r.final_response!, /not making progress/);
    // Bounded: the halt comes after 7 model calls, not the 10 the model would have made.
    assert.equal(stack.fake.requests.length, 7);
    assert.ok(r.api_calls <= 8);
    // The second call ran and the next request carried the nudge.
    assert.match(messagesOf(stack.fake.requests[2]!).at(-1)!.content!, /LOOP: you called read_file 2 times/);
    const tools = (await stack.transcript('lg-repeat')).filter((m) => m.role === 'tool').map((m) => m.content ?? '');
    assert.equal(tools.length, 7);
    assert.match(tools[0]!, /port = 8080/);
    assert.match(tools[1]!, /port = 8080/);
    assert.match(tools[2]!, /^\[Not run again: read_file/);
    assert.match(tools[3]!, /^\[Not run again: read_file/);
    assert.match(tools[4]!, /^\[Refused: read_file was called 5 times/);
    assert.ok(isValidOrder(await stack.transcript('lg-repeat')));
    const state = await conv.state();
    assert.deepEqual(state.loop_guard, { nudges: 3, refusals: 3, halts: 1 });
    // The Web UI's current details show the counts.
    const meta = await stack.temporal.workflow
      .getHandle(conv.workflowId)
      .query<{ currentDetails: string }>('__temporal_workflow_metadata');
    assert.match(meta.currentDetails, /\*\*Loop guard:\*\* 3 repeated call\(s\) nudged, 3 refused, 1 turn\(s\) halted/);
    const guardEvents = (await stack.events('lg-repeat')).filter(
      (e) => e.kind === 'status' && e.payload.kind === 'loop_guard',
    );
    assert.ok(guardEvents.some((e) => /refused/.test(e.payload.message as string)));
    // The calls that did not run say so on their events (the chat shows ⊘ … not run), never as a result.
    const notRun = (await stack.events('lg-repeat'))
      .filter((e) => e.kind === 'tool.completed')
      .map(
        (e) =>
          `${(e.payload.notRun as string | undefined) ?? 'ran'} ${(e.payload.summary as string | undefined) ?? ''}`,
      );
    assert.deepEqual(notRun.slice(0, 7), [
      'ran ',
      'ran ',
      'repeat read_file: settings.ini',
      'repeat read_file: settings.ini',
      'refused read_file: settings.ini',
      'refused read_file: settings.ini',
      'refused read_file: settings.ini',
    ]);
    assert.ok(guardEvents.some((e) => /no progress/.test(e.payload.message as string)));
    // The conversation goes on: the next turn starts with a fresh guard.
    stack.fake.reset();
    stack.fake.script([readSettings, { text: 'The port is 8080.' }]);
    const next = await conv.send('try once more');
    assert.equal(next.final_response, 'The port is 8080.');
    assert.match(messagesOf(stack.fake.requests.at(-1)!).at(-1)!.content!, /port = 8080/);
  });

  it('run the tests, fix the code, run them again: the second run really runs, its passing output reaches the model, nothing is paused', async () => {
    const dir = join(stack.workspaces, 'retest');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'app.py'), BUGGY_APP);
    // Written a while ago, as a project's code is: Python's bytecode cache keys on the source's
    // mtime in whole seconds and its size, so a same-size fix within the second would run the old code.
    utimesSync(join(dir, 'app.py'), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    writeFileSync(join(dir, 'test_app.py'), TEST_APP);
    stack.fake.script([
      runTests,
      { toolCalls: [{ name: 'patch', arguments: { path: 'app.py', old_string: 'a - b', new_string: 'a + b' } }] },
      runTests,
      { text: 'Fixed: add returned a - b; it returns a + b now and the test passes.' },
    ]);
    const conv = stack.herald.conversation('lg-retest');
    const r = await conv.send('the tests fail: fix it', { start: { cwd: dir } });
    assert.equal(r.turn_exit_reason, 'text_response');
    assert.equal(r.final_response, 'Fixed: add returned a - b; it returns a + b now and the test passes.');
    assert.equal(r.api_calls, 4);
    const tools = (await stack.transcript('lg-retest')).filter((m) => m.role === 'tool').map((m) => m.content ?? '');
    assert.match(tools[0]!, /add\(2, 3\) returned -1/);
    assert.match(tools[0]!, /exit code 1/);
    assert.doesNotMatch(tools[2]!, /Not run|Refused|Duplicate/);
    assert.match(tools[2]!, /all tests passed/);
    assert.doesNotMatch(tools[2]!, /returned -1/);
    // The passing output is what the model read next; no nudge, no pause on the way.
    assert.match(messagesOf(stack.fake.requests[3]!).at(-1)!.content!, /all tests passed/);
    assert.deepEqual(
      stack.fake.requests.map((q) => q.body.tool_choice ?? 'auto'),
      ['auto', 'auto', 'auto', 'auto'],
    );
    assert.ok(stack.fake.requests.every((q) => !JSON.stringify(q.body.messages).includes('[LOOP:')));
    const events = await stack.events('lg-retest');
    assert.equal(events.filter((e) => e.kind === 'tool.started' && e.payload.name === 'terminal').length, 2);
    assert.ok(!events.some((e) => e.kind === 'tool.completed' && e.payload.notRun));
    assert.ok(!events.some((e) => e.kind === 'status' && e.payload.kind === 'loop_guard'));
    assert.deepEqual((await conv.state()).loop_guard, { nudges: 0, refusals: 0, halts: 0 });
  });

  it('the same failing test run again with nothing changed runs again, and counts as a repeat (a nudge, tools stay)', async () => {
    const dir = join(stack.workspaces, 'retest-same');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'app.py'), BUGGY_APP);
    // Written a while ago, as a project's code is: Python's bytecode cache keys on the source's
    // mtime in whole seconds and its size, so a same-size fix within the second would run the old code.
    utimesSync(join(dir, 'app.py'), new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    writeFileSync(join(dir, 'test_app.py'), TEST_APP);
    stack.fake.script([runTests, runTests, { text: 'The test fails: add(2, 3) returns -1.' }]);
    const conv = stack.herald.conversation('lg-retest-same');
    const r = await conv.send('run the tests', { start: { cwd: dir } });
    assert.equal(r.final_response, 'The test fails: add(2, 3) returns -1.');
    const tools = (await stack.transcript('lg-retest-same'))
      .filter((m) => m.role === 'tool')
      .map((m) => m.content ?? '');
    assert.equal(tools.length, 2);
    for (const t of tools) assert.match(t, /add\(2, 3\) returned -1/);
    const events = await stack.events('lg-retest-same');
    assert.equal(events.filter((e) => e.kind === 'tool.started' && e.payload.name === 'terminal').length, 2);
    assert.match(messagesOf(stack.fake.requests[2]!).at(-1)!.content!, /LOOP: you called terminal 2 times/);
    assert.equal(stack.fake.requests[2]!.body.tool_choice ?? 'auto', 'auto');
    assert.deepEqual((await conv.state()).loop_guard, { nudges: 1, refusals: 0, halts: 0 });
  });

  it('once the guard answers a repeat itself, the next request offers no tools and the model answers from what it read', async () => {
    stack.fake.script([readSettings, readSettings, readSettings, { text: 'The port is 8080.' }]);
    const r = await stack.herald.conversation('lg-pause').send('read settings.ini and tell me the port', {
      start: { cwd: ws },
    });
    assert.equal(r.final_response, 'The port is 8080.');
    assert.equal(r.turn_exit_reason, 'text_response');
    assert.equal(r.api_calls, 4);
    // Requests 1–3 offer tools as usual; the one after the answered repeat says no tool will run.
    assert.deepEqual(
      stack.fake.requests.map((q) => q.body.tool_choice ?? 'auto'),
      ['auto', 'auto', 'auto', 'none'],
    );
    assert.match(messagesOf(stack.fake.requests[3]!).at(-1)!.content!, /no tool will run for this reply/);
    // That request shows the reads as one digest after the question, each distinct result once: a
    // small model copies repeated calls in front of it (activities/model/paused-digest.ts).
    const paused = messagesOf(stack.fake.requests[3]!);
    assert.deepEqual(
      paused.map((m) => m.role),
      ['system', 'user'],
    );
    assert.match(
      paused[1]!.content!,
      /^read settings.ini and tell me the port\n\n\[herald:[0-9a-f]{16}\] \[Tools are paused/,
    );
    assert.equal(paused[1]!.content!.split('port = 8080').length - 1, 1);
    const tools = (await stack.transcript('lg-pause')).filter((m) => m.role === 'tool').map((m) => m.content ?? '');
    assert.match(tools[2]!, /^\[Not run again: read_file/);
  });

  it('a tool-less reply that is still a tool call in text is asked once more, then the turn ends guardrail_halt', async () => {
    const asText = { text: '```json\n{"name": "read_file", "arguments": {"path": "settings.ini"}}\n```' };
    stack.fake.script([readSettings, readSettings, readSettings, asText, { text: 'The port is 8080.' }]);
    const r = await stack.herald.conversation('lg-pause-retry').send('read settings.ini and tell me the port', {
      start: { cwd: ws },
    });
    assert.equal(r.final_response, 'The port is 8080.');
    assert.equal(stack.fake.requests[4]!.body.tool_choice, 'none', 'the retry is tool-less too');
    assert.match(messagesOf(stack.fake.requests[4]!).at(-1)!.content!, /read_file call written as text/);
    const transcript = await stack.transcript('lg-pause-retry');
    assert.ok(
      !transcript.some((m) => m.role === 'assistant' && /"name": "read_file"/.test(m.content ?? '')),
      'overwritten',
    );

    stack.fake.reset();
    stack.fake.script([readSettings, readSettings, readSettings, asText, asText]);
    const halted = await stack.herald.conversation('lg-pause-halt').send('read settings.ini and tell me the port', {
      start: { cwd: ws },
    });
    assert.equal(halted.turn_exit_reason, 'guardrail_halt');
    assert.match(halted.final_response!, /kept asking for read_file/);
    assert.equal(halted.api_calls, 5);
    assert.ok(isValidOrder(await stack.transcript('lg-pause-halt')));
  });

  it('edits going round in circles pause the tools, and the model answers', async () => {
    // Qwen2.5-Coder 1.5B, asked only for a value: patch 8080 → 9090, patch back, patch again, … (22 calls).
    writeFileSync(join(ws, 'port.ini'), 'port = 8080\n');
    const patch = (from: string, to: string): ScriptedReply => ({
      toolCalls: [{ name: 'patch', arguments: { path: 'port.ini', old_string: from, new_string: to } }],
    });
    stack.fake.script([
      patch('8080', '9090'),
      patch('9090', '8080'), // a revert: fine
      patch('port = 8080', 'port = 9090'), // the file is as the first edit left it
      { text: 'The port is 9090.' },
    ]);
    const r = await stack.herald.conversation('lg-cycle').send('what is the port in port.ini?', { start: { cwd: ws } });
    assert.equal(r.final_response, 'The port is 9090.');
    assert.equal(r.api_calls, 4);
    assert.deepEqual(
      stack.fake.requests.map((q) => q.body.tool_choice ?? 'auto'),
      ['auto', 'auto', 'auto', 'none'],
    );
    writeFileSync(join(ws, 'port.ini'), 'port = 8080\n');
  });

  it('identical calls in one reply run once', async () => {
    stack.fake.script([
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'settings.ini' } },
          { name: 'read_file', arguments: { path: 'settings.ini' } },
          { name: 'read_file', arguments: { path: 'settings.ini' } },
        ],
      },
      { text: 'port 8080' },
    ]);
    const r = await stack.herald.conversation('lg-dupes').send('read it', { start: { cwd: ws } });
    assert.equal(r.final_response, 'port 8080');
    const tools = (await stack.transcript('lg-dupes')).filter((m) => m.role === 'tool').map((m) => m.content ?? '');
    assert.equal(tools.length, 3);
    assert.match(tools[0]!, /port = 8080/);
    assert.match(tools[1]!, /^\[Duplicate call: read_file/);
    assert.match(tools[2]!, /^\[Duplicate call: read_file/);
    const started = (await stack.events('lg-dupes')).filter((e) => e.kind === 'tool.started');
    assert.equal(started.length, 1);
  });

  it('a repeated memory add writes one entry', async () => {
    const add = (content: string): ScriptedReply => ({
      toolCalls: [{ name: 'memory', arguments: { action: 'add', store: 'memory', content } }],
    });
    stack.fake.script([
      add('settings.ini holds the server port.'),
      add('settings.ini holds the server port.'),
      add('settings.ini  holds the server PORT.'),
      { text: 'saved' },
    ]);
    await stack.herald.conversation('lg-memory').send('remember where the port is', { start: { cwd: ws } });
    const rows = await stack.db.query<{ content: string }>('SELECT content FROM memory_entries');
    assert.deepEqual(
      rows.rows.map((x) => x.content),
      ['settings.ini holds the server port.'],
    );
    await stack.db.query('DELETE FROM memory_entries');
  });

  it('a model sending the same todo list again and again is stopped like any repeat (guardrail_halt)', async () => {
    const todo: ScriptedReply = {
      toolCalls: [
        { name: 'todo', arguments: { todos: [{ id: '1', content: 'remember the port', status: 'pending' }] } },
      ],
    };
    stack.fake.script(Array.from({ length: 20 }, () => todo));
    const conv = stack.herald.conversation('lg-todo');
    const r = await conv.send('remember where the port is', { start: { cwd: ws } });
    assert.equal(r.turn_exit_reason, 'guardrail_halt');
    // Bounded like read_file: not the 20 calls the model would have made (Qwen2.5-Coder made 75).
    assert.ok(stack.fake.requests.length <= 8, `${stack.fake.requests.length} model calls`);
    const tools = (await stack.transcript('lg-todo')).filter((m) => m.role === 'tool').map((m) => m.content ?? '');
    assert.ok(tools.some((t) => /^\[Refused: todo was called/.test(t)));
    assert.ok(isValidOrder(await stack.transcript('lg-todo')));
    const state = await conv.state();
    assert.equal(state.loop_guard.halts, 1);
  });

  it('a memory add with every field filled, "match" empty, saves the entry; a replace that matches nothing points at add', async () => {
    const call = (args: Record<string, unknown>): ScriptedReply => ({
      toolCalls: [{ name: 'memory', arguments: args }],
    });
    const fact = 'The user prefers tabs over spaces.';
    stack.fake.script([
      call({ action: 'replace', store: 'user', content: fact, match: fact }),
      call({ action: 'add', store: 'user', content: fact, match: '' }),
      { text: 'saved' },
    ]);
    await stack.herald.conversation('lg-memory-fields').send('remember that I prefer tabs', { start: { cwd: ws } });
    const tools = (await stack.transcript('lg-memory-fields')).filter((m) => m.role === 'tool');
    assert.match(tools[0]!.content ?? '', /No user entry contains .*use action "add"/);
    const rows = await stack.db.query<{ content: string }>('SELECT content FROM memory_entries');
    assert.deepEqual(
      rows.rows.map((x) => x.content),
      [fact],
    );
    await stack.db.query('DELETE FROM memory_entries');
  });

  it('turned off in the config, repeats run as before', async () => {
    const off = await createTestStack({ configYaml: 'tools: { loopGuard: { enabled: false } }\n' });
    try {
      const dir = join(off.workspaces, 'ws');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'settings.ini'), 'port = 1\n');
      off.fake.script([readSettings, readSettings, readSettings, readSettings, { text: 'done' }]);
      const r = await off.herald.conversation('lg-off').send('read', { start: { cwd: dir } });
      assert.equal(r.final_response, 'done');
      const tools = (await off.transcript('lg-off')).filter((m) => m.role === 'tool');
      assert.ok(tools.every((m) => /port = 1/.test(m.content ?? '')));
    } finally {
      await off.close();
    }
  });
});

describe("the budget's last call", () => {
  let stack: TestStack;
  let ws: string;

  before(async () => {
    stack = await createTestStack();
    ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'a.txt'), 'alpha\n');
  });
  after(async () => {
    await stack.close();
  });

  it('says tools are gone, and a tool call written as text becomes a one-line note', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { text: '```json\n{"name": "read_file", "arguments": {"path": "b.txt"}}\n```' },
    ]);
    const r = await stack.herald.conversation('lg-budget').send('read', { start: { cwd: ws, maxIterations: 1 } });
    assert.equal(r.turn_exit_reason, 'budget_exhausted');
    assert.equal(
      r.final_response,
      'The model tried to call read_file after its budget ran out; no tool ran. Ask again to continue.',
    );
    const last = stack.fake.requests[1]!;
    assert.equal(last.body.tool_choice, 'none');
    assert.ok(messagesOf(last).at(-1)!.content!.includes(BUDGET_FINAL_NOTE));
    assert.match(BUDGET_FINAL_NOTE, /Tools are no longer available/);
  });
});
