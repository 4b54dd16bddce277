import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configFileSchema } from '../../shared/config-schema.js';
import type { TurnResult } from '../../common/contract.js';
import {
  partialProgress,
  DEFAULT_DELEGATION,
  childReport,
  childSessionId,
  childTools,
  delegationResult,
  parseDelegationResult,
  subagentBrief,
  titleText,
} from '../../common/delegation.js';
import { emptyUsage } from '../../common/messages.js';
import { builtinTools } from '../../activities/tools/builtin.js';
import { parseToolArgs } from '../../activities/tools/registry.js';

const PARENT_TOOLS = ['read_file', 'terminal', 'memory', 'clarify', 'delegate_task', 'todo'];

function result(over: Partial<TurnResult>): TurnResult {
  return {
    final_response: 'done',
    last_reasoning: null,
    messages_count: 4,
    api_calls: 2,
    completed: true,
    interrupted: false,
    failed: false,
    partial: false,
    turn_exit_reason: 'text_response',
    model: 'm',
    provider: 'custom',
    usage: { turn: emptyUsage(), session: { ...emptyUsage(), input_tokens: 30, output_tokens: 5, total_tokens: 35 } },
    estimated_cost_usd: 0,
    session_id: 'c',
    turn: 1,
    message_id: 'm',
    ...over,
  };
}

describe('childTools', () => {
  it('takes away clarify, memory and (at the depth limit) delegate_task', () => {
    assert.deepEqual(childTools(PARENT_TOOLS, 1, 1), ['read_file', 'terminal', 'todo']);
  });
  it('keeps delegate_task while the child may still delegate', () => {
    assert.deepEqual(childTools(PARENT_TOOLS, 1, 2), ['read_file', 'terminal', 'delegate_task', 'todo']);
  });
  it('narrows to the tools a task asks for, never widening beyond the parent', () => {
    assert.deepEqual(childTools(PARENT_TOOLS, 1, 1, ['read_file', 'memory', 'write_file']), ['read_file']);
  });
});

describe('childReport', () => {
  const report = (r: TurnResult | null, ending?: 'stopped' | 'timed_out') => childReport(0, 's', r, 1234, ending, 10);
  it('names the status from how the child ended', () => {
    assert.equal(report(result({})).status, 'completed');
    assert.equal(report(result({ completed: false, interrupted: true }), 'stopped').status, 'interrupted');
    assert.equal(report(result({ completed: false, failed: true })).status, 'failed');
    assert.equal(report(result({ completed: false, interrupted: true }), 'timed_out').status, 'timeout');
    assert.equal(report(null, 'stopped').status, 'interrupted');
    // Interrupted while the parent still waited: someone stopped this one child.
    assert.equal(report(result({ completed: false, interrupted: true })).status, 'stopped');
    assert.equal(report(null).status, 'stopped');
  });
  it('marks what a stopped child had so far as partial, saying who stopped it', () => {
    const partial = (ending?: 'stopped' | 'timed_out', stop_kind?: 'user' | 'deadline') =>
      childReport(
        0,
        's',
        result({
          completed: false,
          interrupted: true,
          final_response: 'Found alpha.',
          ...(stop_kind ? { stop_kind } : {}),
        }),
        0,
        ending,
        100,
      );
    assert.equal(partial(undefined, 'user').summary, '[stopped by a person before it finished] Found alpha.');
    assert.equal(partial(undefined, 'deadline').summary, '[stopped (deadline) before it finished] Found alpha.');
    assert.equal(partial('stopped').summary, '[stopped with the delegating agent before it finished] Found alpha.');
    assert.equal(partial('timed_out').summary, '[stopped when its time ran out before it finished] Found alpha.');
    assert.equal(report(null).summary, '[stopped by a person before it started its task]');
  });
  it('a partial report is the last text and the newest tool calls', () => {
    assert.equal(
      partialProgress(' Found alpha. ', ['read_file alpha.txt']),
      'Found alpha.\n\nTool calls so far: read_file alpha.txt',
    );
    assert.equal(partialProgress(undefined, []), '(nothing to report yet)');
  });
  it('reports a child that could not start (or never ended) as an error, with the reason', () => {
    const r = childReport(1, 's', null, 0, 'stopped', 10, 'the child agent could not be started: boom');
    assert.deepEqual(
      [r.status, r.exit_reason, r.error, r.summary, r.api_calls],
      ['error', 'internal_error', 'the child agent could not be started: boom', '', 0],
    );
  });
  it('caps the summary and says where the rest is', () => {
    const r = report(result({ final_response: 'x'.repeat(25) }));
    assert.equal(r.summary, `${'x'.repeat(10)}\n[… 15 more characters: the full report is in session s]`);
  });
  it('reports tokens, calls and duration', () => {
    const r = report(result({}));
    assert.deepEqual([r.tokens, r.api_calls, r.duration_seconds], [{ input: 30, output: 5, total: 35 }, 2, 1.2]);
  });
});

