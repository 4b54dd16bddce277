/**
 * Durability: the worker process is killed (SIGKILL) in the middle of a turn, a new one starts,
 * and the turn finishes with no duplicated and no missing messages — child agents included.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseDelegationResult } from '../../common/delegation.js';
import { isValidOrder } from '../../shared/role-order.js';
import type { RecordedRequest, ScriptedReply } from '../support/fake-provider.js';
import type { HeraldProcess } from '../support/processes.js';
import { spawnHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';
import { renderUsage, usageReport } from '../../client/usage.js';

async function worker(stack: TestStack, env: Record<string, string> = {}): Promise<HeraldProcess> {
  const p = spawnHerald(['worker'], { ...stack.workerEnv(), ...env });
  await p.waitFor('worker polling');
  return p;
}

describe('worker crash mid-turn', () => {
  let stack: TestStack;
  const processes: HeraldProcess[] = [];
  before(async () => {
    stack = await createTestStack({ worker: false });
  });
  after(async () => {
    for (const p of processes) p.kill();
    await stack.close();
  });

  it('finishes the turn on a new worker after a kill during the model call and during a tool', async () => {
    const workspace = join(stack.workspaces, 'crash-ws');
    mkdirSync(workspace, { recursive: true });
    stack.fake.script([
      { text: 'this reply never arrives', delayMs: 60_000 },
      {
        text: 'Running it.',
        toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 2; echo ran >> runs.log; cat runs.log' } }],
      },
      { text: 'All done.' },
    ]);
    const first = await worker(stack);
    processes.push(first);
    const conv = stack.herald.conversation('crash');
    const pending = conv.send('please do the thing', { id: 'crash-1', start: { cwd: workspace } });

    // Kill while the model call is in flight.
    const req = await stack.fake.waitForRequests(1);
    first.kill('SIGKILL');
    await eventually(() => req.abortedAt !== undefined);
    const second = await worker(stack);
    processes.push(second);

    // Kill again while the terminal tool runs.
    await eventually(async () => (await stack.events('crash')).some((e) => e.kind === 'tool.started'), 60_000);
    second.kill('SIGKILL');
    processes.push(await worker(stack));

    const result = await pending;
    assert.equal(result.final_response, 'All done.');
    assert.equal(result.completed, true);

    const transcript = await stack.transcript('crash');
    assert.deepEqual(
      transcript.map((m) => `${m.seq}:${m.role}`),
      ['0:user', '1:assistant', '2:tool', '3:assistant'],
    );
    assert.ok(isValidOrder(transcript));
    assert.equal(transcript[1]!.content, 'Running it.');
    // The tool ran again (at-least-once) and the transcript says so instead of hiding it. Sandboxed,
    // the first run died with its worker (every descendant dies with the call), so it left no effect;
    // unsandboxed, the orphaned first run finished on its own.
    assert.match(transcript[2]!.content!, /re-executed after worker restart/);
    if (process.env.HERALD_TEST_SANDBOX === 'off') assert.match(transcript[2]!.content!, /ran\nran/);
    else assert.match(transcript[2]!.content!, /\nran\n\[exit code 0/);
    assert.equal(transcript[3]!.content, 'All done.');
    stack.fake.assertDone();
  });

  it('finishes a delegation on a new worker: each child agent runs once and reports once', async () => {
    const workspace = join(stack.workspaces, 'crash-delegation');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'one.txt'), 'first file\n');
    writeFileSync(join(workspace, 'two.txt'), 'second file\n');
    type Wire = { role: string; content: string | null };
    const briefOf = (r: RecordedRequest) =>
      (r.body.messages as Wire[]).find((m) => m.role === 'user' && m.content?.startsWith('YOUR TASK'))?.content;
    const stalled = new Set<string>();
    stack.fake.reset().respond((r): ScriptedReply => {
      const last = (r.body.messages as Wire[]).at(-1)!;
      const brief = briefOf(r);
      if (brief) {
        const file = /\w+\.txt/.exec(brief)![0];
        // Each child's first model call hangs until the worker is killed under it.
        if (!stalled.has(file)) {
          stalled.add(file);
          return { text: 'never arrives', delayMs: 60_000 };
        }
        if (last.role === 'user') return { toolCalls: [{ name: 'read_file', arguments: { path: file } }] };
        return { text: `${file}: ${(last.content ?? '').split('\n')[0]!.replace(/^\s*\d+\t/, '')}` };
      }
      if (last.role === 'user')
        return {
          toolCalls: [
            { name: 'delegate_task', arguments: { tasks: [{ goal: 'Read one.txt' }, { goal: 'Read two.txt' }] } },
          ],
        };
      return { text: 'Both files read by the children.' };
    });
    // Only workers this test controls: the previous test's survivor would run the children's calls.
    for (const p of processes.splice(0)) p.kill();
    const first = await worker(stack);
    processes.push(first);
    const conv = stack.herald.conversation('crash-delegation');
    const pending = conv.send('read both files via children', { id: 'cd-1', start: { cwd: workspace } });
    await eventually(() => stalled.size === 2, 60_000);
    first.kill('SIGKILL');
    processes.push(await worker(stack));

    const result = await pending;
    assert.equal(result.final_response, 'Both files read by the children.');
    const parent = await stack.transcript('crash-delegation');
    assert.ok(isValidOrder(parent));
    const reports = parent.filter((m) => m.role === 'tool');
    assert.equal(reports.length, 1, 'one delegate_task result');
    const text = reports[0]!.content!;
    const results = parseDelegationResult(text);
    assert.deepEqual(
      results.map((x) => [x.status, x.summary]),
      [
        ['completed', 'one.txt: first file'],
        ['completed', 'two.txt: second file'],
      ],
    );
    // One child session per task, each with one brief and one final report.
    const children = await stack.db.query<{ id: string }>(
      "SELECT id FROM sessions WHERE parent_id = 'crash-delegation' ORDER BY id",
    );
    assert.equal(children.rows.length, 2);
    for (const { id } of children.rows) {
      const t = await stack.transcript(id);
      assert.ok(isValidOrder(t));
      assert.deepEqual(
        t.map((m) => m.role),
        ['user', 'assistant', 'tool', 'assistant'],
      );
    }
  });

  it('a worker stopped by SIGTERM (a deploy) lets a running 15 s tool finish once, and the turn goes on elsewhere', async () => {
    for (const p of processes.splice(0)) p.kill();
    const workspace = join(stack.workspaces, 'deploy-ws');
    mkdirSync(workspace, { recursive: true });
    stack.fake
      .reset()
      .script([
        { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 15; echo ran >> runs.log; cat runs.log' } }] },
        { text: 'Finished.' },
      ]);
    // The production grace (the stack's own workers use 5 s so that tests close quickly).
    const leaving = await worker(stack, { HERALD_SHUTDOWN_GRACE_SECONDS: '55' });
    processes.push(leaving);
    const pending = stack.herald
      .conversation('graceful')
      .send('run the slow thing', { id: 'g-1', start: { cwd: workspace } });
    await eventually(async () => (await stack.events('graceful')).some((e) => e.kind === 'tool.started'), 60_000);
    // The new pod is up before the old one is told to stop, as in a rolling update.
    processes.push(await worker(stack));
    leaving.kill('SIGTERM');
    const result = await pending;
    assert.equal(result.final_response, 'Finished.');
    assert.equal(await leaving.exited, 0, 'the stopping worker exits cleanly once its tool is done');
    const tool = (await stack.transcript('graceful')).find((m) => m.role === 'tool')!;
    assert.doesNotMatch(tool.content!, /re-executed/);
    assert.match(tool.content!, /^ran\n\[exit code 0|\nran\n\[exit code 0|^ran$/m);
    assert.equal((tool.content!.match(/^ran$/gm) ?? []).length, 1, 'the tool ran once');
  });

  it('puts every provider request on the ledger, the ones killed with their worker marked lost', async () => {
    for (const p of processes.splice(0)) p.kill();
    stack.fake
      .reset()
      .script([
        { text: 'this reply never arrives', delayMs: 60_000 },
        { text: 'nor does this one', delayMs: 60_000 },
        { text: 'Paid for, and counted.' },
      ]);
    const workspace = join(stack.workspaces, 'crash-ledger');
    mkdirSync(workspace, { recursive: true });
    const first = await worker(stack);
    processes.push(first);
    const pending = stack.herald
      .conversation('crash-ledger')
      .send('count every request', { id: 'cl-1', start: { cwd: workspace } });
    // Killed twice in the middle of the model's stream: each killed request was sent, so it is paid for.
    for (const n of [1, 2]) {
      const p = n === 1 ? first : await worker(stack);
      if (n > 1) processes.push(p);
      const req = await stack.fake.waitForRequests(n, 60_000);
      p.kill('SIGKILL');
      await eventually(() => req.abortedAt !== undefined);
    }
    processes.push(await worker(stack));
    const result = await pending;
    assert.equal(result.final_response, 'Paid for, and counted.');

    const rows = await stack.db.query<{ outcome: string; request_bytes: number | null }>(
      "SELECT outcome, request_bytes FROM model_calls WHERE conversation_id = 'crash-ledger' ORDER BY created_at",
    );
    assert.equal(rows.rows.length, stack.fake.requests.length, 'one ledger row per provider request');
    assert.deepEqual(
      rows.rows.map((r) => r.outcome),
      ['lost', 'lost', 'ok'],
    );
    for (const r of rows.rows) assert.ok((r.request_bytes ?? 0) > 0, 'the size of what was sent is known');
    assert.equal(result.api_calls, 3, "the turn's api_calls count the lost requests too");
    const usage = renderUsage(await usageReport(stack.db, 'crash-ledger'));
    assert.match(usage, /lost \(worker died; [\d.]+ kB sent at \d\d:\d\d:\d\dZ\)/);
    assert.match(usage, /total: 3 HTTP attempts \(1 ok, 0 failed, 0 cancelled, 2 lost\)/);
  });
});
