/** Scenarios of the loop guard: repeats nudged, answered, refused and halted; the tool-less pause; edit cycles. */
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestStack } from '../../test/support/stack.js';
import type { Scenario } from './support.js';
import { endConversation, expect, save } from './support.js';

export const loopGuardScenarios: readonly Scenario[] = [
  {
    name: 'loop-guard',
    stack: 'short-retries',
    proves: {
      'loop-guard':
        'the loop guard: a duplicate in one reply, repeats nudged, answered, refused, guardrail_halt; todo repeats; a fixed test run again',
      'budget-last-call': "the budget's last call answered with a tool call written as text becomes a note",
    },
    record: (on) => recordLoopGuard(on!.stack, on!.ws),
  },
  {
    name: 'loop-guard-pause',
    stack: 'short-retries',
    proves: {
      'loop-guard-pause':
        'after the guard answers a repeat the next request has no tools; a call written as text asked once more, then halted',
    },
    record: (on) => recordLoopGuardPause(on!.stack, on!.ws),
  },
  {
    name: 'loop-guard-edit-cycle',
    stack: 'short-retries',
    proves: { 'loop-guard-edit-cycle': 'edits that put a file back the way an earlier edit left it pause the tools' },
    record: (on) => recordLoopGuardEditCycle(on!.stack, on!.ws),
  },
];

/**
 * Tool-loop guardrails: a reply with a duplicate call, then the same read_file again and again
 * (nudge, answers from the earlier result, refusals, guardrail_halt); a repeated memory add; the
 * same todo list again and again; a failing test run, fixed and run again (twice). And
 * the budget's last call answered with a tool call written as text (budget-last-call).
 */
async function recordLoopGuard(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const read = { name: 'read_file', arguments: { path: 'a.txt' } };
  const conv = stack.herald.conversation('replay-loop-guard');
  stack.fake.script([{ toolCalls: [read, read] }, ...Array.from({ length: 6 }, () => ({ toolCalls: [read] }))]);
  const r = await conv.send('read a.txt', { id: 'lg1', start: { cwd: ws } });
  expect(r.turn_exit_reason === 'guardrail_halt', 'the loop guard ended the turn');
  stack.fake.assertDone();
  const add = { name: 'memory', arguments: { action: 'add', store: 'memory', content: 'a.txt holds A.' } };
  stack.fake.script([{ toolCalls: [add] }, { toolCalls: [add] }, { text: 'saved' }]);
  const r2 = await conv.send('remember it', { id: 'lg2' });
  expect(r2.final_response === 'saved', 'the second turn answered');
  stack.fake.assertDone();
  await stack.db.query('DELETE FROM memory_entries');
  // The same todo list again and again (patch loop-guard-todo: the guard counts todo calls too).
  const todo = { name: 'todo', arguments: { todos: [{ id: '1', content: 'read a.txt', status: 'pending' }] } };
  stack.fake.script(Array.from({ length: 12 }, () => ({ toolCalls: [todo] })));
  const rTodo = await conv.send('plan it', { id: 'lg3' });
  expect(rTodo.turn_exit_reason === 'guardrail_halt', 'the loop guard ended the todo loop');
  stack.fake.reset();
  // Run the tests, fix the code, run them again (the edit moves the workspace version: a first call),
  // and once more with nothing changed (it runs, nudged: a command is never answered from a result).
  writeFileSync(join(ws, 'app.py'), 'def add(a, b):\n    return a - b\n');
  // Dated an hour back, as a project's code is: Python's bytecode cache keys on the source's mtime in
  // whole seconds and its size, and the fix (same size) lands within the same second otherwise.
  const hourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(join(ws, 'app.py'), hourAgo, hourAgo);
  writeFileSync(
    join(ws, 'test_app.py'),
    'from app import add\nassert add(2, 3) == 5, add(2, 3)\nprint("all tests passed")\n',
  );
  const test = { name: 'terminal', arguments: { command: 'python3 test_app.py' } };
  const fix = { name: 'patch', arguments: { path: 'app.py', old_string: 'a - b', new_string: 'a + b' } };
  stack.fake.script([
    { toolCalls: [test] },
    { toolCalls: [fix] },
    { toolCalls: [test] },
    { toolCalls: [test] },
    { text: 'fixed' },
  ]);
  const rTest = await conv.send('fix the test', { id: 'lg4' });
  expect(rTest.final_response === 'fixed', 'the re-test turn answered');
  expect(
    JSON.stringify(stack.fake.requests[3]?.body.messages ?? []).includes('all tests passed'),
    'the test ran again after the fix',
  );
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'loop-guard', conv.workflowId);

  stack.fake.reset();
  const last = stack.herald.conversation('replay-budget-last-call');
  stack.fake.script([
    { toolCalls: [read] },
    { text: '<tool_call>\n{"name": "read_file", "arguments": {"path": "b.txt"}}\n</tool_call>' },
  ]);
  const r3 = await last.send('read', { id: 'blc1', start: { cwd: ws, maxIterations: 1 } });
  expect(
    r3.final_response?.startsWith('The model tried to call read_file') === true,
    'the text tool call became a note',
  );
  stack.fake.assertDone();
  await endConversation(stack, last.workflowId);
  await save(stack.temporal, 'budget-last-call', last.workflowId);
}

