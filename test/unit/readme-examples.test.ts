/** The README doc test's own rules: which blocks are examples, and how loosely output may differ. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonSubset, normaliseLine, outputMatches, parseExamples } from '../support/readme-examples.js';

const fence = '```';

describe('README examples', () => {
  it('takes only marked blocks, with the output block right after a script', () => {
    const md = [
      `${fence}bash`,
      'not an example',
      fence,
      '<!-- example -->',
      `${fence}bash`,
      'herald state demo',
      fence,
      fence,
      'session demo · idle',
      fence,
      '<!-- example: exit=1, no-output -->',
      `${fence}bash`,
      'false',
      fence,
      fence,
      'ignored',
      fence,
    ].join('\n');
    const examples = parseExamples(md);
    assert.equal(examples.length, 2);
    assert.deepEqual(examples[0]!.commands, [{ script: 'herald state demo', expected: 'session demo · idle' }]);
    assert.equal(examples[1]!.exit, 1);
    assert.equal(examples[1]!.commands[0]!.expected, undefined);
  });

  it('reads a session block as commands and what each printed', () => {
    const md = [
      '<!-- example -->',
      fence,
      '$ herald send demo \\',
      '  "hi"',
      'You said: hi',
      '',
      '$ herald sessions',
      'demo',
      fence,
    ].join('\n');
    const [example] = parseExamples(md);
    assert.deepEqual(example!.commands, [
      { script: 'herald send demo \\\n  "hi"', expected: 'You said: hi\n' },
      { script: 'herald sessions', expected: 'demo' },
    ]);
  });

  it('lets ids, counts and spacing differ but not words', () => {
    assert.equal(
      normaliseLine('session 20261130-005724-fdb549  [2 calls, 227 tokens]'),
      'session <id> [0 calls, 0 tokens]',
    );
    assert.ok(outputMatches('[4 calls, 466 tokens]', 'x\n[2 calls,  19 tokens]\n').ok);
    assert.ok(outputMatches('a … c', 'a b b c').ok);
    assert.equal(outputMatches('session demo · idle', 'session demo · running').ok, false);
    assert.equal(outputMatches('one\ntwo', 'two\none').missing, 'two', 'lines must come in order');
  });

  it('compares JSON as a subset, numbers by type', () => {
    assert.equal(jsonSubset({ a: 1, b: { c: 'x' } }, { a: 7, b: { c: 'x', d: 2 }, e: 3 }), undefined);
    assert.match(jsonSubset({ b: { c: 'x' } }, { b: { c: 'y' } })!, /\$\.b\.c/);
  });
});
