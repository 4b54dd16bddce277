/**
 * Traces on the real stack: a traced client and worker, spans collected with the SDK's in-memory
 * exporter. A turn is one trace, client → workflow (its update, the turn) → every activity, with
 * the model call's GenAI attributes and the tool call's outcome; the next turn is another trace.
 * The tracing interceptors must not change what the workflow does: the run's history replays
 * without them, and every committed history replays with them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { Worker } from '@temporalio/worker';
import type { ReplayWorkerOptions } from '@temporalio/worker';
import { HeraldClient } from '../../client/client.js';
import { workerDataConverter } from '../../runtime/data-converter.js';
import { createLogger } from '../../runtime/logger.js';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import type { Tracing } from '../../runtime/tracing.js';
import { startTracing } from '../../runtime/tracing.js';
import type { RunningWorker } from '../../workers/worker.js';
import { startWorker, TRACING_INTERCEPTORS_PATH, WORKFLOWS_PATH } from '../../workers/worker.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

describe('tracing', () => {
  const memory = new InMemorySpanExporter();
  let tracing: Tracing;
  let stack: TestStack;
  let worker: RunningWorker;
  let client: HeraldClient;
  before(async () => {
    tracing = startTracing({ spanProcessor: new SimpleSpanProcessor(memory), serviceName: 'herald-test' })!;
    stack = await createTestStack({ worker: false });
    worker = await startWorker({
      config: stack.config,
      log: createLogger(stack.config.logLevel),
      env: stack.workerEnv(),
      tracing,
    });
    client = await HeraldClient.connect({
      address: stack.temporalAddress,
      namespace: 'default',
      taskQueue: stack.taskQueue,
      databaseUrl: stack.databaseUrl,
      uiUrl: undefined,
      tracing: true,
    });
  });
  after(async () => {
    await client?.close();
    await worker?.shutdown();
    await stack?.close();
    await tracing?.shutdown();
  });

  const spans = () => memory.getFinishedSpans();
  const byId = (id: string | undefined) => spans().find((s) => s.spanContext().spanId === id);
  const parentOf = (s: ReadableSpan) => byId(s.parentSpanId);
  const childrenOf = (s: ReadableSpan, name: string) =>
    spans().filter((c) => c.parentSpanId === s.spanContext().spanId && c.name === name);
  const one = (list: ReadableSpan[], what: string) => {
    assert.ok(
      list.length >= 1,
      `no ${what}; spans: ${spans()
        .map((s) => s.name)
        .join(', ')}`,
    );
    return list[0]!;
  };

  it('makes one trace per turn: client → update → turn → activities, with GenAI attributes', async () => {
    const ws = join(stack.workspaces, 'trace-ws');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'notes.txt'), 'spans all the way down\n');
    stack.fake.script([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }], usage: { prompt: 120, completion: 8 } },
      { text: 'the notes say spans all the way down', usage: { prompt: 150, completion: 9 } },
      { text: 'second turn', usage: { prompt: 170, completion: 3 } },
    ]);
    const conv = client.conversation('tr-1');
    const r = await conv.send('read notes.txt', { start: { cwd: ws } });
    assert.equal(r.final_response, 'the notes say spans all the way down');
    const turnSpan = (n: number) => spans().find((s) => s.name === 'herald.turn' && s.attributes['herald.turn'] === n);
    const turn = await eventually(() => turnSpan(1), 20_000);

    // Everything of the turn is in one trace, rooted at the client's call.
    const traceId = turn.spanContext().traceId;
    const handle = parentOf(turn)!;
    assert.equal(handle.name, 'HandleUpdate:sendMessage');
    const clientSpan = parentOf(handle)!;
    assert.match(clientSpan.name, /^UpdateWithStartWorkflow/);
    assert.equal(clientSpan.parentSpanId, undefined);
    assert.equal(clientSpan.spanContext().traceId, traceId);

    // The turn → StartActivity → RunActivity → Herald's span, for the model and the tool.
    for (const type of ['recordUserMessage', 'callModel', 'runTool', 'finishTurn'])
      one(childrenOf(turn, `StartActivity:${type}`), `StartActivity:${type} under the turn`);
    const modelCalls = await eventually(() => {
      const found = childrenOf(turn, 'StartActivity:callModel')
        .flatMap((s) => childrenOf(s, 'RunActivity:callModel'))
        .flatMap((s) => childrenOf(s, 'chat fake-model'));
      return found.length === 2 ? found : undefined;
    });
    const first = modelCalls.find((s) => s.attributes['gen_ai.usage.input_tokens'] === 120)!;
    assert.equal(first.attributes['gen_ai.system'], 'openai');
    assert.equal(first.attributes['gen_ai.operation.name'], 'chat');
    assert.equal(first.attributes['gen_ai.request.model'], 'fake-model');
    assert.equal(first.attributes['gen_ai.response.model'], 'fake-model');
    assert.equal(first.attributes['gen_ai.usage.output_tokens'], 8);
    assert.deepEqual(first.attributes['gen_ai.response.finish_reasons'], ['tool_calls']);
    const tool = one(
      childrenOf(turn, 'StartActivity:runTool')
        .flatMap((s) => childrenOf(s, 'RunActivity:runTool'))
        .flatMap((s) => childrenOf(s, 'execute_tool read_file')),
      'execute_tool read_file',
    );
    assert.equal(tool.attributes['gen_ai.tool.name'], 'read_file');
    assert.equal(tool.attributes['herald.outcome'], 'ok');
    assert.equal(typeof tool.attributes['herald.tool.duration_ms'], 'number');
    // No conversation content in any attribute.
    for (const s of spans())
      assert.doesNotMatch(JSON.stringify(s.attributes), /spans all the way down/, `${s.name} carries content`);

    // The next turn is a trace of its own.
    assert.equal((await conv.send('again')).final_response, 'second turn');
    const second = await eventually(() => turnSpan(2), 20_000);
    assert.notEqual(second.spanContext().traceId, traceId);
    assert.match(parentOf(parentOf(second)!)!.name, /^StartWorkflowUpdate/);
    one(childrenOf(second, 'StartActivity:callModel'), 'the second turn’s model call');

    // A compression is a span under its activity, with its outcome.
    stack.fake.script([{ text: '## Goal\nread the notes' }]);
    await conv.compress();
    const compression = await eventually(() => spans().find((s) => s.name === 'herald.compression'));
    assert.equal(parentOf(compression)?.name, 'RunActivity:compressContext');
    assert.equal(compression.attributes['herald.compression.reason'], 'manual');
    assert.match(String(compression.attributes['herald.outcome']), /^(compressed|fallback|skipped)$/);
    stack.fake.reset();
  });

  it('traces an approval wait, a command and a child agent inside the turn that started them', async () => {
    const ws = join(stack.workspaces, 'trace-human');
    mkdirSync(join(ws, 'build1'), { recursive: true });
    writeFileSync(join(ws, 'alpha.txt'), 'alpha says hello\n');
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build1 && echo removed' } }] },
      { toolCalls: [{ name: 'delegate_task', arguments: { goal: 'Say what alpha.txt holds' } }] },
      { text: 'Report: alpha says hello.' },
      { text: 'Removed build1; the child read alpha.' },
    ]);
    const conv = client.conversation('tr-2');
    const pending = conv.send('clean up, then ask a helper', { start: { cwd: ws } });
    pending.catch(() => {}); // (awaited below; a failure shows there)
    const requestId = await eventually(async () => (await conv.state()).pending_approvals[0]?.request_id);
    await conv.approve(requestId, 'once');
    assert.equal((await pending).final_response, 'Removed build1; the child read alpha.');

    const turn = await eventually(() =>
      spans().find((s) => s.name === 'herald.turn' && s.attributes['herald.conversation_id'] === 'tr-2'),
    );
    const traceId = turn.spanContext().traceId;
    const wait = one(childrenOf(turn, 'herald.approval_wait'), 'the approval wait under the turn');
    assert.equal(wait.attributes['herald.approval.decision'], 'once');
    assert.equal(wait.attributes['herald.tool'], 'terminal');
    const command = one(
      childrenOf(turn, 'StartActivity:runTool')
        .flatMap((s) => childrenOf(s, 'RunActivity:runTool'))
        .flatMap((s) => childrenOf(s, 'execute_tool terminal')),
      'execute_tool terminal',
    );
    assert.equal(command.attributes['herald.tool.exit_code'], 0);
    // The child agent: its run and its one turn continue the parent turn's trace.
    const start = one(childrenOf(turn, 'StartChildWorkflow:conversation'), 'the child start under the turn');
    const childRun = await eventually(() => childrenOf(start, 'RunWorkflow:conversation')[0]);
    const childTurn = one(childrenOf(childRun, 'herald.turn'), "the child's turn");
    assert.equal(childTurn.spanContext().traceId, traceId);
    one(
      childrenOf(childTurn, 'StartActivity:callModel').flatMap((s) => childrenOf(s, 'RunActivity:callModel')),
      "the child's model call",
    );
  });

  it('does not change the workflow: histories replay with and without the tracing interceptors', async () => {
    const traced: ReplayWorkerOptions = {
      workflowsPath: WORKFLOWS_PATH,
      dataConverter: workerDataConverter(),
      interceptors: { workflowModules: [TRACING_INTERCEPTORS_PATH] },
      sinks: { exporter: makeWorkflowExporter(new SimpleSpanProcessor(new InMemorySpanExporter()), tracing.resource) },
    };
    const history = await stack.temporal.workflow.getHandle('session-tr-1').fetchHistory();
    // Recorded with tracing, replayed without.
    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH, dataConverter: workerDataConverter() }, history);
    // Every committed history (recorded without tracing) and this one, replayed with it.
    const dir = join(PROJECT_ROOT, 'test', 'fixtures', 'histories');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    const histories = [
      { workflowId: 'session-tr-1', history },
      ...files.map((f) => ({ workflowId: f, history: JSON.parse(readFileSync(join(dir, f), 'utf8')) as unknown })),
    ];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories(traced, histories)) {
      assert.equal(result.error, undefined, `${result.workflowId}: ${String(result.error)}`);
      replayed++;
    }
    assert.equal(replayed, files.length + 1);
  });
});
