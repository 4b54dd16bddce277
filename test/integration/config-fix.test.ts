/**
 * A wrong endpoint in the worker's configuration, then corrected: a running session follows the
 * corrected configuration once its worker restarts, because an endpoint the caller did not name is
 * taken from the configuration of the worker making each call (ProviderRef.fromWorker), not frozen
 * into the session when it started. An endpoint the caller named stays pinned.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

describe('a corrected worker configuration', () => {
  let stack: TestStack;
  before(async () => {
    stack = await createTestStack({
      worker: false,
      configYaml: 'retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\n',
    });
  });
  after(async () => {
    await stack.close();
  });

  it('fixes a running session after the worker restarts: no new session needed', async () => {
    // Nothing listens on port 9 (discard): the misconfigured worker's calls are refused.
    const wrong = await stack.startWorker({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    const conv = stack.herald.conversation('config-fix');
    const failed = await conv.send('hello', { id: 'cf1', start: {} });
    assert.equal(failed.failed, true, JSON.stringify(failed));
    assert.equal(stack.fake.requests.length, 0);
    await wrong.shutdown();

    await stack.startWorker();
    stack.fake.script([{ text: 'Reached the corrected endpoint.' }]);
    const ok = await conv.send('hello again', { id: 'cf2' });
    assert.equal(ok.final_response, 'Reached the corrected endpoint.');
    assert.equal(ok.session_id, failed.session_id, 'the same session goes on');
    assert.equal(stack.fake.requests.length, 1);
  });
});
