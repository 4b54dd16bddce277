/** "Did you mean" matching for tool names a model got slightly wrong. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestKey, closestName, levenshtein, normaliseToolName } from '../../common/fuzzy.js';

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
