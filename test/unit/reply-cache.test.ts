/** A reply kept across a database outage carries the ledger row its attempt could not write. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LedgerEntry } from '../../store/ledger.js';
import { keepReply, takeReply } from '../../activities/model/reply-cache.js';
import type { ModelResponse } from '../../model-adapters/types.js';

const response: ModelResponse = {
  content: 'paid for',
  reasoning: null,
  toolCalls: [],
  finishReason: 'stop',
  tokens: { input: 10, output: 2, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  model: 'm',
};

describe('reply cache', () => {
  it('hands a kept reply back once, with its unwritten ledger row', () => {
    const row = { callKey: 'run:r:3:1', outcome: 'ok' } as LedgerEntry;
    keepReply('s:2:t', response, row);
    const kept = takeReply('s:2:t');
    assert.equal(kept?.response, response);
    assert.equal(kept?.unrecorded, row);
    assert.equal(takeReply('s:2:t'), undefined);
  });

  it('keeps a reply whose row was written without one', () => {
    keepReply('s:4:t', response);
    assert.equal(takeReply('s:4:t')?.unrecorded, undefined);
  });
});