describe('delegationResult', () => {
  it('starts with an overview line the model can read at a glance', () => {
    const text = delegationResult([
      childReport(0, 'a', result({}), 0, undefined, 100),
      childReport(1, 'b', result({ completed: false, failed: true }), 0, undefined, 100),
    ]);
    assert.match(text, /^2 delegated task\(s\): 1 completed, 1 failed\.\n\{/);
    assert.deepEqual(
      parseDelegationResult(text).map((r) => [r.session_id, r.status]),
      [
        ['a', 'completed'],
        ['b', 'failed'],
      ],
    );
  });
});

describe('childSessionId', () => {
  it('extends the parent id, or falls back when that would be too long', () => {
    assert.equal(
      childSessionId('abc', 3, 7, 1, () => 'u'),
      'abc.d3-7-1',
    );
    assert.equal(
      childSessionId('x'.repeat(125), 3, 7, 1, () => 'u'),
      'sub-u',
    );
  });
});

describe('titleText', () => {
  it('titles a child session by its goal', () => {
    assert.equal(titleText(subagentBrief({ goal: 'Fix the test' })).split('\n')[0], 'Fix the test');
    assert.equal(titleText('Fix the bug in main.js'), 'Fix the bug in main.js');
  });
});

describe('subagentBrief', () => {
  it('gives the task, the context, and what to report', () => {
    const brief = subagentBrief({ goal: ' Fix the test ', context: 'It fails on CI.' });
    assert.match(
      brief,
      /^YOUR TASK:\nFix the test\n\nCONTEXT \(from the agent that delegated this task\):\nIt fails on CI\.\n\n/,
    );
    assert.match(brief, /self-contained report/);
  });
});

describe('delegate_task arguments', () => {
  const tool = builtinTools(configFileSchema.parse({})).get('delegate_task')!;
  it('takes one goal or a list of tasks, not both', () => {
    assert.equal(parseToolArgs(tool, JSON.stringify({ goal: 'g' })).ok, true);
    assert.equal(parseToolArgs(tool, JSON.stringify({ tasks: [{ goal: 'a' }, { goal: 'b' }] })).ok, true);
    const both = parseToolArgs(tool, JSON.stringify({ goal: 'g', tasks: [{ goal: 'a' }] }));
    assert.equal(both.ok, false);
    assert.match((both as { error: string }).error, /either `goal`/);
    const neither = parseToolArgs(tool, '{}');
    assert.equal(neither.ok, false);
  });
  it('refuses more tasks than the configured limit, saying what to do', () => {
    const tasks = Array.from({ length: DEFAULT_DELEGATION.maxConcurrentChildren + 1 }, (_, i) => ({ goal: `t${i}` }));
    const r = parseToolArgs(tool, JSON.stringify({ tasks }));
    assert.equal(r.ok, false);
    assert.match((r as { error: string }).error, /at most 3 tasks per call; run the rest in a later call/);
  });
});
