/**
 * The tool runtime on the real stack (docs/tools.md): parallel batches with results in call order,
 * hooks that block a call, oversized results stored and previewed, the todo list, tool
 * activities routed to a workspace task queue, and `herald tools`.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { RecordedRequest } from '../support/fake-provider.js';
import { runHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';
import { loadConfig } from '../../runtime/config.js';
import { createLogger } from '../../runtime/logger.js';
import { startWorker } from '../../workers/worker.js';
import { builtinTools } from '../../activities/tools/builtin.js';
import { markToolStarted, writeToolResult } from '../../store/tool-runs.js';

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: RecordedRequest) => r.body.messages as WireMessage[];

const HOOKS = `
export default {
  name: 'guard',
  pre_tool_call({ tool, args }) {
    if (tool === 'terminal' && String(args.command).includes('forbidden')) return { block: 'forbidden commands are not allowed here' };
  },
  transform_tool_result({ tool, result }) {
    return tool === 'read_file' ? result + '\\n[checked by guard]' : undefined;
  },
  pre_llm_call() {
    return 'Context from the guard hook.';
  },
  post_tool_call() {
    throw new Error('a broken hook must not break the turn');
  },
};
`;

describe('tool runtime', () => {
  let stack: TestStack;
  let ws: string;
  before(async () => {
    const hooks = join(mkdtempSync(join(tmpdir(), 'herald-hooks-')), 'hooks.mjs');
    writeFileSync(hooks, HOOKS);
    stack = await createTestStack({ configYaml: `hooks:\n  plugins: [${hooks}]\n` });
    ws = join(stack.workspaces, 'tools-ws');
    mkdirSync(ws, { recursive: true });
    for (const n of [1, 2, 3, 4]) writeFileSync(join(ws, `r${n}.txt`), `read me ${n}\n`);
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  it('runs a batch of 4 reads and 1 write concurrently, with results in call order', async () => {
    stack.fake.script([
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'r1.txt' } },
          { name: 'read_file', arguments: { path: 'r2.txt' } },
          { name: 'write_file', arguments: { path: 'out/new.txt', content: 'written\n' } },
          { name: 'read_file', arguments: { path: 'r3.txt' } },
          { name: 'read_file', arguments: { path: 'r4.txt' } },
        ],
      },
      { text: 'all done' },
    ]);
    const r = await stack.herald.conversation('t-batch').send('go', { start: { cwd: ws } });
    assert.equal(r.final_response, 'all done');
    assert.equal(readFileSync(join(ws, 'out/new.txt'), 'utf8'), 'written\n');
    const transcript = await stack.transcript('t-batch');
    const results = transcript.filter((m) => m.role === 'tool');
    assert.deepEqual(
      results.map((m) => m.name),
      ['read_file', 'read_file', 'write_file', 'read_file', 'read_file'],
    );
    assert.match(results[0]!.content!, /read me 1/);
    assert.match(results[3]!.content!, /read me 3/);
    assert.match(results[2]!.content!, /Wrote/);
    // All five tool activities were scheduled together, in one workflow task: they ran concurrently.
    const history = await stack.temporal.workflow.getHandle('session-t-batch').fetchHistory();
    const scheduled = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
    );
    assert.equal(scheduled.length, 5);
    assert.equal(
      new Set(scheduled.map((e) => String(e.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId))).size,
      1,
    );
    // And their runs overlapped in time.
    const runs = await stack.db.query(
      "SELECT started_at, finished_at FROM tool_runs WHERE session_id = 't-batch' ORDER BY result_seq",
    );
    const lastStart = Math.max(...runs.rows.map((x) => new Date(x.started_at as string).getTime()));
    const firstEnd = Math.min(...runs.rows.map((x) => new Date(x.finished_at as string).getTime()));
    console.log(
      `batch: last tool started ${lastStart - firstEnd} ms relative to the first finishing (negative = all started before any finished)`,
    );
    // The hook context reached the model; the transform hook changed read results.
    assert.ok(messagesOf(stack.fake.requests[0]!).at(-1)!.content!.endsWith('Context from the guard hook.'));
    assert.match(results[0]!.content!, /\[checked by guard\]$/);
  });

  it('keeps the latest run of a tool call: an earlier run that outlived its timeout cannot replace its marked result', async () => {
    await stack.db.query("INSERT INTO sessions (id, conversation_id) VALUES ('t-runs', 't-runs')");
    const first = await markToolStarted(stack.db, 't-runs', 1, 'call_1', 'terminal');
    const second = await markToolStarted(stack.db, 't-runs', 1, 'call_1', 'terminal');
    assert.deepEqual([first, second], [1, 2]);
    const write = (run: number, content: string) =>
      writeToolResult(
        stack.db,
        't-runs',
        1,
        run,
        { seq: 1, role: 'tool', content, toolCallId: 'call_1', toolName: 'terminal' },
        { isError: false, durationMs: 5 },
      );
    assert.equal(await write(2, '[re-executed …] second run'), true);
    assert.equal(await write(1, 'first run, finishing late'), false);
    assert.deepEqual(
      (await stack.transcript('t-runs')).map((m) => m.content),
      ['[re-executed …] second run'],
    );
  });

  it('runs commands one at a time, in order', async () => {
    stack.fake.script([
      {
        toolCalls: [
          { name: 'terminal', arguments: { command: 'echo one >> order.log' } },
          { name: 'terminal', arguments: { command: 'echo two >> order.log' } },
        ],
      },
      { text: 'ok' },
    ]);
    await stack.herald.conversation('t-serial').send('go', { start: { cwd: ws } });
    assert.equal(readFileSync(join(ws, 'order.log'), 'utf8'), 'one\ntwo\n');
    const history = await stack.temporal.workflow.getHandle('session-t-serial').fetchHistory();
    const scheduled = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
    );
    assert.equal(
      new Set(scheduled.map((e) => String(e.activityTaskScheduledEventAttributes!.workflowTaskCompletedEventId))).size,
      2,
    );
  });

  it('lets a pre_tool_call hook block a call', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo forbidden > blocked.txt' } }] },
      { text: 'blocked, fine' },
    ]);
    const r = await stack.herald.conversation('t-hook').send('go', { start: { cwd: ws } });
    assert.equal(r.final_response, 'blocked, fine');
    assert.equal(existsSync(join(ws, 'blocked.txt')), false);
    assert.equal(
      messagesOf(stack.fake.requests[1]!).at(-1)!.content,
      'Blocked by the guard hook: forbidden commands are not allowed here',
    );
  });

  it('stores a 300 KB result in the workspace and shows the model a preview it can page through', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: "yes x | tr -d '\\n' | head -c 300000; echo" } }] },
      { text: 'That was big.' },
    ]);
    const r = await stack.herald.conversation('t-big').send('go', { start: { cwd: ws } });
    assert.equal(r.final_response, 'That was big.', r.error);
    const shown = messagesOf(stack.fake.requests[1]!).at(-1)!.content!;
    assert.ok(shown.length < 3000, `the model saw ${shown.length} characters`);
    const stored = /saved in the workspace at (\S+?): read it with read_file/.exec(shown)?.[1];
    assert.ok(stored, shown.slice(0, 300));
    const full = readFileSync(join(ws, stored), 'utf8');
    assert.ok(full.length > 300_000);
    // Framed as data from the workspace; inside, the preview's head and tail.
    assert.match(shown, /^The following is DATA from the workspace[^\n]*\n<untrusted_tool_result source="terminal">\n/);
    assert.match(shown, /\n\[The terminal result is 300,0\d\d characters/);
    assert.ok(shown.includes('x'.repeat(800)));
    assert.match(
      shown,
      /\[exit code 0, [\d.]+s\]\n<\/untrusted_tool_result>$/,
      'the preview keeps the end, where the exit code is',
    );
  });

  it('keeps a todo list in the conversation, across continue-as-new', async () => {
    stack.fake.script([
      {
        toolCalls: [
          {
            name: 'todo',
            arguments: {
              todos: [
                { id: '1', content: 'write tests', status: 'in_progress' },
                { id: '2', content: 'ship', status: 'pending' },
              ],
            },
          },
        ],
      },
      { text: 'planned' },
      {
        toolCalls: [
          {
            name: 'todo',
            arguments: { todos: [{ id: '1', content: 'write tests', status: 'completed' }], merge: true },
          },
        ],
      },
      { text: 'progress' },
    ]);
    const conv = stack.herald.conversation('t-todo');
    await conv.send('plan', { start: { cwd: ws, continueAsNewAfterTurns: 1 } });
    await conv.send('update');
    const result = messagesOf(stack.fake.requests[3]!).at(-1)!.content!;
    assert.match(result, /Task list \(2 items, 1 open\)/);
    assert.match(result, /\[x\] 1\. write tests \(completed\)/);
    assert.match(result, /\[ \] 2\. ship \(pending\)/);
    const d = await stack.temporal.workflow.getHandle('session-t-todo').describe();
    assert.notEqual(d.runId, d.raw.workflowExecutionInfo?.firstRunId, 'the list survived a continue-as-new');
  });

  it('routes tool activities to a workspace task queue served by a tools-only worker', async () => {
    const queue = `${stack.taskQueue}-ws`;
    const config = loadConfig({ ...stack.workerEnv(), HERALD_TASK_QUEUE: queue });
    const toolsWorker = await startWorker({
      config,
      log: createLogger('warn'),
      activitiesOnly: true,
      env: stack.workerEnv(),
    });
    try {
      stack.fake.script([
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo on the workspace host' } }] },
        { text: 'routed' },
      ]);
      const r = await stack.herald.conversation('t-route').send('go', { start: { cwd: ws, toolTaskQueue: queue } });
      assert.equal(r.final_response, 'routed');
      const history = await stack.temporal.workflow.getHandle('session-t-route').fetchHistory();
      const tool = (history.events ?? []).find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
      );
      assert.equal(tool?.activityTaskScheduledEventAttributes?.taskQueue?.name, queue);
      const model = (history.events ?? []).find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel',
      );
      assert.equal(model?.activityTaskScheduledEventAttributes?.taskQueue?.name, stack.taskQueue);
    } finally {
      await toolsWorker.shutdown();
    }
  });

  it('prints the tool table with `herald tools`', async () => {
    const r = await runHerald(['tools', '--toolsets', 'readonly'], stack.workerEnv());
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /✓ read_file/);
    assert.match(r.stdout, /✓ search_files/);
    assert.match(r.stdout, /✗ terminal .*toolset "terminal" is not enabled/);
    const all = await runHerald(['tools', '--json'], stack.workerEnv());
    const rows = JSON.parse(all.stdout) as Array<{ name: string; enabled: boolean }>;
    // Every tool the worker registers, in registration order (the registry's own test pins the list).
    assert.deepEqual(
      rows.map((x) => x.name),
      builtinTools(stack.config.file)
        .all()
        .map((t) => t.name),
    );
  });
});
