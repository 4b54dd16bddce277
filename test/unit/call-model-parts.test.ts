/** The model call's parts that hold logic of their own, without a worker: prepare, the stream's watchdog settings, the meter. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMetrics } from '../../activities/metrics.js';
import { startCallMeter } from '../../activities/model/call-meter.js';
import type { CallAttempt } from '../../activities/model/call-settle.js';
import { SAVE_WAIT_MAX_MS, saveWaitMs } from '../../activities/model/call-settle.js';
import { requestBytes } from '../../activities/model/call-ledger.js';
import { withHookContext } from '../../activities/model/call-prepare.js';
import { cancellationOrTimeout, stallSecondsFor } from '../../activities/model/call-stream.js';
import { hasUnterminatedScratchpad } from '../../activities/model/describe-call.js';
import type { ActivityDeps } from '../../activities/deps.js';
import type { ChatMessage } from '../../common/messages.js';
import type { ProviderRef } from '../../common/providers.js';

describe('model call: prepare', () => {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'first' },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: 'second' },
    { role: 'assistant', content: 'thinking' },
  ];

  it("puts the plugins' context on the newest user message only, without changing the stored list", () => {
    const out = withHookContext(messages, ['ctx one', 'ctx two']);
    assert.equal(out[3]!.content, 'second\n\nctx one\n\nctx two');
    assert.equal(out[1]!.content, 'first');
    assert.equal(messages[3]!.content, 'second');
  });

  it('sends the messages as they are when no plugin adds anything, or there is no user message', () => {
    assert.equal(withHookContext(messages, []), messages);
    const noUser: ChatMessage[] = [{ role: 'system', content: 'sys' }];
    assert.deepEqual(withHookContext(noUser, ['x']), noUser);
  });
});

describe('model call: stream watchdogs', () => {
  const file = (providers: Record<string, unknown>, streamStallSeconds?: number) =>
    ({ providers, model: { streamStallSeconds } }) as unknown as ActivityDeps['config']['file'];

  it("allows a stream's silence for the provider's own setting, else the model section's, else the default", () => {
    assert.equal(stallSecondsFor(file({ openai: { streamStallSeconds: 5 } }, 30), 'openai'), 5);
    assert.equal(stallSecondsFor(file({}, 30), 'openai'), 30);
    assert.equal(stallSecondsFor(file({}), 'openai'), 60);
  });

  it('lets a local server on a CPU stay silent longer while it reads the prompt', () => {
    assert.equal(stallSecondsFor(file({}), 'ollama'), 600);
  });

  it('waits for a cancellation at most the grace it is given', async () => {
    const never = new AbortController();
    await cancellationOrTimeout(never.signal, 20);
    const soon = new AbortController();
    const waiting = cancellationOrTimeout(soon.signal, 60_000);
    soon.abort();
    await waiting;
  });
});

describe('model call: meter', () => {
  const ref = { provider: 'openai', apiMode: 'chat_completions', model: 'gpt-4.1' } as ProviderRef;

  it('measures time to first output from the request, once, and counts the attempt', async () => {
    const metrics = createMetrics({ processMetrics: false });
    let now = 1000;
    const meter = startCallMeter(metrics, ref, 1, 100, () => now);
    now = 1250;
    meter.firstOutput();
    now = 1900;
    meter.firstOutput();
    meter.measure({ outcome: 'ok', durationMs: 900, model: 'gpt-4.1' });
    meter.end();
    meter.end();
    const text = await metrics.registry.metrics();
    assert.match(text, /^herald_model_attempts_total\{provider="openai",model="gpt-4.1",outcome="ok"\} 1$/m);
    assert.match(text, /^herald_model_time_to_first_token_seconds_sum\{provider="openai",model="gpt-4.1"\} 0.25$/m);
  });
});

describe('model call: reply', () => {
  it('says a reply was cut off while thinking aloud only when the scratchpad was never closed', () => {
    assert.equal(hasUnterminatedScratchpad('<REASONING_SCRATCHPAD>hmm'), true);
    assert.equal(hasUnterminatedScratchpad('<REASONING_SCRATCHPAD>hmm</REASONING_SCRATCHPAD> done'), false);
    assert.equal(hasUnterminatedScratchpad('plain'), false);
  });
});

describe('model call: settle', () => {
  const info = (scheduledAt: number, startToCloseMs: number) =>
    ({ currentAttemptScheduledTimestampMs: scheduledAt, startToCloseTimeoutMs: startToCloseMs }) as CallAttempt['info'];

  it("waits for the database to save a reply for the outage bound, never past the attempt's own timeout", () => {
    const minute = 60_000;
    assert.equal(saveWaitMs(info(0, 15 * minute), 1 * minute), SAVE_WAIT_MAX_MS);
    assert.equal(saveWaitMs(info(0, 15 * minute), 10 * minute), 5 * minute - 30_000);
    assert.equal(saveWaitMs(info(0, 15 * minute), 15 * minute), 0);
    assert.equal(saveWaitMs(info(0, 0), 0), SAVE_WAIT_MAX_MS);
  });
});

describe('model call: ledger', () => {
  it('knows the size of what a request sends, in bytes as JSON', () => {
    const small = requestBytes({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [] });
    const big = requestBytes({ model: 'm', messages: [{ role: 'user', content: '\u6c49'.repeat(1000) }], tools: [] });
    assert.ok(small > 0 && small < 100);
    assert.equal(big - small, 3000 - 2);
  });
});
