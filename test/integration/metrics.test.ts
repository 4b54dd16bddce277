/**
 * Metrics on the real stack: a worker started with a metrics port, a conversation with a retried
 * model call and a tool call through the fake provider, and a real Prometheus (the Debian package)
 * scraping the worker. Its query API must return Herald's series with the right counts and the
 * Temporal SDK's own worker metrics from the same target.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import { freePort } from '../../runtime/ports.js';
import type { PrometheusServer } from '../support/prometheus.js';
import { startPrometheus } from '../support/prometheus.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

const DASHBOARD = join(PROJECT_ROOT, 'deploy', 'grafana', 'herald-dashboard.json');

describe('metrics', () => {
  let stack: TestStack;
  let prometheus: PrometheusServer;
  let metricsPort: number;
  before(async () => {
    metricsPort = await freePort();
    stack = await createTestStack({
      env: { HERALD_METRICS_PORT: String(metricsPort) },
      configYaml:
        'retry: { baseDelaySeconds: 0.1, maxDelaySeconds: 0.2 }\npricing:\n  fake-model: { input: 1000, output: 2000 }\n',
    });
    prometheus = await startPrometheus([`127.0.0.1:${metricsPort}`]);
  });
  after(async () => {
    await prometheus?.stop();
    await stack?.close();
  });

  it("Prometheus scrapes Herald's and the Temporal SDK's metrics from the worker's one port", async () => {
    assert.equal(stack.worker?.metricsUrl, `http://127.0.0.1:${metricsPort}/metrics`);
    const ws = join(stack.workspaces, 'metrics-ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'notes.txt'), 'metrics are counted\n');
    // With the sandbox on (as in CI), a write to /usr hits its read-only wall: a counted denial.
    const sandboxed = stack.worker.sandbox.status.active;
    const wall = sandboxed ? [{ name: 'terminal', arguments: { command: 'touch /usr/herald-metrics-probe' } }] : [];
    stack.fake.script([
      { status: 429, error: { message: 'Rate limit reached for requests' } },
      {
        toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }, ...wall],
        usage: { prompt: 120, completion: 8 },
      },
      { text: 'the notes say metrics are counted', usage: { prompt: 150, completion: 9 } },
    ]);
    const r = await stack.herald.conversation('m-1').send('read notes.txt', { start: { cwd: ws } });
    assert.equal(r.final_response, 'the notes say metrics are counted');
    // A manual compression (whatever the engine decides for so short a transcript, it is counted).
    stack.fake.script([{ text: '## Goal\nread the notes' }]);
    await stack.herald.conversation('m-1').compress();

    // The worker's own text: both registries on one page, Herald's labels bounded (no session ids).
    const page = await (await fetch(stack.worker.metricsUrl)).text();
    assert.match(page, /^herald_model_calls_total\{provider="custom",model="fake-model"\} 2$/m);
    assert.match(page, /^temporal_/m);
    assert.doesNotMatch(page, /m-1/);

    const value = async (q: string) => (await prometheus.query(q))[0]?.value;
    // Two calls (the tool step and the answer); the first one's 429 is one more attempt, an error.
    // (A scrape after the compression has everything before it too.)
    await eventually(async () => (await value('sum(herald_compressions_total)')) === 1, 30_000, 250);
    assert.equal(await value('sum(herald_model_calls_total)'), 2);
    assert.equal(await value('up{job="herald"}'), 1);
    assert.equal(await value('sum(herald_model_attempts_total{outcome="ok"})'), 2);
    assert.equal(await value('sum(herald_model_errors_total{reason="rate_limit"})'), 1);
    assert.equal(await value('sum(herald_model_tokens_total{kind="input"})'), 270);
    assert.equal(await value('sum(herald_model_tokens_total{kind="output"})'), 17);
    // Priced at 1,000 and 2,000 USD per million tokens: (270 × 1000 + 17 × 2000) / 1e6.
    assert.ok(Math.abs((await value('sum(herald_model_cost_usd_total)'))! - 0.304) < 1e-6);
    assert.equal(await value('herald_tool_calls_total{tool="read_file",outcome="ok"}'), 1);
    assert.equal(await value('sum(herald_tool_call_duration_seconds_count{tool="read_file"})'), 1);
    assert.equal(await value('sum(herald_model_call_duration_seconds_count)'), 3);
    assert.ok((await value('sum(herald_model_time_to_first_token_seconds_count)'))! >= 2);
    // Fleet-wide gauges from Postgres: the conversation is open, nothing waits for approval.
    assert.equal(await value('herald_conversations_active'), 1);
    assert.equal(await value('sum(herald_compressions_total)'), 1);
    assert.equal(await value('herald_compression_duration_seconds_count'), 1);
    assert.equal(await value('herald_approvals_waiting'), 0);
    if (sandboxed) assert.equal(await value('herald_sandbox_denials_total{kind="read_only"}'), 1);
    assert.ok((await value('herald_process_resident_memory_bytes'))! > 0);

    // The Temporal SDK's worker metrics, served through the same target.
    const temporal = await prometheus.query('count by (__name__) ({__name__=~"temporal_.+", job="herald"})');
    const names = temporal.map((s) => s.metric.__name__);
    assert.ok(
      names.some((n) => n?.startsWith('temporal_activity_execution_latency')),
      `Temporal SDK metrics seen: ${names.join(', ')}`,
    );
    assert.ok(names.some((n) => n?.startsWith('temporal_workflow_task')));

    // The Grafana dashboard: every query parses in this Prometheus, and every series it names is served.
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
    };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ title: p.title, expr: t.expr })));
    assert.ok(exprs.length >= 20);
    for (const { title, expr } of exprs) {
      const promql = expr
        .replaceAll('$__rate_interval', '1m')
        .replaceAll('$__range', '1h')
        .replaceAll('$job', '.*')
        .replaceAll('$instance', '.*');
      await prometheus.query(promql).catch((err: Error) => assert.fail(`panel ${title}: ${err.message}`));
      for (const [name] of expr.matchAll(/\b(?:herald|temporal)_[a-z_]+/g)) {
        const family = name.replace(/_(bucket|count|sum)$/, '');
        assert.match(page, new RegExp(`^# HELP ${family} `, 'm'), `panel ${title} uses ${name}`);
      }
    }
  });
});
