/** Message bounds are measured as a payload carries them: JSON in UTF-8, where escapes cost more than the characters. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_MESSAGE_CHARS, messagePayloadBytes, messageSizeIssue } from '../../common/contract.js';
import { MAX_QUEUED_BYTES } from '../../workflows/limits.js';

describe('encoded message bounds', () => {
  it('counts a control character as the six bytes its JSON escape takes', () => {
    assert.equal(messagePayloadBytes('\u0001'.repeat(10)), 62);
    assert.equal(messagePayloadBytes('a'.repeat(10)), 12);
  });

  it('refuses a message under the character cap that is megabytes as JSON', () => {
    const hostile = '\u0001'.repeat(MAX_MESSAGE_CHARS);
    assert.ok(messagePayloadBytes(hostile) > 2_000_000);
    assert.match(messageSizeIssue(hostile)!, /too large as a payload \(2400002 bytes encoded/);
    assert.match(messageSizeIssue('\u0001'.repeat(200_000))!, /too large as a payload/);
  });

  it('accepts plain text up to the character cap, which fits the queue the workflow keeps', () => {
    assert.equal(messageSizeIssue('a'.repeat(MAX_MESSAGE_CHARS)), undefined);
    assert.ok(messagePayloadBytes('a'.repeat(MAX_MESSAGE_CHARS)) <= MAX_QUEUED_BYTES);
  });
});
