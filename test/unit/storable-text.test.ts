/**
 * Every string Herald writes to Postgres is storable: NUL and unpaired surrogates (which `text`
 * and `jsonb` refuse, so a write would fail on every retry) become U+FFFD.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storableJson, storableParam, storableText } from '../../shared/storable-text.js';

describe('storable text', () => {
  it('replaces NUL and lone surrogates, keeps pairs and everything else', () => {
    assert.equal(storableText('a\u0000b'), 'a\uFFFDb');
    assert.equal(storableText('x\uD800y'), 'x\uFFFDy');
    assert.equal(storableText('x\uDC00'), 'x\uFFFD');
    assert.equal(storableText('emoji 😀 ok'), 'emoji 😀 ok');
    const plain = 'nothing to do here \\u0000 as text';
    assert.equal(storableText(plain), plain);
  });

  it('fixes the escapes jsonb refuses in JSON text, not in prose', () => {
    const json = JSON.stringify([{ arguments: 'a\u0000b\uD800c 😀' }]);
    const fixed = storableJson(json);
    assert.deepEqual(JSON.parse(fixed), [{ arguments: 'a\uFFFDb\uFFFDc 😀' }]);
    assert.equal(storableJson('{"a":"\\\\u0000"}'), '{"a":"\\\\u0000"}', 'an escaped backslash is kept');
    assert.equal(storableJson('printf "\\u0000"'), 'printf "\\u0000"', 'not JSON: left alone');
  });

  it('reaches strings inside objects and arrays', () => {
    assert.deepEqual(storableParam({ a: ['x\u0000'], b: 1, c: null }), { a: ['x\uFFFD'], b: 1, c: null });
  });
});
