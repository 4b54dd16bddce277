/**
 * Every HTTP attempt is accounted: the usage ledger holds one row per request the
 * provider received, through activity retries, fallbacks and whole-chain retries at the same step,
 * with each outcome and the usage the provider reported (a cut stream included), and `herald usage`
 * prints them through the real CLI. The turn's `api_calls` and usage, the session totals (state,
 * sessions row) and the session caps count the same attempts.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { LedgerTotals } from '../../store/ledger.js';
import { listConversations } from '../../store/sessions.js';
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
      configYaml:
        'retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\n' +
        // Priced so that costs are not zero: USD per million tokens.
        'pricing:\n  m-claude: { input: 3, output: 15 }\n',
    });
    ws = join(stack.workspaces, 'ws');
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

  /** The session totals — sessions row, `state` query — and the ledger (`herald usage --json`) say the same. */
  const assertTotalsAgree = async (conversation: string, apiCalls: number) => {
    const usage = await runHerald(['usage', conversation, '--json'], stack.workerEnv());
    const { totals } = JSON.parse(usage.stdout) as { totals: LedgerTotals };
    const state = await stack.herald.conversation(conversation).state();
    // What `herald sessions --json` lists: the sessions row's totals.
    const row = (await listConversations(stack.db, 100)).find((c) => c.id === conversation)!;
    assert.equal(totals.attempts, apiCalls, 'herald usage');
    assert.equal(row.api_calls, apiCalls, 'sessions row');
    assert.deepEqual(
      [row.total_tokens, row.cost_usd],
      [totals.inputTokens + totals.outputTokens + totals.cacheReadTokens + totals.cacheWriteTokens, totals.costUsd],
      'sessions row and herald usage',
    );
    assert.deepEqual(
      [state.usage.input_tokens, state.usage.output_tokens, state.usage.cost_usd],
      [totals.inputTokens, totals.outputTokens, totals.costUsd],
      'state and herald usage',
    );
  };

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
    assert.equal(r.api_calls, 4, "the turn's api_calls counts every HTTP attempt, failed ones included");
    assert.deepEqual([r.usage.turn.input_tokens, r.usage.turn.output_tokens], [120, 7]);
    await assertTotalsAgree('u-fallback', 4);

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
      /^TURN\s+PURPOSE\s+STEP\s+ATTEMPT\s+PROVIDER\/MODEL\s+OUTCOME\s+INPUT\s+OUTPUT\s+CACHED\s+COST\s+TIME$/,
    );
    assert.equal(lines.length, 1 + 4 + 1, cli.stdout);
    for (const [i, line] of lines.slice(1, 4).entries())
      assert.match(
        line,
        new RegExp(`^\\s*1\\s+turn\\s+1\\s+${i + 1}\\s+custom/fake-model\\s+failed \\(server_error\\)\\s`),
      );
    assert.match(lines[4]!, /^\s*1\s+turn\s+1\s+4\s+custom\/backup-model\s+ok\s+120\s+7\s/);
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
    assert.equal(r.api_calls, 7, 'both rounds of the chain');
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
    assert.equal(r.api_calls, 2);
    assert.equal(r.usage.turn.input_tokens, 642, "the cut attempt's input too");
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
    assert.equal(r.api_calls, 1, 'the stopped call is counted');
    assert.equal(r.usage.turn.input_tokens, 250, 'with the input the provider had reported');
    // Anthropic's message_start also reports 1 output token.
    assert.equal(r.usage.turn.output_tokens, 1);
    assert.equal(r.usage.turn.cost_usd, (250 * 3 + 15) / 1e6);
    assert.equal(r.estimated_cost_usd, r.usage.turn.cost_usd);
    await assertTotalsAgree('u-stop', 1);
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

  const claude: StartOptions = { provider: 'anthropic', model: 'm-claude' };

  it('a call that fails twice after the provider reported usage, then succeeds, counts 3 calls and all their tokens', async () => {
    stack.fake.script([
      { text: 'First try, cut off', usage: { prompt: 200 }, cutAfterChunks: 4 },
      { text: 'Second try, cut off', usage: { prompt: 210 }, cutAfterChunks: 4 },
      { text: 'Third time lucky.', usage: { prompt: 300, completion: 10 } },
    ]);
    const conv = stack.herald.conversation('u-retried');
    const r = await conv.send('hello', { start: { cwd: ws, ...claude, baseUrl: stack.fake.anthropicUrl } });
    assert.equal(r.final_response, 'Third time lucky.');
    assert.equal(stack.fake.requests.length, 3);
    assert.equal(r.api_calls, 3);
    assert.equal(r.usage.turn.input_tokens, 200 + 210 + 300);
    const rows = await ledger('u-retried');
    const output = rows.reduce((n, x) => n + Number(x.output_tokens), 0);
    assert.equal(r.usage.turn.output_tokens, output, "the cut attempts' output as reported, and the reply's");
    assert.equal(r.usage.turn.cost_usd, (710 * 3 + output * 15) / 1e6);
    assert.deepEqual(r.usage.session, r.usage.turn);
    await assertTotalsAgree('u-retried', 3);

    // The next turn adds its own call to the session, not the earlier attempts again.
    stack.fake.script([{ text: 'Again.', usage: { prompt: 400, completion: 4 } }]);
    const r2 = await conv.send('again');
    assert.equal(r2.api_calls, 1);
    assert.equal(r2.usage.session.input_tokens, 710 + 400);
    await assertTotalsAgree('u-retried', 4);
    const sessions = await runHerald(['sessions', '--json'], stack.workerEnv());
    const listed = (JSON.parse(sessions.stdout) as { id: string; api_calls: number; cost_usd: number }[]).find(
      (c) => c.id === 'u-retried',
    );
    assert.deepEqual([listed?.api_calls, listed?.cost_usd], [4, r2.estimated_cost_usd], 'herald sessions --json');
  });

  it('a turn that fails after every retry reports its attempts and the usage they were charged', async () => {
    stack.fake.respond(() => ({ text: 'Never finishes', usage: { prompt: 100 }, cutAfterChunks: 4 }));
    const r = await stack.herald
      .conversation('u-failed')
      .send('hello', { start: { cwd: ws, ...claude, baseUrl: stack.fake.anthropicUrl } });
    assert.equal(r.failed, true, JSON.stringify(r));
    const n = stack.fake.requests.length;
    assert.ok(n >= 3, `${n} requests`);
    assert.equal(r.api_calls, n, 'every attempt of the failed turn');
    assert.equal(r.usage.turn.input_tokens, 100 * n);
    assert.equal(r.usage.session.input_tokens, 100 * n);
    await assertTotalsAgree('u-failed', n);
  });

  it('the session cost cap counts failed attempts: no fallback and no retry goes past it', async () => {
    // $3 per million input tokens: each cut attempt costs about $0.0006; the cap is $0.001.
    stack.fake.script(
      Array.from({ length: 3 }, () => ({ text: 'Cut off', usage: { prompt: 200 }, cutAfterChunks: 4 })),
      'm-claude',
    );
    stack.fake.script([{ text: 'the backup would answer' }], 'backup-model');
    const conv = stack.herald.conversation('u-cap');
    const r = await conv.send('hello', {
      start: {
        ...withBackup,
        ...claude,
        baseUrl: stack.fake.anthropicUrl,
        budget: { maxCostUsd: 0.001 },
      },
    });
    assert.equal(r.turn_exit_reason, 'session_budget_exceeded', JSON.stringify(r));
    // The second attempt crossed the cap: the activity's third attempt did not call, nor did the backup.
    assert.equal(stack.fake.requests.length, 2);
    assert.ok(stack.fake.requests.every((q) => q.body.model === 'm-claude'));
    assert.equal(r.api_calls, 2);
    // Each cut attempt reported 200 input and 1 output token: $0.000615.
    assert.equal(r.usage.session.cost_usd, 0.00123);
    await assertTotalsAgree('u-cap', 2);
    // The next turn is refused before any request.
    const r2 = await conv.send('and now?');
    assert.equal(r2.turn_exit_reason, 'session_budget_exceeded');
    assert.equal(stack.fake.requests.length, 2);
  });

  it("a child agent's failed attempts reach its parent's totals once", async () => {
    const isChild = (req: { body: Record<string, unknown> }) =>
      (req.body.messages as { role: string; content: unknown }[]).some(
        (m) => m.role === 'user' && JSON.stringify(m.content).includes('YOUR TASK'),
      );
    let parentCalls = 0;
    let childCalls = 0;
    stack.fake.respond((req) => {
      if (isChild(req)) {
        childCalls += 1;
        return childCalls === 1
          ? { text: 'Child starts, cut off', usage: { prompt: 50 }, cutAfterChunks: 4 }
          : { text: 'Child report: done.', usage: { prompt: 50, completion: 5 } };
      }
      parentCalls += 1;
      return parentCalls === 1
        ? {
            toolCalls: [{ name: 'delegate_task', arguments: { goal: 'look around' } }],
            usage: { prompt: 80, completion: 8 },
          }
        : { text: 'All done.', usage: { prompt: 90, completion: 9 } };
    });
    const r = await stack.herald
      .conversation('u-parent2')
      .send('delegate it', { start: { cwd: ws, ...claude, baseUrl: stack.fake.anthropicUrl } });
    assert.equal(r.final_response, 'All done.');
    assert.equal(childCalls, 2);
    assert.equal(r.api_calls, 2, "the parent's own calls (the child reports its own)");
    const cli = await runHerald(['usage', 'u-parent2', '--json'], stack.workerEnv());
    const { totals } = JSON.parse(cli.stdout) as { totals: LedgerTotals };
    assert.equal(totals.attempts, 4);
    assert.equal(totals.inputTokens, 80 + 50 + 50 + 90);
    assert.equal(
      r.usage.session.input_tokens,
      totals.inputTokens,
      'the child counted once, its failed attempt included',
    );
    assert.equal(r.usage.session.output_tokens, totals.outputTokens);
    assert.equal(r.usage.session.cost_usd, totals.costUsd);
  });

  it('attempts whose report never reached the turn are added when it closes, from the ledger', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 20' } }], usage: { prompt: 100, completion: 5 } },
    ]);
    const conv = stack.herald.conversation('u-late');
    const pending = conv.send('run it', { start: { cwd: ws, ...claude, baseUrl: stack.fake.anthropicUrl } });
    await eventually(async () => (await stack.events('u-late')).some((e) => e.kind === 'tool.started'));
    // An attempt the workflow never heard of (a call that timed out, say): only its ledger row tells.
    await stack.db.query(
      `INSERT INTO model_calls (call_key, session_id, conversation_id, turn_id, seq, attempt, provider, model, api_mode,
                                outcome, error_type, input_tokens, output_tokens, cost_usd, step)
       VALUES ('test:late', 'u-late', 'u-late', 'u-late:1', 1, 1, 'anthropic', 'm-claude', 'anthropic_messages',
               'error', 'timeout', 1000, 0, 0.003, 1)`,
    );
    await conv.stop('user');
    const r = await pending;
    assert.equal(r.interrupted, true);
    assert.equal(r.api_calls, 2);
    assert.equal(r.usage.turn.input_tokens, 1100);
    assert.equal(r.usage.session.input_tokens, 1100);
    assert.equal(r.estimated_cost_usd, 0.003375, '$0.000375 for the call, $0.003 for the late attempt');
    const ended = (await stack.events('u-late')).find((e) => e.kind === 'turn.ended');
    assert.equal((ended?.payload as { result: { api_calls: number } }).result.api_calls, 2, 'the turn.ended event');
    assert.equal((await conv.state()).last_result?.api_calls, 2, 'the state');
    await assertTotalsAgree('u-late', 2);
  });
});
