/**
 * Traces leave a real `herald worker` process over OTLP, configured only by the standard
 * `OTEL_*` variables: a loopback HTTP server stands in for the collector and must receive the
 * turn's spans (protobuf over HTTP, the GenAI attributes among them), and no conversation text.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { spawnHerald } from '../support/processes.js';
import type { HeraldProcess } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

describe('OTLP export', () => {
  let stack: TestStack;
  let worker: HeraldProcess | undefined;
  const received: Array<{ path: string; type: string; body: Buffer }> = [];
  const collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  before(async () => {
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    stack = await createTestStack({ worker: false });
  });
  after(async () => {
    worker?.kill('SIGTERM');
    await worker?.exited;
    await stack?.close();
    await new Promise((resolve) => collector.close(resolve));
  });

  it('sends a turn’s spans to OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const { port } = collector.address() as AddressInfo;
    worker = spawnHerald(['worker'], {
      ...stack.workerEnv(),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_SERVICE_NAME: 'herald-otlp-test',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    await worker.waitFor('worker polling task queue', 90_000);
    stack.fake.script([{ text: 'traced over the wire' }]);
    const r = await stack.herald.conversation('otlp-1').send('hello', { start: {} });
    assert.equal(r.final_response, 'traced over the wire');
    const all = () => Buffer.concat(received.map((x) => x.body)).toString('latin1');
    await eventually(() => all().includes('herald.turn') && all().includes('gen_ai.request.model'), 30_000, 200);
    assert.ok(received.every((x) => x.path === '/v1/traces' && x.type === 'application/x-protobuf'));
    for (const name of ['herald-otlp-test', 'RunActivity:callModel', 'chat fake-model', 'StartActivity:finishTurn'])
      assert.ok(all().includes(name), `no ${name} in what the collector received`);
    assert.ok(!all().includes('traced over the wire'), 'the reply text must not be exported');
  });
});
