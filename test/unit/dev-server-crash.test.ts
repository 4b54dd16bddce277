import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crashReason } from '../../workers/temporal-dev-server.js';

describe('crashReason', () => {
  it('puts a Go panic first, not the tail of its goroutine dump', () => {
    const head =
      'time=… level=WARN msg=starting\npanic: listen tcp 127.0.0.1:7233: bind: address already in use\n\ngoroutine 1 [running]:\n';
    const tail =
      'main.main()\n\t/src/main.go:12 +0x1d\nexit status 2 … execute(0x29ad2dd0c810, {0x29ad2ddbea20, 0x12, 0x12})';
    const reason = crashReason(head, tail);
    assert.match(reason, /^panic: listen tcp 127\.0\.0\.1:7233: bind: address already in use \(…\) /);
    assert.ok(!reason.includes('\n'), 'one line, as the CLI prints one line');
  });
  it('falls back to the last log lines, or says there were none', () => {
    assert.equal(crashReason('a\nb\nc\nd', 'a\nb\nc\nd'), 'b | c | d');
    assert.equal(crashReason('', ''), '(no output)');
  });
});
