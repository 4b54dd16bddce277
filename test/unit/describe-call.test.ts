/**
 * The record the workflow gets for each tool call (activities/model/describe-call.ts): its kind
 * names the turn's handler — the workflow answers `todo`, `clarify` and `delegate_task` itself,
 * every other call runs its tool activity, and arguments that fail make it `invalid`, whatever the tool.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadCommandSafety } from '../../command-safety/classify.js';
import { describeCall } from '../../activities/model/describe-call.js';
import { builtinTools } from '../../activities/tools/builtin.js';
import { configFileSchema } from '../../shared/config-schema.js';
import { approvalOf } from '../../common/tool-batch.js';

const registry = builtinTools(configFileSchema.parse({}));
const enabled = registry.enabled();
const describeOne = (name: string, args: unknown) =>
  describeCall(registry, enabled, {
    id: 'c1',
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  });

describe('describeCall', () => {
  before(async () => {
    await loadCommandSafety();
  });

  it('names the handler of each call by its kind, with what that handler needs', () => {
    const todo = describeOne('todo', { todos: [{ id: '1', content: 'x', status: 'pending' }], merge: true });
    assert.equal(todo.kind, 'todo');
    assert.equal(todo.kind === 'todo' && todo.todo.merge, true);
    const clarify = describeOne('clarify', { question: 'Which?', choices: ['a', 'b'] });
    assert.deepEqual(clarify.kind === 'clarify' && clarify.clarify, { question: 'Which?', choices: ['a', 'b'] });
    const delegate = describeOne('delegate_task', { goal: 'g' });
    assert.deepEqual(delegate.kind === 'delegate' && delegate.delegate, { tasks: [{ goal: 'g' }] });
    const read = describeOne('read_file', { path: 'a.txt' });
    assert.equal(read.kind, 'activity');
    assert.deepEqual(read.paths, ['a.txt']);
  });

  it('carries the command check of a terminal call, and none for other tools', () => {
    assert.equal(approvalOf(describeOne('terminal', { command: 'rm -rf /' }))?.level, 'hardline');
    assert.equal(approvalOf(describeOne('terminal', { command: 'ls' })), undefined);
    assert.equal(approvalOf(describeOne('read_file', { path: 'a.txt' })), undefined);
  });

  it('makes a call that cannot run invalid, whatever its tool, and says why', () => {
    const badTodo = describeOne('todo', { merge: 'yes' });
    assert.equal(badTodo.kind === 'invalid' && badTodo.problem, 'invalid_arguments');
    const broken = describeOne('clarify', '{"question": ');
    assert.equal(broken.kind === 'invalid' && broken.problem, 'invalid_json');
    const unknown = describeOne('read_fil', { path: 'a.txt' });
    assert.equal(unknown.kind === 'invalid' && unknown.problem, 'unknown_tool');
    assert.match(unknown.kind === 'invalid' ? unknown.argsError : '', /Did you mean 'read_file'/);
  });
});
