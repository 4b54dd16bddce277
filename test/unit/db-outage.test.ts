import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { untilDbAnswers } from '../../store/outage.js';

const starting = () => Object.assign(new Error('the database system is starting up'), { code: '57P03' });
const refused = () => Object.assign(new Error('null value in column "seq"'), { code: '23502' });

describe('untilDbAnswers: a database restart inside one activity attempt', () => {
  it('waits while the database restarts, then answers', async () => {
    let calls = 0;
    const v = await untilDbAnswers(() => {
      calls += 1;
      return calls < 3 ? Promise.reject(starting()) : Promise.resolve('stored');
    });
    assert.equal(v, 'stored');
    assert.equal(calls, 3);
  });

  it('does not retry a refusal', async () => {
    let calls = 0;
    await assert.rejects(
      untilDbAnswers(() => {
        calls += 1;
        return Promise.reject(refused());
      }),
      /null value/,
    );
    assert.equal(calls, 1);
  });

  it('gives up at its bound and when the activity is cancelled', async () => {
    const t0 = Date.now();
    await assert.rejects(
      untilDbAnswers(() => Promise.reject(starting()), { maxMs: 600 }),
      /starting up/,
    );
    assert.ok(Date.now() - t0 < 2000);
    const ac = new AbortController();
    ac.abort();
    let calls = 0;
    await assert.rejects(
      untilDbAnswers(
        () => {
          calls += 1;
          return Promise.reject(starting());
        },
        { signal: ac.signal },
      ),
      /starting up/,
    );
    assert.equal(calls, 1);
  });
});
