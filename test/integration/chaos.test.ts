/**
 * Chaos, in short (the long form is `npm run chaos`): a handful of conversations with tool loops
 * on two worker processes while a worker is killed, the Temporal dev server restarted and
 * Postgres restarted — each at least once — and every conversation must end with the transcript
 * of a fault-free run of the same script, no message duplicated or missing, nothing stuck and no
 * workflow task failed (test/support/chaos/).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAULT_KINDS } from '../support/chaos/faults.js';
import { DEFAULTS, runChaos } from '../support/chaos/harness.js';

describe('chaos: worker kills, Temporal and Postgres restarts', () => {
  it('ends every conversation as the fault-free run did', { timeout: 240_000 }, async () => {
    const r = await runChaos({
      ...DEFAULTS,
      conversations: 5,
      turns: 3,
      workers: 2,
      seed: 7,
      durationMs: 16_000,
      settleMs: 120_000,
      meanFaultIntervalMs: 4_000,
      downMs: [1000, 3000],
      log: () => {},
    });
    console.log(r.text);
    for (const kind of FAULT_KINDS)
      assert.ok(
        r.faults.some((f) => f.kind === kind && !f.error),
        `${kind} was not injected`,
      );
    assert.ok(r.ok, r.text);
  });
});
