/**
 * MCP over Streamable HTTP, and durability (docs/mcp.md). `server-everything` in its HTTP mode sits
 * behind a small recording proxy: the header Herald sends comes from an environment variable, and
 * that value appears nowhere in the workflow history or the database. A worker killed during an
 * MCP call: the call runs again on a new worker, and the transcript says so.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../runtime/ports.js';
import type { HeraldProcess } from '../support/processes.js';
import { spawnHerald } from '../support/processes.js';
import { EVERYTHING_SERVER, SERVER_MODULES } from '../support/mcp-servers.js';
import type { RecordedRequest } from '../support/fake-provider.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

type WireMessage = { role: string; content: string | null };
const lastTool = (r: RecordedRequest) =>
  (r.body.messages as WireMessage[]).filter((m) => m.role === 'tool').at(-1)?.content ?? '';

/** A forwarding proxy that remembers the headers of every request. */
async function recordingProxy(target: number): Promise<{ port: number; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const h = req.headers['x-herald-token'];
    seen.push(typeof h === 'string' ? h : '');
    const up = http.request(
      { host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    port,
    seen,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('MCP over Streamable HTTP', () => {
  let stack: TestStack;
  let server: ChildProcess;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  const secret = `mcp-header-${randomBytes(12).toString('hex')}`;

  before(async () => {
    const port = await freePort();
    server = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      server.stderr!.on('data', (d: Buffer) => {
        if (/listening on port/.test(d.toString())) resolve();
      });
      server.once('exit', (code) => reject(new Error(`server-everything exited (${code})`)));
    });
    proxy = await recordingProxy(port);
    stack = await createTestStack({
      env: { MCP_TEST_HEADER: secret },
      configYaml: [
        'mcp:',
        '  servers:',
        '    remote:',
        `      url: http://127.0.0.1:${proxy.port}/mcp`,
        '      headers:',
        '        X-Herald-Token: { fromEnv: MCP_TEST_HEADER }',
        '      include: [echo, get-sum]',
        '',
      ].join('\n'),
    });
  });
  after(async () => {
    await stack?.close();
    await proxy?.close();
    server?.kill();
  });

  it('calls a tool with a header from the environment, and the value is stored nowhere', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'mcp_remote_get-sum', arguments: { a: 20, b: 22 } }] },
      { text: 'It is 42.' },
    ]);
    const conv = stack.herald.conversation('mcp-http');
    const r = await conv.send('add 20 and 22', { start: { cwd: stack.workspaces } });
    assert.equal(r.final_response, 'It is 42.');
    assert.match(lastTool(stack.fake.requests[1]!), /42/);
    // Every request carried the header, with the variable's value.
    assert.ok(proxy.seen.length > 0);
    assert.ok(
      proxy.seen.every((h) => h === secret),
      'each request to the server carries the header',
    );
    // Nowhere in the history…
    const history = await stack.temporal.workflow.getHandle(conv.workflowId).fetchHistory();
    assert.ok(!JSON.stringify(history).includes(secret), 'the header value is not in the workflow history');
    // …nor in any table of the database.
    const tables = await stack.db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    assert.ok(tables.rows.some((t) => t.table_name === 'mcp_tool_schemas'));
    for (const { table_name } of tables.rows) {
      const hit = await stack.db.query(`SELECT 1 FROM "${table_name}" t WHERE t::text LIKE $1 LIMIT 1`, [
        `%${secret}%`,
      ]);
      assert.equal(hit.rowCount, 0, `the header value is in table ${table_name}`);
    }
    const schemas = await stack.db.query('SELECT count(*)::int AS n FROM mcp_tool_schemas');
    assert.ok((schemas.rows[0] as { n: number }).n >= 2);
  });
});

describe('MCP call when the worker dies', () => {
  let stack: TestStack;
  const processes: HeraldProcess[] = [];
  const worker = async () => {
    const p = spawnHerald(['worker'], stack.workerEnv());
    processes.push(p);
    await p.waitFor('worker polling');
    return p;
  };

  before(async () => {
    stack = await createTestStack({
      worker: false,
      configYaml: (fake) =>
        [
          `# fake provider at ${fake.url}`,
          'sandbox:',
          `  readablePaths: [${SERVER_MODULES.map((p) => JSON.stringify(p)).join(', ')}]`,
          'mcp:',
          '  servers:',
          '    everything:',
          '      command: node',
          `      args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]`,
          '',
        ].join('\n'),
    });
  });
  after(async () => {
    for (const p of processes) p.kill();
    await stack.close();
  });

  it('runs the call again on a new worker and the transcript says so', async () => {
    const ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    stack.fake.script([
      { toolCalls: [{ name: 'mcp_everything_trigger-long-running-operation', arguments: { duration: 4, steps: 4 } }] },
      { text: 'Finished.' },
    ]);
    const first = await worker();
    const conv = stack.herald.conversation('mcp-crash');
    const pending = conv.send('run the long operation', { start: { cwd: ws } });
    await eventually(async () => (await stack.events('mcp-crash')).some((e) => e.kind === 'tool.started'), 60_000);
    first.kill('SIGKILL');
    await worker();
    const r = await pending;
    assert.equal(r.final_response, 'Finished.');
    const tool = (await stack.transcript('mcp-crash')).find((m) => m.role === 'tool')!;
    assert.match(tool.content!, /re-executed after worker restart/);
    assert.match(tool.content!, /Long running operation completed/);
  });
});
