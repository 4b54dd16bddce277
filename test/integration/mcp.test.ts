/**
 * MCP servers (docs/mcp.md), against real servers from npm that nobody here wrote —
 * `@modelcontextprotocol/server-everything` and `@modelcontextprotocol/server-filesystem` — driven
 * by the fake provider: tools offered under `mcp_<server>_<tool>`, results reaching the next
 * request, calls labelled in the Web UI, errors, structured content, resources, `/stop`
 * cancelling a long call, a server that cannot start leaving the conversation working.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import type { RecordedRequest } from '../support/fake-provider.js';
import { runHerald } from '../support/processes.js';
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, SERVER_MODULES } from '../support/mcp-servers.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

type WireMessage = { role: string; content: string | null; tool_calls?: unknown[] };
type WireTool = { type: string; function: { name: string; description: string; parameters: Record<string, unknown> } };
const messagesOf = (r: RecordedRequest) => r.body.messages as WireMessage[];
const toolsOf = (r: RecordedRequest) => (r.body.tools as WireTool[] | undefined) ?? [];
const lastTool = (r: RecordedRequest) =>
  messagesOf(r)
    .filter((m) => m.role === 'tool')
    .at(-1)?.content ?? '';
const TAG = `herald-mcp-test-${process.pid}`;
const decode = (p: Payload | null | undefined): unknown => (p ? defaultPayloadConverter.fromPayload(p) : undefined);

describe('MCP servers', () => {
  let stack: TestStack;
  let ws: string;
  let files: string;
  let outside: string;

  before(async () => {
    const root = join(process.env.TMPDIR ?? '/tmp', `herald-mcp-${process.pid}`);
    ws = join(root, 'ws');
    files = join(root, 'files');
    mkdirSync(ws, { recursive: true });
    mkdirSync(files, { recursive: true });
    outside = join(root, 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(files, 'notes.txt'), 'the launch code is tangerine\n');
    stack = await createTestStack({
      workspaceRoots: [ws],
      env: { ANTHROPIC_API_KEY: 'sk-ant-test-mcp', OPENAI_API_KEY: 'sk-test-mcp' },
      configYaml: [
        'sandbox:',
        `  readablePaths: [${SERVER_MODULES.map((p) => JSON.stringify(p)).join(', ')}]`,
        'mcp:',
        '  servers:',
        '    everything:',
        '      command: node',
        // The last argument (ignored by the server) tells this file's server processes apart.
        `      args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio, ${TAG}]`,
        `      cwd: ${JSON.stringify(ws)}`,
        '      exclude: [get-env]',
        '      approval: { get-annotated-message: always }',
        '    fs:',
        '      command: node',
        `      args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(files)}]`,
        `      cwd: ${JSON.stringify(files)}`,
        '      include: [read_text_file, list_directory]',
        // A stdio server runs in the tool sandbox: a folder outside its cwd is not there for it.
        '    jailed:',
        '      command: node',
        `      args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(outside)}]`,
        `      cwd: ${JSON.stringify(files)}`,
        '      include: [list_directory]',
        '    broken:',
        '      command: /nonexistent/mcp-server',
        '      connectTimeoutSeconds: 5',
        '',
      ].join('\n'),
    });
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  it('/reload-mcp lists the tools again; a list-changed notification is followed before the next turn', async () => {
    stack.fake.script([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
    const conv = stack.herald.conversation('mcp-reload');
    await conv.send('hello', { start: { cwd: ws } });
    // server-everything registers its client-dependent tools once initialised and announces them
    // with notifications/tools/list_changed: the conversation discovers again before the next turn.
    // (The first test of the file: the worker's first connection to the server is this
    // conversation's.) On a loaded machine the notice can land after turn 2 has begun: then it is
    // followed before turn 3.
    const scheduled = async () =>
      (await stack.temporal.workflow.getHandle(conv.workflowId).fetchHistory())
        .events!.filter((e) => e.activityTaskScheduledEventAttributes)
        .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
    await conv.send('again');
    if (!(await scheduled()).includes('discoverMcpTools')) await conv.send('and again');
    const activities = await scheduled();
    assert.ok(activities.includes('discoverMcpTools'), activities.join(', '));
    const before = activities.filter((a) => a === 'discoverMcpTools').length;
    const reloaded = await conv.reloadTools();
    assert.ok(reloaded.tools.includes('mcp_everything_echo'));
    assert.equal(reloaded.servers.find((s) => s.name === 'broken')?.status, 'failed');
    const after = (await stack.temporal.workflow.getHandle(conv.workflowId).fetchHistory()).events!.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'discoverMcpTools',
    ).length;
    assert.equal(after, before + 1);
    // The tools the model is offered come from the snapshot in workflow state.
    assert.ok(toolsOf(stack.fake.requests[1]!).some((t) => t.function.name === 'mcp_everything_echo'));
  });

  it('offers the servers’ tools, runs a call, and its result reaches the next request', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'hello from herald' } }] },
      { text: 'It echoed.' },
    ]);
    const conv = stack.herald.conversation('mcp-echo');
    const r = await conv.send('echo something', { start: { cwd: ws } });
    assert.equal(r.final_response, 'It echoed.');
    const offered = toolsOf(stack.fake.requests[0]!).map((t) => t.function.name);
    assert.ok(offered.includes('mcp_everything_echo'), offered.join(', '));
    assert.ok(offered.includes('mcp_everything_get-sum'), offered.join(', '));
    assert.ok(offered.includes('mcp_fs_read_text_file'), offered.join(', '));
    assert.ok(!offered.includes('mcp_everything_get-env'), 'exclude removes a tool');
    assert.ok(!offered.includes('mcp_fs_write_file'), 'include keeps only the listed tools');
    assert.ok(offered.includes('read_file'), 'built-in tools stay');
    const echo = toolsOf(stack.fake.requests[0]!).find((t) => t.function.name === 'mcp_everything_echo')!;
    assert.equal(echo.function.parameters.type, 'object');
    assert.ok((echo.function.parameters.properties as Record<string, unknown>).message);
    // The result is in the next request, framed as data from outside the conversation.
    const result = lastTool(stack.fake.requests[1]!);
    assert.match(result, /Echo: hello from herald/);
    // The server that cannot start: unavailable with its reason, the conversation unaffected.
    const state = await conv.state();
    const broken = state.mcp!.servers.find((s) => s.name === 'broken')!;
    assert.equal(broken.status, 'failed');
    assert.ok(broken.reason && broken.reason.length > 0);
    assert.equal(state.mcp!.servers.find((s) => s.name === 'everything')!.status, 'ready');
    const jailed = state.mcp!.servers.find((s) => s.name === 'jailed')!;
    if (process.env.HERALD_TEST_SANDBOX === 'off') assert.equal(jailed.status, 'ready');
    else {
      assert.equal(jailed.status, 'failed');
      assert.match(jailed.reason!, /None of the specified directories are accessible/);
    }
    const system = messagesOf(stack.fake.requests[0]!)[0]!.content!;
    assert.match(system, /broken: unavailable \(/);
    // The call is an activity labelled with server and tool.
    const history = await stack.temporal.workflow.getHandle(conv.workflowId).fetchHistory();
    const labels = history
      .events!.filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => String(decode(e.userMetadata?.summary)));
    assert.ok(
      labels.some((l) => l.startsWith('tool mcp everything/echo')),
      labels.join('\n'),
    );
  });

  it('tool errors, structured content and tools without arguments', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'mcp_everything_get-sum', arguments: { a: 'two', b: 3 } }] },
      { toolCalls: [{ name: 'mcp_everything_get-structured-content', arguments: { location: 'Chicago' } }] },
      { toolCalls: [{ name: 'mcp_everything_get-tiny-image', arguments: {} }] },
      { toolCalls: [{ name: 'mcp_everything_get-sum', arguments: { a: 2, b: 3 } }] },
      { text: 'done' },
    ]);
    const conv = stack.herald.conversation('mcp-kinds');
    const r = await conv.send('try the tools', { start: { cwd: ws } });
    assert.equal(r.final_response, 'done');
    const [bad, structured, image, sum] = [1, 2, 3, 4].map((i) => lastTool(stack.fake.requests[i]!));
    assert.match(bad!, /error|invalid|expected/i);
    assert.match(structured!, /temperature/);
    assert.match(image!, /\[image: image\/png, \d+ bytes, not shown\]/);
    assert.match(sum!, /5/);
    const stored = (await stack.transcript('mcp-kinds')).filter((m) => m.role === 'tool');
    assert.equal(stored.length, 4);
  });

  it('reads resources and prompts, and a confined filesystem server', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'mcp_everything_list_resources', arguments: {} }] },
      {
        toolCalls: [
          {
            name: 'mcp_everything_read_resource',
            arguments: { uri: 'demo://resource/static/document/architecture.md' },
          },
        ],
      },
      { toolCalls: [{ name: 'mcp_fs_read_text_file', arguments: { path: join(files, 'notes.txt') } }] },
      { toolCalls: [{ name: 'mcp_fs_read_text_file', arguments: { path: '/etc/hostname' } }] },
      { toolCalls: [{ name: 'mcp_everything_list_prompts', arguments: {} }] },
      { toolCalls: [{ name: 'mcp_everything_get_prompt', arguments: { name: 'simple-prompt' } }] },
      { text: 'read' },
    ]);
    const conv = stack.herald.conversation('mcp-resources');
    await conv.send('read things', { start: { cwd: ws } });
    const [list, read, notes, outside, prompts, prompt] = [1, 2, 3, 4, 5, 6].map((i) =>
      lastTool(stack.fake.requests[i]!),
    );
    assert.match(prompts!, /simple-prompt\(\)/);
    assert.match(prompt!, /\[user\]\n/);
    assert.match(list!, /demo:\/\//);
    assert.match(read!, /\[resource demo:\/\//);
    assert.match(notes!, /tangerine/);
    assert.match(outside!, /denied|outside|not allowed/i);
  });

  it('/stop cancels a long-running MCP call and the conversation goes on', async () => {
    stack.fake.script([
      {
        toolCalls: [{ name: 'mcp_everything_trigger-long-running-operation', arguments: { duration: 60, steps: 60 } }],
      },
    ]);
    const conv = stack.herald.conversation('mcp-stop');
    const pending = conv.send('run the long operation', { start: { cwd: ws } });
    await eventually(async () => (await stack.events('mcp-stop')).some((e) => e.kind === 'tool.started'), 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    const stoppedAt = Date.now();
    await conv.stop();
    const r = await pending;
    assert.equal(r.interrupted, true);
    assert.ok(Date.now() - stoppedAt < 10_000, 'the call stopped promptly');
    const completed = (await stack.events('mcp-stop')).find((e) => e.kind === 'tool.completed');
    assert.equal(completed?.payload.cancelled, true);
    stack.fake.reset();
    stack.fake.script([
      { toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'still here' } }] },
      { text: 'ok' },
    ]);
    const next = await conv.send('again');
    assert.equal(next.final_response, 'ok');
    assert.match(lastTool(stack.fake.requests[1]!), /still here/);
  });

  it('a tool the config marks for approval waits for a person', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'mcp_everything_get-annotated-message', arguments: { messageType: 'success' } }] },
      { text: 'approved and ran' },
    ]);
    const conv = stack.herald.conversation('mcp-approval');
    const pending = conv.send('show an annotated message', { start: { cwd: ws } });
    const request = await eventually(async () => (await conv.state()).pending_approvals[0], 30_000);
    assert.equal(request.tool, 'mcp_everything_get-annotated-message');
    assert.match(request.reason, /needs approval/);
    await conv.approve(request.request_id, 'once');
    const r = await pending;
    assert.equal(r.final_response, 'approved and ran');
    assert.match(lastTool(stack.fake.requests[1]!), /success|operation/i);
  });

  it('a stdio server that dies is started again for the next call', async () => {
    const servers = () =>
      execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.includes(TAG) && !l.includes('bwrap'))
        .map((l) => Number(l.trim().split(/\s+/)[0]));
    const before = servers();
    assert.ok(before.length > 0, 'the server runs');
    for (const pid of before) process.kill(pid, 'SIGKILL');
    await eventually(() => servers().every((p) => !before.includes(p)));
    await new Promise((r) => setTimeout(r, 300));
    stack.fake.script([
      { toolCalls: [{ name: 'mcp_everything_echo', arguments: { message: 'back again' } }] },
      { text: 'ok' },
    ]);
    const conv = stack.herald.conversation('mcp-restart');
    const r = await conv.send('echo after the crash', { start: { cwd: ws } });
    assert.equal(r.final_response, 'ok');
    assert.match(lastTool(stack.fake.requests[1]!), /Echo: back again/);
    assert.ok(
      servers().some((p) => !before.includes(p)),
      'a new server process',
    );
  });

  it('passes the input schemas through in every API mode', async () => {
    const modes = [
      { provider: 'anthropic' as const, model: 'm-claude', baseUrl: stack.fake.anthropicUrl, path: '/v1/messages' },
      { provider: 'openai-codex' as const, model: 'm-codex', baseUrl: stack.fake.url, path: '/responses' },
    ];
    for (const m of modes) {
      stack.fake.reset();
      stack.fake.script(
        [{ toolCalls: [{ name: 'mcp_everything_get-sum', arguments: { a: 1, b: 2 } }] }, { text: 'three' }],
        m.model,
      );
      const conv = stack.herald.conversation(`mcp-mode-${m.provider}`);
      const r = await conv.send('add', {
        start: { provider: m.provider, model: m.model, baseUrl: m.baseUrl, cwd: ws },
      });
      assert.equal(r.final_response, 'three');
      const first = stack.fake.requests[0]!;
      assert.ok(first.path.endsWith(m.path), first.path);
      const tools = first.body.tools as Array<Record<string, unknown>>;
      const sum = tools.find((t) => t.name === 'mcp_everything_get-sum')!;
      const schema = (m.provider === 'anthropic' ? sum.input_schema : sum.parameters) as Record<string, unknown>;
      assert.equal(schema.type, 'object');
      assert.deepEqual(Object.keys(schema.properties as object).sort(), ['a', 'b']);
      assert.match(JSON.stringify(stack.fake.requests[1]!.body), /3/);
    }
  });

  it('herald mcp list|test and herald tools show the servers, their status and tools', async () => {
    const env = stack.workerEnv();
    const list = await runHerald(['mcp', 'list', '--json'], env);
    assert.equal(list.code, 0, list.stderr);
    const probes = JSON.parse(list.stdout) as Array<{
      name: string;
      status: string;
      reason?: string;
      tools: Array<{ name: string }>;
    }>;
    const byName = new Map(probes.map((p) => [p.name, p]));
    assert.equal(byName.get('everything')?.status, 'ready');
    assert.ok(byName.get('everything')!.tools.some((t) => t.name === 'mcp_everything_echo'));
    assert.equal(byName.get('fs')?.tools.length, 2);
    assert.equal(byName.get('broken')?.status, 'failed');
    const test = await runHerald(['mcp', 'test', 'broken'], env);
    assert.equal(test.code, 1);
    assert.match(test.stdout, /broken \(stdio\): failed — .*nonexistent/);
    const tools = await runHerald(['tools'], env);
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, /MCP servers:/);
    assert.match(tools.stdout, /mcp_fs_read_text_file/);
  });
});
