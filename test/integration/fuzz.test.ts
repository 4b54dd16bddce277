/**
 * The conversation workflow's public contract under random operations (test/support/fuzz): a short,
 * fixed seed set, one per fuzz profile and a few mixed. Each seed runs on its own stack and
 * reports the violated invariants with its operation log. The long run is on demand:
 * `npx tsx scripts/fuzz.ts --seeds 200` (and `--seed N --shrink` for a minimal reproduction).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fuzzCase } from '../support/fuzz/fuzz.js';
import { PROFILES } from '../support/fuzz/ops.js';
import { quietTemporalLogs } from '../support/fuzz/quiet.js';

quietTemporalLogs();

/** Seed n runs profile PROFILES[n % 6]: 6 turns, 7 human, 8 malformed, 9 payloads, 10 disrupt, 11 lifecycle. */
const SEEDS = [6, 7, 8, 9, 10, 11, 13, 15];
const OPS = 15;

describe('fuzz: conversation contract', { concurrency: 2 }, () => {
  for (const seed of SEEDS) {
    it(`seed ${seed} (${PROFILES[seed % PROFILES.length]})`, { timeout: 240_000 }, async () => {
      const r = await fuzzCase(seed, { ops: OPS });
      if (r.violations.length)
        assert.fail(
          `${r.report}\nreproduce: npx tsx scripts/fuzz.ts --seed ${seed} --length ${OPS} -v   (minimal: add --shrink)`,
        );
    });
  }
});
