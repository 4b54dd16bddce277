/** "Did you mean" matching for tool names a model got slightly wrong. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestKey, closestName, levenshtein, normaliseToolName, repairToolName } from '../../shared/fuzzy.js';
import { repairedToolNames } from '../../activities/model/describe-call.js';

const TOOLS = ['read_file', 'terminal'];

describe('closestName', () => {
  it('matches spelling variants of the same name', () => {
    assert.equal(closestName('readFile', TOOLS), 'read_file');
    assert.equal(closestName('ReadFileTool', TOOLS), 'read_file');
    assert.equal(closestName('read-file', TOOLS), 'read_file');
    assert.equal(closestName('"Terminal"', TOOLS), 'terminal');
  });

  it('matches small typos', () => {
    assert.equal(closestName('terminl', TOOLS), 'terminal');
    assert.equal(closestName('readfile', TOOLS), 'read_file');
  });

  it('suggests nothing for names that are far from every candidate', () => {
    assert.equal(closestName('browser_navigate', TOOLS), undefined);
    assert.equal(closestName('read', TOOLS), undefined);
    assert.equal(closestName('anything', []), undefined);
  });
});

describe('normaliseToolName', () => {
  it('lowers case, splits CamelCase, unifies separators and drops a trailing "tool"', () => {
    assert.equal(normaliseToolName('  ReadFileTool '), 'read_file');
    assert.equal(normaliseToolName('web search'), 'web_search');
    assert.equal(normaliseToolName('<terminal>'), 'terminal');
  });
});

describe('levenshtein', () => {
  it('counts edits', () => {
    assert.equal(levenshtein('kitten', 'sitting'), 3);
    assert.equal(levenshtein('', 'abc'), 3);
    assert.equal(levenshtein('same', 'same'), 0);
  });
});

describe('closestKey', () => {
  it('finds a misspelt config key, without case', () => {
    assert.equal(closestKey('maxIteratons', ['maxIterations', 'busyPolicy', 'systemMessage']), 'maxIterations');
    assert.equal(closestKey('BusyPolicy', ['maxIterations', 'busyPolicy']), 'busyPolicy');
    assert.equal(closestKey('modle', ['model', 'agent', 'tools']), 'model');
  });

  it('suggests nothing when nothing is close', () => {
    assert.equal(closestKey('zzz', ['baseDelaySeconds', 'maxDelaySeconds']), undefined);
    assert.equal(closestKey('x', []), undefined);
  });
});

describe('repairToolName (from Hermes’ tests)', () => {
  const tools = ['terminal', 'read_file', 'write_file', 'web_search'];

  it('cuts markup a chat template leaked into the name', () => {
    assert.equal(repairToolName('terminal" parameter="command"', tools), 'terminal');
    assert.equal(repairToolName('<function=terminal>', tools), 'terminal');
    assert.equal(repairToolName('read_file</tool_call>', tools), 'read_file');
    assert.equal(repairToolName('<tool_call>read_file', tools), 'read_file');
    assert.equal(repairToolName('functions.web_search', tools), 'web_search');
    assert.equal(repairToolName('"write_file"', tools), 'write_file');
    assert.equal(repairToolName(' ReadFile ', tools), 'read_file');
  });

  it('never guesses: a near miss or another tool’s prefix stays unknown', () => {
    assert.equal(repairToolName('terminl', tools), undefined);
    assert.equal(repairToolName('read', tools), undefined);
    assert.equal(repairToolName('browser_navigate" x="y"', tools), undefined);
    assert.equal(repairToolName('', tools), undefined);
    assert.equal(repairToolName('terminal', tools), 'terminal');
  });

  it('a repaired call is stored and run under the real name', () => {
    const calls = [
      { id: 'a', type: 'function' as const, function: { name: 'terminal" parameter="command"', arguments: '{}' } },
      { id: 'b', type: 'function' as const, function: { name: 'terminl', arguments: '{}' } },
    ];
    assert.deepEqual(
      repairedToolNames(calls, tools).map((c) => c.function.name),
      ['terminal', 'terminl'],
    );
  });
});
