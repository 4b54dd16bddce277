/** Text helpers used for tool output caps and one-line previews. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oneLine, truncateMiddle } from '../../common/text.js';

describe('truncateMiddle', () => {
  it('returns short text unchanged', () => {
    assert.equal(truncateMiddle('hello', 5), 'hello');
    assert.equal(truncateMiddle('', 0), '');
  });

  it('keeps the head and the tail and says how much was cut', () => {
    const text = `HEAD${'x'.repeat(1000)}TAIL`;
    const out = truncateMiddle(text, 100);
    assert.ok(out.startsWith('HEAD'));
    assert.ok(out.endsWith('TAIL'));
    assert.match(out, /\[… 908 characters omitted …\]/);
    // 60% head, 40% tail of the kept characters
    const [head, tail] = out.split(/\n\[…[^\]]*\]\n/);
    assert.equal(head!.length, 60);
    assert.equal(tail!.length, 40);
  });

  it('keeps exactly max characters of the original text', () => {
    const text = 'abcdefghijklmnopqrstuvwxyz'.repeat(10);
    const out = truncateMiddle(text, 50, () => '|');
    assert.equal(out.length, 51);
    assert.equal(out, `${text.slice(0, 30)}|${text.slice(-20)}`);
  });

  it('passes the number of cut characters to a custom marker', () => {
    let seen = -1;
    truncateMiddle('a'.repeat(30), 10, (n) => {
      seen = n;
      return '';
    });
    assert.equal(seen, 20);
  });
});

describe('oneLine', () => {
  it('collapses whitespace and newlines into single spaces', () => {
    assert.equal(oneLine('  npm   test\n  --watch\t\n'), 'npm test --watch');
  });

  it('caps long text with an ellipsis at exactly max characters', () => {
    const out = oneLine('a'.repeat(200), 80);
    assert.equal(out.length, 80);
    assert.ok(out.endsWith('…'));
    assert.equal(oneLine('exactly ten', 11), 'exactly ten');
  });
});
