/**
 * Fallback on overload with an expiring cooldown (docs/providers.md): a 529 moves the turn to the
 * next provider at once; the overloaded primary is skipped while it cools down, and tried again
 * first when its cooldown has ended (not avoided for the rest of the session).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

/** Short, so that the test waits for the cooldown to end; production's default is 60 s. */
const COOLDOWN_SECONDS = 8;

describe('fallback on overload', () => {
  let stack: TestStack;

  before(async () => {
    stack = await createTestStack({
      configYaml: `retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1, cooldownSeconds: ${COOLDOWN_SECONDS} }\n`,
    });
  });
  after(async () => {
    await stack.close();
  });

  const byModel = (model: string) => stack.fake.requests.filter((r) => r.body.model === model).length;

  it('529 then 200 from the fallback; the primary is skipped during its cooldown and tried again after it', async () => {
    stack.fake.script(
      [{ status: 529, error: { message: 'Overloaded', type: 'overloaded_error' } }, { text: 'the primary is back' }],
      'fake-model',
    );
    stack.fake.script([{ text: 'answered by the backup' }, { text: 'backup again' }], 'backup-model');
    const conv = stack.herald.conversation('ov-529');
    const first = await conv.send('hello', {
      start: { fallbackProviders: [{ provider: 'custom', model: 'backup-model', baseUrl: stack.fake.url }] },
    });
    assert.equal(first.final_response, 'answered by the backup', JSON.stringify(first.error));
    const switchedBy = Date.now();
    assert.equal(byModel('fake-model'), 1, 'an overload moves to the fallback at once');
    const switched = (await stack.events('ov-529')).filter((e) => e.kind === 'status' && e.payload.kind === 'fallback');
    assert.equal(switched.length, 1);
    assert.match(
      switched[0]!.payload.message as string,
      new RegExp(`\\(overloaded\\); fake-model via custom is skipped for ${COOLDOWN_SECONDS} s, then tried again`),
    );
    const cooling = (await conv.state()).cooling_down ?? [];
    assert.deepEqual(
      cooling.map((c) => c.model),
      ['fake-model'],
    );

    const second = await conv.send('again');
    assert.equal(second.final_response, 'backup again');
    assert.equal(byModel('fake-model'), 1, 'the primary is skipped while it cools down');

    // The cooldown started before the first turn ended: once it has surely ended, the next turn
    // starts on the primary again.
    await delay(Math.max(0, switchedBy + COOLDOWN_SECONDS * 1000 + 500 - Date.now()));
    const third = await conv.send('and again');
    assert.equal(third.final_response, 'the primary is back', JSON.stringify(third.error));
    assert.equal(third.model, 'fake-model');
    stack.fake.assertDone();
  });
});
