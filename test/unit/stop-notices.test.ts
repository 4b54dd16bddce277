/**
 * The stop side channel's pure parts: what a notice carries and which running requests it aborts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunningCalls, parseStopNotice, stopNoticePayload } from '../../activities/events/stop-notices.js';

describe('stop notices', () => {
  it('round-trips a notice and refuses what is not a conversation id', () => {
    assert.deepEqual(parseStopNotice(stopNoticePayload({ conversationId: 'abc-1', turnId: 't1' })), {
      conversationId: 'abc-1',
      turnId: 't1',
    });
    assert.deepEqual(parseStopNotice(stopNoticePayload({ conversationId: 'abc-1' })), {
      conversationId: 'abc-1',
      turnId: undefined,
    });
    assert.throws(() => stopNoticePayload({ conversationId: 'no spaces allowed' }));
    assert.equal(parseStopNotice('{"c":"bad id!"}'), undefined);
    assert.equal(parseStopNotice('not json'), undefined);
    assert.equal(parseStopNotice(JSON.stringify({ c: 'x', pad: 'y'.repeat(2000) })), undefined);
    // An over-long turn id is dropped, not sent: the notice then names the conversation only.
    assert.equal(JSON.parse(stopNoticePayload({ conversationId: 'c', turnId: 't'.repeat(500) })).t, undefined);
  });

  it("aborts the conversation's running requests, only the named turn's when it names one", () => {
    const calls = new RunningCalls();
    const a = new AbortController();
    const b = new AbortController();
    const other = new AbortController();
    calls.register('conv', 'turn-1', a);
    const forgetB = calls.register('conv', 'turn-2', b);
    calls.register('elsewhere', 'turn-1', other);

    assert.equal(calls.abort({ conversationId: 'conv', turnId: 'turn-9' }), 0);
    assert.equal(calls.abort({ conversationId: 'conv', turnId: 'turn-1' }), 1);
    assert.equal(a.signal.aborted, true);
    assert.equal(b.signal.aborted, false);

    forgetB();
    assert.equal(calls.abort({ conversationId: 'conv' }), 0, 'a finished request is not aborted');
    assert.equal(b.signal.aborted, false);
    assert.equal(other.signal.aborted, false);
    assert.equal(calls.size, 2);
  });
});
