/**
 * Every HTTP attempt is accounted (issue 14): the usage ledger holds one row per request the
 * provider received, through activity retries, fallbacks and whole-chain retries at the same step,
 * with each outcome and the usage the provider reported (a cut stream included), and `herald usage`
 * prints them through the real CLI.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { StartOptions } from '../../client/client.js';
import { runHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

const ANTHROPIC_KEY = 'sk-ant-test-0123456789abcdef';

interface Row {
  model: string;
  step: number;
  attempt: number;
  outcome: string;
  error_type: string | null;
  input_tokens: string;
  output_tokens: string;
}

describe('usage ledger: one row per HTTP attempt', () => {
  let stack: TestStack;
  let ws: string;
  let withBackup: StartOptions;

  before(async () => {
    stack = await createTestStack({
      env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY },
      configYaml: 'retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\n',
    });
    ws = join(stack.home, 'ws');
    mkdirSync(ws, { recursive: true });
    withBackup = {
      cwd: ws,
      fallbackProviders: [{ provider: 'custom', model: 'backup-model', baseUrl: stack.fake.url }],
    };
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  const ledger = async (conversation: string) =>
    (
      await stack.db.query<Row>(
        `SELECT model, step, attempt, outcome, error_type, input_tokens::text, output_tokens::text
           FROM model_calls WHERE conversation_id = $1 ORDER BY created_at`,
        [conversation],
      )
    ).rows;

  it('a call retried twice that then falls back leaves one row per request, and herald usage lists them', async () => {
    stack.fake.script([{ status: 500 }, { status: 500 }, { status: 500 }], 'fake-model');
    stack.fake.script([{ text: 'answered by the backup', usage: { prompt: 120, completion: 7 } }], 'backup-model');
    const r = await stack.herald.conversation('u-fallback').send('hello', { start: withBackup });
    assert.equal(r.final_response, 'answered by the backup');
    assert.equal(r.api_calls, 1, "the turn's api_calls counts the calls that succeeded");

    const rows = await ledger('u-fallback');
    assert.equal(rows.length, stack.fake.requests.length, 'one ledger row per request the provider received');
    assert.equal(rows.length, 4);
    assert.deepEqual(
      rows.map((x) => [x.model, x.step, x.attempt, x.outcome, x.error_type]),
      [
        ['fake-model', 1, 1, 'error', 'server_error'],
        ['fake-model', 1, 2, 'error', 'server_error'],
        ['fake-model', 1, 3, 'error', 'server_error'],
        // The fallback is a new activity at the same step: Temporal's attempt is 1 again, and the row is kept.
        ['backup-model', 1, 1, 'ok', null],
      ],
    );
    assert.deepEqual([rows[3]!.input_tokens, rows[3]!.output_tokens], ['120', '7']);

    const cli = await runHerald(['usage', 'u-fallback'], stack.workerEnv());
    assert.equal(cli.code, 0, cli.stderr);
    const lines = cli.stdout.trimEnd().split('\n');
    assert.match(
      lines[0]!,
      /^TURN\s+STEP\s+ATTEMPT\s+PROVIDER\/MODEL\s+OUTCOME\s+INPUT\s+OUTPUT\s+CACHED\s+COST\s+TIME$/,
    );
    assert.equal(lines.length, 1 + 4 + 1, cli.stdout);
    for (const [i, line] of lines.slice(1, 4).entries())
      assert.match(line, new RegExp(`^\\s*1\\s+1\\s+${i + 1}\\s+custom/fake-model\\s+failed \\(server_error\\)\\s`));
    assert.match(lines[4]!, /^\s*1\s+1\s+4\s+custom\/backup-model\s+ok\s+120\s+7\s/);
    assert.match(lines[5]!, /^total: 4 HTTP attempts \(1 ok, 3 failed, 0 cancelled\) · 120 input \+ 7 output tokens/);

    const json = await runHerald(['usage', 'u-fallback', '--json'], stack.workerEnv());
    const report = JSON.parse(json.stdout) as {
      attempts: { try: number; outcome: string }[];
      totals: { attempts: number };
    };
    assert.equal(report.totals.attempts, 4);
    assert.deepEqual(
      report.attempts.map((a) => a.try),
      [1, 2, 3, 4],
    );
  });

  it('a whole-chain retry at the same step repeats no key: every request of both rounds is a row', async () => {
    stack.fake.script(
      [{ status: 500 }, { status: 500 }, { status: 500 }, { text: 'second round worked' }],
      'fake-model',
    );
    stack.fake.script([{ status: 503 }, { status: 503 }, { status: 503 }], 'backup-model');
    const r = await stack.herald.conversation('u-chain').send('hello', { start: withBackup });
    assert.equal(r.final_response, 'second round worked');
    const rows = await ledger('u-chain');
    assert.equal(stack.fake.requests.length, 7);
    assert.equal(rows.length, 7, 'one ledger row per request the provider received');
    assert.deepEqual(
      rows.map((x) => `${x.model}#${x.attempt}:${x.outcome}`),
      [
        'fake-model#1:error',
        'fake-model#2:error',
        'fake-model#3:error',
        'backup-model#1:error',
        'backup-model#2:error',
        'backup-model#3:error',
        'fake-model#1:ok',
      ],
    );
    stack.fake.assertDone();
  });

  it('an attempt whose stream is cut keeps the usage the provider had reported', async () => {
    stack.fake.script([
      { text: 'A partial answer that gets cut off', usage: { prompt: 321 }, cutAfterChunks: 4 },
      { text: 'The whole answer.', usage: { prompt: 321, completion: 5 } },
    ]);
    const r = await stack.herald.conversation('u-cut').send('hello', {
      start: { cwd: ws, provider: 'anthropic', model: 'm-claude', baseUrl: stack.fake.anthropicUrl },
    });
    assert.equal(r.final_response, 'The whole answer.');
    const rows = await ledger('u-cut');
    assert.equal(rows.length, stack.fake.requests.length);
    assert.deepEqual(
      rows.map((x) => [x.outcome, x.input_tokens]),
      [
        ['error', '321'],
        ['ok', '321'],
      ],
    );
    const cli = await runHerald(['usage', 'u-cut'], stack.workerEnv());
    assert.match(cli.stdout, /total: 2 HTTP attempts \(1 ok, 1 failed, 0 cancelled\) · 642 input/);
  });

  it('a stopped call is a cancelled row with the input the provider had reported, counted by herald usage', async () => {
    stack.fake.script([{ text: 'Thinking very slowly about this', usage: { prompt: 250 }, hangAfterChunks: 4 }]);
    const conv = stack.herald.conversation('u-stop');
    const pending = conv.send('take your time', {
      start: { cwd: ws, provider: 'anthropic', model: 'm-claude', baseUrl: stack.fake.anthropicUrl },
    });
    await stack.fake.waitForRequests(1);
    await eventually(async () => (await stack.events('u-stop')).some((e) => e.kind === 'text.delta'));
    await conv.stop('user');
    const r = await pending;
    assert.equal(r.interrupted, true);
    assert.equal(r.api_calls, 0, "the turn's api_calls counts no successful call");
    const rows = await ledger('u-stop');
    assert.deepEqual(
      rows.map((x) => [x.outcome, x.input_tokens]),
      [['cancelled', '250']],
    );
    const cli = await runHerald(['usage', 'u-stop'], stack.workerEnv());
    assert.match(cli.stdout, /\s1\s+anthropic\/m-claude\s+cancelled\s+250\s/);
    assert.match(cli.stdout, /total: 1 HTTP attempt \(0 ok, 0 failed, 1 cancelled\) · 250 input/);
  });

  it("a parent's herald usage includes its child agents' attempts, labelled with their own turn", async () => {
    const isChild = (req: { body: Record<string, unknown> }) =>
      (req.body.messages as { role: string; content: string | null }[]).some(
        (m) => m.role === 'user' && m.content?.startsWith('YOUR TASK'),
      );
    let parentCalls = 0;
    stack.fake.respond((req) => {
      if (isChild(req)) return { text: 'Child report: done.', usage: { prompt: 50, completion: 5 } };
      parentCalls += 1;
      return parentCalls === 1
        ? {
            toolCalls: [{ name: 'delegate_task', arguments: { goal: 'look around' } }],
            usage: { prompt: 80, completion: 8 },
          }
        : { text: 'All done.', usage: { prompt: 90, completion: 9 } };
    });
    const r = await stack.herald.conversation('u-parent').send('delegate it', { start: { cwd: ws } });
    assert.equal(r.final_response, 'All done.');
    const cli = await runHerald(['usage', 'u-parent', '--json'], stack.workerEnv());
    const report = JSON.parse(cli.stdout) as {
      conversation: string;
      attempts: { conversationId: string; turnId: string; outcome: string }[];
      totals: { attempts: number; inputTokens: number };
    };
    assert.equal(report.attempts.length, stack.fake.requests.length);
    assert.equal(report.totals.attempts, 3);
    assert.equal(report.totals.inputTokens, 80 + 50 + 90);
    const child = report.attempts.filter((a) => a.conversationId !== 'u-parent');
    assert.equal(child.length, 1);
    const text = await runHerald(['usage', 'u-parent'], stack.workerEnv());
    assert.ok(
      text.stdout.split('\n').some((l) => l.startsWith(`${child[0]!.turnId} `)),
      text.stdout,
    );
  });
});
