/** Herald's metrics registry and its scrape endpoint, without a worker. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedLabel, createMetrics } from '../../activities/metrics.js';
import { createLogger } from '../../runtime/logger.js';
import { freePort } from '../../runtime/ports.js';
import { startMetricsServer } from '../../workers/metrics-server.js';

describe('metrics labels', () => {
  it('sanitises values and counts past the cap as "other", so a model name cannot blow up cardinality', () => {
    const label = new BoundedLabel(2);
    assert.equal(label.of('GPT-4.1 "mini"\n'), 'gpt-4.1__mini__');
    assert.equal(label.of('anthropic/claude-sonnet-4-5'), 'anthropic/claude-sonnet-4-5');
    assert.equal(label.of('a-third-model'), 'other');
    assert.equal(label.of('gpt-4.1 "mini"\n'), 'gpt-4.1__mini__');
    assert.equal(label.of(''), 'other');
    assert.equal(new BoundedLabel().of('x'.repeat(500)).length, 80);
  });

  it('records a model attempt, a tool call and a denial under bounded labels', async () => {
    const m = createMetrics({ processMetrics: false });
    m.modelAttempt({
      provider: 'openai',
      model: 'gpt-4.1',
      outcome: 'error',
      reason: 'rate_limit',
      attempt: 2,
      durationMs: 1500,
      tokens: { input: 10, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    });
    m.toolCall('terminal', 'refused', 3);
    m.sandboxDenial('network');
    m.approvalResolved('made-up');
    const text = await m.registry.metrics();
    // A retry is an attempt, not a new call.
    assert.doesNotMatch(text, /^herald_model_calls_total\{/m);
    assert.match(text, /^herald_model_attempts_total\{provider="openai",model="gpt-4.1",outcome="error"\} 1$/m);
    assert.match(text, /^herald_model_errors_total\{provider="openai",model="gpt-4.1",reason="rate_limit"\} 1$/m);
    assert.match(text, /^herald_model_tokens_total\{provider="openai",model="gpt-4.1",kind="input"\} 10$/m);
    assert.match(text, /^herald_tool_calls_total\{tool="terminal",outcome="refused"\} 1$/m);
    assert.match(text, /^herald_sandbox_denials_total\{kind="network"\} 1$/m);
    assert.match(text, /^herald_approvals_total\{decision="other"\} 1$/m);
  });
});

describe('metrics endpoint', () => {
  it("serves Herald's metrics when the Temporal SDK's endpoint does not answer", async () => {
    const m = createMetrics({ processMetrics: false });
    m.compression('compressed', 1200);
    const server = await startMetricsServer({
      port: await freePort(),
      host: '127.0.0.1',
      registry: m.registry,
      coreUrl: `http://127.0.0.1:${await freePort()}/metrics`,
      log: createLogger('silent'),
    });
    try {
      const res = await fetch(server.url);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      const text = await res.text();
      assert.match(text, /^herald_compressions_total\{outcome="compressed"\} 1$/m);
      assert.match(text, /^# the Temporal SDK's metrics endpoint did not answer/m);
      assert.equal((await fetch(server.url.replace('/metrics', '/other'))).status, 404);
    } finally {
      await server.close();
    }
  });
});
