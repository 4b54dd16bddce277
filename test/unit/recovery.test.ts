/**
 * Failure recovery (docs/providers.md): which failures the activity retries on its own, and what the
 * workflow does once it gives up — refresh or rotate a credential, fall back, compress, strip
 * reasoning signatures, or end the turn with a clear message.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAILURE_REASONS, REASON_POLICIES, type FailureReason } from '../../common/error-reasons.js';
import {
  LONG_CONTEXT_TIER_LIMIT,
  MAX_COMPRESSIONS_PER_SLOT,
  decideRecovery,
  isTransient,
  retryInActivity,
  type Recovery,
  type SlotState,
} from '../../common/recovery.js';

const slot = (over: Partial<SlotState> = {}): SlotState => ({
  rotations: 0,
  poolSize: 1,
  refreshed: false,
  fallbacksLeft: 0,
  compressions: 0,
  strippedReasoning: false,
  ...over,
});

const TRANSIENT = ['overloaded', 'timeout', 'network', 'server_error', 'unknown'] as const;
const COMPRESSIBLE = ['context_overflow', 'payload_too_large'] as const;
const FALLBACK_ONLY = ['model_not_found', 'content_policy_blocked', 'format_error'] as const;
const NEVER_RETRIED: readonly FailureReason[] = [
  'auth',
  'billing',
  'context_overflow',
  'payload_too_large',
  'long_context_tier',
  'thinking_signature',
  'model_not_found',
  'content_policy_blocked',
  'format_error',
];

describe('retryInActivity', () => {
  const contexts = [
    { fallbackAvailable: false, poolSize: 1 },
    { fallbackAvailable: true, poolSize: 1 },
    { fallbackAvailable: false, poolSize: 3 },
    { fallbackAvailable: true, poolSize: 3 },
  ];

  it('rate_limit with a credential pool: retries the first attempt, hands the second to the workflow', () => {
    for (const fallbackAvailable of [false, true]) {
      for (const poolSize of [2, 5]) {
        const ctx = { fallbackAvailable, poolSize };
        assert.equal(retryInActivity('rate_limit', 1, ctx), true, JSON.stringify(ctx));
        assert.equal(retryInActivity('rate_limit', 2, ctx), false, JSON.stringify(ctx));
        assert.equal(retryInActivity('rate_limit', 3, ctx), false, JSON.stringify(ctx));
      }
    }
  });

  it('rate_limit without a pool: switches at once when a fallback exists, else keeps retrying', () => {
    for (const attempt of [1, 2, 3, 10]) {
      assert.equal(retryInActivity('rate_limit', attempt, { fallbackAvailable: true, poolSize: 1 }), false);
      assert.equal(retryInActivity('rate_limit', attempt, { fallbackAvailable: false, poolSize: 1 }), true);
    }
  });

  it('overloaded (503/529): moves to the fallback at once, else keeps retrying', () => {
    for (const poolSize of [1, 3])
      for (const attempt of [1, 2, 3, 10]) {
        assert.equal(retryInActivity('overloaded', attempt, { fallbackAvailable: true, poolSize }), false);
        assert.equal(retryInActivity('overloaded', attempt, { fallbackAvailable: false, poolSize }), true);
      }
  });

  for (const reason of ['timeout', 'network'] as const) {
    it(`${reason}: stops at attempt 2 when a fallback exists, else keeps retrying`, () => {
      for (const poolSize of [1, 3]) {
        assert.equal(retryInActivity(reason, 1, { fallbackAvailable: true, poolSize }), true);
        assert.equal(retryInActivity(reason, 2, { fallbackAvailable: true, poolSize }), false);
        assert.equal(retryInActivity(reason, 3, { fallbackAvailable: true, poolSize }), false);
        for (const attempt of [1, 2, 3, 10])
          assert.equal(retryInActivity(reason, attempt, { fallbackAvailable: false, poolSize }), true);
      }
    });
  }

  for (const reason of ['server_error', 'unknown'] as const) {
    it(`${reason}: always retries (the retry policy's attempt limit ends it)`, () => {
      for (const ctx of contexts)
        for (const attempt of [1, 2, 3, 10])
          assert.equal(retryInActivity(reason, attempt, ctx), true, `${JSON.stringify(ctx)} attempt ${attempt}`);
    });
  }

  it('never retries a non-retryable reason, whatever the attempt or context', () => {
    for (const reason of NEVER_RETRIED)
      for (const ctx of contexts)
        for (const attempt of [1, 2, 3])
          assert.equal(retryInActivity(reason, attempt, ctx), false, `${reason} ${JSON.stringify(ctx)} #${attempt}`);
  });

  it('covers every failure reason, and retries only reasons whose policy is retryable', () => {
    const listed = new Set<FailureReason>([
      'rate_limit',
      'timeout',
      'network',
      'overloaded',
      'server_error',
      'unknown',
      ...NEVER_RETRIED,
    ]);
    assert.deepEqual([...listed].sort(), [...FAILURE_REASONS].sort());
    for (const reason of FAILURE_REASONS) {
      const ever = contexts.some((ctx) => [1, 2, 3].some((a) => retryInActivity(reason, a, ctx)));
      assert.equal(ever, REASON_POLICIES[reason].retryable, reason);
    }
  });
});

describe('decideRecovery', () => {
  describe('auth', () => {
    const cases: Array<[string, Partial<SlotState>, Recovery['action']]> = [
      ['refreshes the credential first', { poolSize: 3, fallbacksLeft: 1 }, 'refresh_credential'],
      ['refreshes first even without a pool or fallback', {}, 'refresh_credential'],
      ['then rotates while the pool has unused keys', { refreshed: true, poolSize: 3 }, 'rotate_credential'],
      ['rotates to the last key', { refreshed: true, poolSize: 3, rotations: 1 }, 'rotate_credential'],
      [
        'falls back when every key was tried',
        { refreshed: true, poolSize: 3, rotations: 2, fallbacksLeft: 1 },
        'fallback',
      ],
      ['falls back without a pool', { refreshed: true, fallbacksLeft: 2 }, 'fallback'],
      ['fails when nothing is left', { refreshed: true, poolSize: 3, rotations: 2 }, 'fail'],
      ['fails without a pool or fallback', { refreshed: true }, 'fail'],
    ];
    for (const [name, state, action] of cases)
      it(name, () => assert.equal(decideRecovery('auth', slot(state)).action, action));

    it('walks refresh → rotate → rotate → fallback → fail as the slot is used up', () => {
      const s = slot({ poolSize: 3, fallbacksLeft: 1 });
      const seen: string[] = [];
      for (let i = 0; i < 6; i++) {
        const r = decideRecovery('auth', s);
        seen.push(r.action);
        if (r.action === 'fail') break;
        if (r.action === 'refresh_credential') s.refreshed = true;
        if (r.action === 'rotate_credential') s.rotations += 1;
        if (r.action === 'fallback') s.fallbacksLeft -= 1;
      }
      assert.deepEqual(seen, ['refresh_credential', 'rotate_credential', 'rotate_credential', 'fallback', 'fail']);
    });

    it('fails with a message about the key that does not claim the provider refused it', () => {
      const r = decideRecovery('auth', slot({ refreshed: true }));
      assert.equal(r.action, 'fail');
      // `auth` also means "no key was set, nothing was sent" (model-adapters/clients.ts).
      assert.match(r.action === 'fail' ? r.message : '', /API key \(missing, or refused/);
    });
  });

  for (const reason of ['billing', 'rate_limit'] as const) {
    describe(reason, () => {
      const cases: Array<[string, Partial<SlotState>, Recovery['action']]> = [
        ['rotates at once while the pool has unused keys', { poolSize: 2, fallbacksLeft: 1 }, 'rotate_credential'],
        ['does not refresh the credential', { poolSize: 1, fallbacksLeft: 1 }, 'fallback'],
        ['falls back when the pool is used up', { poolSize: 2, rotations: 1, fallbacksLeft: 1 }, 'fallback'],
        ['fails when the pool and the fallbacks are used up', { poolSize: 2, rotations: 1 }, 'fail'],
        ['fails without a pool or fallback', {}, 'fail'],
      ];
      for (const [name, state, action] of cases)
        it(name, () => assert.equal(decideRecovery(reason, slot(state)).action, action));

      it('walks rotate → rotate → fallback → fail', () => {
        const s = slot({ poolSize: 3, fallbacksLeft: 1 });
        const seen: string[] = [];
        for (let i = 0; i < 6; i++) {
          const r = decideRecovery(reason, s);
          seen.push(r.action);
          if (r.action === 'fail') break;
          if (r.action === 'rotate_credential') s.rotations += 1;
          if (r.action === 'fallback') s.fallbacksLeft -= 1;
        }
        assert.deepEqual(seen, ['rotate_credential', 'rotate_credential', 'fallback', 'fail']);
      });
    });
  }

  for (const reason of TRANSIENT) {
    it(`${reason}: falls back, else fails with a message that leaves the reason to the turn's error`, () => {
      // a credential pool does not help with a transient failure
      assert.deepEqual(decideRecovery(reason, slot({ fallbacksLeft: 1, poolSize: 3 })), { action: 'fallback' });
      const r = decideRecovery(reason, slot({ poolSize: 3 }));
      assert.equal(r.action, 'fail');
      if (r.action === 'fail') {
        // The turn's error is "<message> (<reason>): <provider error>": the reason is said once.
        assert.ok(!r.message.includes(reason), r.message);
        assert.ok(!/\d/.test(r.message), `no attempt count is made up: ${r.message}`);
      }
      // With the ledger's count, the message says how many attempts were really made.
      const counted = decideRecovery(reason, slot({ poolSize: 3, attempts: 6 }));
      assert.equal(counted.action === 'fail' && counted.message, 'the provider kept failing after 6 attempts');
    });
  }

  for (const reason of COMPRESSIBLE) {
    it(`${reason}: compresses up to ${MAX_COMPRESSIONS_PER_SLOT} times, then fails`, () => {
      for (let c = 0; c < MAX_COMPRESSIONS_PER_SLOT; c++)
        assert.deepEqual(decideRecovery(reason, slot({ compressions: c, fallbacksLeft: 1 })), { action: 'compress' });
      for (const fallbacksLeft of [0, 1]) {
        const r = decideRecovery(reason, slot({ compressions: MAX_COMPRESSIONS_PER_SLOT, fallbacksLeft }));
        assert.equal(r.action, 'fail');
        if (r.action === 'fail') assert.match(r.message, /too large/);
      }
    });
  }

  it(`long_context_tier: compresses with the context lowered to ${LONG_CONTEXT_TIER_LIMIT}, then fails`, () => {
    for (let c = 0; c < MAX_COMPRESSIONS_PER_SLOT; c++)
      assert.deepEqual(decideRecovery('long_context_tier', slot({ compressions: c })), {
        action: 'compress',
        lowerContextTo: LONG_CONTEXT_TIER_LIMIT,
      });
    const r = decideRecovery('long_context_tier', slot({ compressions: MAX_COMPRESSIONS_PER_SLOT, fallbacksLeft: 1 }));
    assert.equal(r.action, 'fail');
    if (r.action === 'fail') assert.match(r.message, /long-context/);
  });

  it('thinking_signature: strips the reasoning once, then falls back or fails', () => {
    assert.deepEqual(decideRecovery('thinking_signature', slot({ fallbacksLeft: 1 })), { action: 'strip_reasoning' });
    assert.deepEqual(decideRecovery('thinking_signature', slot()), { action: 'strip_reasoning' });
    assert.deepEqual(decideRecovery('thinking_signature', slot({ strippedReasoning: true, fallbacksLeft: 1 })), {
      action: 'fallback',
    });
    const r = decideRecovery('thinking_signature', slot({ strippedReasoning: true }));
    assert.equal(r.action, 'fail');
    if (r.action === 'fail') assert.match(r.message, /signature/);
  });

  for (const reason of FALLBACK_ONLY) {
    it(`${reason}: falls back at once, else fails`, () => {
      // neither a fresh credential nor compression helps
      const fresh = { poolSize: 3, refreshed: false, compressions: 0 };
      assert.deepEqual(decideRecovery(reason, slot({ ...fresh, fallbacksLeft: 2 })), { action: 'fallback' });
      const r = decideRecovery(reason, slot(fresh));
      assert.equal(r.action, 'fail');
      if (r.action === 'fail') assert.ok(r.message.length > 0);
    });
  }

  it('gives an allowed, consistent answer for every reason × slot state', () => {
    const allowed: Record<FailureReason, ReadonlyArray<Recovery['action']>> = {
      auth: ['refresh_credential', 'rotate_credential', 'fallback', 'fail'],
      billing: ['rotate_credential', 'fallback', 'fail'],
      rate_limit: ['rotate_credential', 'fallback', 'fail'],
      overloaded: ['fallback', 'fail'],
      server_error: ['fallback', 'fail'],
      timeout: ['fallback', 'fail'],
      network: ['fallback', 'fail'],
      unknown: ['fallback', 'fail'],
      context_overflow: ['compress', 'fail'],
      payload_too_large: ['compress', 'fail'],
      long_context_tier: ['compress', 'fail'],
      thinking_signature: ['strip_reasoning', 'fallback', 'fail'],
      model_not_found: ['fallback', 'fail'],
      content_policy_blocked: ['fallback', 'fail'],
      format_error: ['fallback', 'fail'],
    };
    let combinations = 0;
    for (const reason of FAILURE_REASONS)
      for (const poolSize of [1, 2, 3])
        for (let rotations = 0; rotations < poolSize + 1; rotations++)
          for (const refreshed of [false, true])
            for (const fallbacksLeft of [0, 1, 2])
              for (let compressions = 0; compressions <= MAX_COMPRESSIONS_PER_SLOT + 1; compressions++)
                for (const strippedReasoning of [false, true]) {
                  const s: SlotState = {
                    poolSize,
                    rotations,
                    refreshed,
                    fallbacksLeft,
                    compressions,
                    strippedReasoning,
                  };
                  const where = `${reason} ${JSON.stringify(s)}`;
                  const r = decideRecovery(reason, s);
                  combinations++;
                  assert.ok(allowed[reason].includes(r.action), `${where} → ${r.action}`);
                  if (r.action === 'fail') assert.ok(r.message.trim().length > 0, `${where}: empty message`);
                  if (r.action === 'fallback') assert.ok(fallbacksLeft > 0, `${where}: no fallback left`);
                  if (r.action === 'rotate_credential') {
                    assert.ok(rotations < poolSize - 1, `${where}: no unused key`);
                    assert.ok(REASON_POLICIES[reason].rotateCredential, where);
                  }
                  if (r.action === 'refresh_credential') assert.ok(!refreshed, `${where}: refreshed twice`);
                  if (r.action === 'compress') {
                    assert.ok(compressions < MAX_COMPRESSIONS_PER_SLOT, `${where}: compressed too often`);
                    assert.ok(REASON_POLICIES[reason].compress, where);
                  }
                  if (r.action === 'strip_reasoning') assert.ok(!strippedReasoning, `${where}: stripped twice`);
                }
    assert.ok(combinations > 1000);
  });
});

describe('isTransient', () => {
  it('names the reasons worth another round through the chain', () => {
    const transient = FAILURE_REASONS.filter((r) => isTransient(r));
    assert.deepEqual(transient.sort(), ['network', 'overloaded', 'rate_limit', 'server_error', 'timeout', 'unknown']);
  });
});