/** The loop guard answers a repeated read itself; the next request goes out without tools. */
async function recordLoopGuardPause(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  const read = { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] };
  const conv = stack.herald.conversation('replay-loop-guard-pause');
  stack.fake.script([read, read, read, { text: 'a.txt holds A.' }]);
  const r = await conv.send('read a.txt', { id: 'lgp1', start: { cwd: ws } });
  expect(r.final_response === 'a.txt holds A.', 'the paused request was answered');
  expect(stack.fake.requests[3]?.body.tool_choice === 'none', 'the fourth request offered no tools');
  stack.fake.assertDone();
  // Patch loop-guard-pause-retry: the paused reply is the call again, as text: asked once more, then
  // (the second turn) halted when the retry's reply is the call again too.
  const asText = { text: '```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```' };
  stack.fake.script([read, read, read, asText, { text: 'a.txt holds A.' }]);
  const r2 = await conv.send('read a.txt again', { id: 'lgp2' });
  expect(r2.final_response === 'a.txt holds A.', 'the retry was answered');
  stack.fake.assertDone();
  stack.fake.script([read, read, read, asText, asText]);
  const r3 = await conv.send('and once more', { id: 'lgp3' });
  expect(r3.turn_exit_reason === 'guardrail_halt', 'the second text call halted the turn');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'loop-guard-pause', conv.workflowId);
}

/** Patch loop-guard-edit-cycle: edits that put a file back the way an earlier edit left it pause the tools. */
async function recordLoopGuardEditCycle(stack: TestStack, ws: string): Promise<void> {
  stack.fake.reset();
  writeFileSync(join(ws, 'port.ini'), 'port = 8080\n');
  const patch = (from: string, to: string) => ({
    toolCalls: [{ name: 'patch', arguments: { path: 'port.ini', old_string: from, new_string: to } }],
  });
  const conv = stack.herald.conversation('replay-loop-guard-edit-cycle');
  stack.fake.script([
    patch('8080', '9090'),
    patch('9090', '8080'),
    patch('port = 8080', 'port = 9090'),
    { text: '9090' },
  ]);
  const r = await conv.send('what is the port?', { id: 'lgc1', start: { cwd: ws } });
  expect(r.final_response === '9090', 'the paused request was answered');
  expect(stack.fake.requests[3]?.body.tool_choice === 'none', 'the fourth request offered no tools');
  stack.fake.assertDone();
  await endConversation(stack, conv.workflowId);
  await save(stack.temporal, 'loop-guard-edit-cycle', conv.workflowId);
}
