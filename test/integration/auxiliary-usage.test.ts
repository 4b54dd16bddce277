/**
 * The auxiliary model's requests are paid for like the agent loop's, so they are accounted like
 * them: compression summaries (a manual `/compress`, an automatic compression, a summary
 * that failed) and `smart` approval assessments each leave a ledger row per HTTP attempt, labelled
 * with its purpose in `herald usage`; their tokens and cost are in the turn's usage and the session
 * totals (turn result, `state`, sessions row) but not in `api_calls`; and the session cost cap stops
 * a turn whose compression spent the budget.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { LedgerTotals } from '../../store/ledger.js';
import { listConversations } from '../../store/sessions.js';
import type { StartOptions } from '../../client/client.js';
import type { RecordedRequest, ScriptedReply } from '../support/fake-provider.js';
import { runHerald } from '../support/processes.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

interface Row {
  purpose: string;
  model: string;
  outcome: string;
  turn_id: string;
  input_tokens: string;
  output_tokens: string;
  cost_usd: string;
}

const isSummary = (r: RecordedRequest) => JSON.stringify(r.body).includes('You compress the earlier part');

const OVERFLOW: ScriptedReply = {
  status: 400,
  error: {
    message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
  },
};

describe('auxiliary model calls are accounted', () => {
  let stack: TestStack;
  let start: StartOptions;

  before(async () => {
    stack = await createTestStack({
      env: { ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef' },
      configYaml:
        'retry: { baseDelaySeconds: 0.2, maxDelaySeconds: 1 }\n' +
        // An auxiliary model of its own (Anthropic: its stream reports input tokens first, so a cut one is priced).
        'auxiliary: { provider: anthropic, model: aux-claude }\n' +
        'pricing:\n  fake-model: { input: 1, output: 2 }\n  aux-claude: { input: 3, output: 15 }\n',
    });
    const ws = join(stack.workspaces, 'ws');
    mkdirSync(ws, { recursive: true });
    start = { cwd: ws };
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
        `SELECT purpose, model, outcome, turn_id, input_tokens::text, output_tokens::text, cost_usd::text
           FROM model_calls WHERE conversation_id = $1 ORDER BY created_at, call_key`,
        [conversation],
      )
    ).rows;

  /** The session's totals — `state`, the sessions row — agree with the ledger (`herald usage --json`). */
  const assertTotalsAgree = async (conversation: string, apiCalls: number) => {
    const usage = await runHerald(['usage', conversation, '--json'], stack.workerEnv());
    const { totals } = JSON.parse(usage.stdout) as { totals: LedgerTotals };
    const state = await stack.herald.conversation(conversation).state();
    const row = (await listConversations(stack.db, 100)).find((c) => c.id === conversation)!;
    assert.equal(totals.attempts - totals.auxiliary, apiCalls, "herald usage: the agent loop's attempts");
    assert.equal(row.api_calls, apiCalls, 'sessions row: api_calls counts the agent loop only');
    assert.deepEqual(
      [state.usage.input_tokens, state.usage.output_tokens, state.usage.cost_usd],
      [totals.inputTokens, totals.outputTokens, totals.costUsd],
      'state and herald usage',
    );
    assert.deepEqual(
      [row.total_tokens, row.cost_usd],
      [totals.inputTokens + totals.outputTokens + totals.cacheReadTokens + totals.cacheWriteTokens, totals.costUsd],
      'sessions row and herald usage',
    );
    return totals;
  };

  /** Six plain turns (enough for a compression to find a middle) with known usage: 600 input, 60 output tokens, $0.00072. */
  const sixTurns = async (conversation: string, more: StartOptions = {}) => {
    stack.fake.script(
      Array.from({ length: 6 }, (_, i) => ({
        text: `answer ${i} ${'words '.repeat(40)}`,
        usage: { prompt: 100, completion: 10 },
      })),
      'fake-model',
    );
    const conv = stack.herald.conversation(conversation);
    for (let i = 0; i < 6; i++) await conv.send(`question ${i}`, { start: { ...start, ...more } });
    return conv;
  };

  it('a manual /compress is in herald usage, the session totals and the sessions row at once, not in api_calls', async () => {
    const conv = await sixTurns('a-manual');
    stack.fake.script(
      [{ text: '## Goal\nAnswer questions.\n## Remaining work\nnone', usage: { prompt: 900, completion: 80 } }],
      'aux-claude',
    );
    const c = await conv.compress();
    assert.equal(c.compressed, true, c.message);
    assert.ok(isSummary(stack.fake.requests.at(-1)!));

    const rows = await ledger('a-manual');
    assert.deepEqual(
      rows.map((r) => [r.purpose, r.model, r.outcome]),
      [...Array.from({ length: 6 }, () => ['turn', 'fake-model', 'ok']), ['compression', 'aux-claude', 'ok']],
    );
    assert.deepEqual([rows[6]!.input_tokens, rows[6]!.output_tokens, rows[6]!.cost_usd], ['900', '80', '0.003900']);
    const state = await conv.state();
    assert.equal(state.usage.input_tokens, 600 + 900);
    assert.equal(state.usage.cost_usd, 0.00462, '$0.00072 for the turns, $0.0039 for the summary');
    // The sessions row (herald sessions) has it before any later turn: the compressed session's row starts with it.
    await assertTotalsAgree('a-manual', 6);

    const cli = await runHerald(['usage', 'a-manual'], stack.workerEnv());
    assert.equal(cli.code, 0, cli.stderr);
    const lines = cli.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^\s*TURN\s+PURPOSE\s+STEP\s+ATTEMPT\s+PROVIDER\/MODEL\s+OUTCOME\s/);
    assert.match(lines[7]!, /^compress:6\.1\s+compression\s+-\s+1\s+anthropic\/aux-claude\s+ok\s+900\s+80\s/);
    assert.match(lines.at(-1)!, /^total: 7 HTTP attempts \(7 ok, 0 failed, 0 cancelled; 1 auxiliary\) · 1500 input/);

    // The next turn's result carries the compression in the session's usage, not in its own.
    stack.fake.script([{ text: 'after', usage: { prompt: 50, completion: 5 } }], 'fake-model');
    const r = await conv.send('and now?');
    assert.equal(r.api_calls, 1);
    assert.deepEqual([r.usage.turn.input_tokens, r.usage.turn.output_tokens], [50, 5]);
    assert.equal(r.usage.session.input_tokens, 600 + 900 + 50);
    assert.equal(r.estimated_cost_usd, r.usage.session.cost_usd);
    await assertTotalsAgree('a-manual', 7);
  });

  it("an automatic compression's summaries, a failed one included, are in the turn's usage but not its api_calls", async () => {
    const conv = await sixTurns('a-auto');
    // Turn 7: the context overflows; the auxiliary summary is cut after the provider reported its
    // input; the main model writes the summary instead; the call is made again and answers.
    stack.fake.script(
      [OVERFLOW, { text: '## Goal\nAnswer.', usage: { prompt: 800, completion: 60 } }, { text: 'fits now' }],
      'fake-model',
    );
    stack.fake.script([{ text: 'A summary that is cut off', usage: { prompt: 700 }, cutAfterChunks: 3 }], 'aux-claude');
    const r = await conv.send('one more');
    assert.equal(r.final_response, 'fits now', JSON.stringify(r));
    stack.fake.assertDone();
    assert.equal(r.api_calls, 2, "the overflowed call and its retry: the summaries are not the agent loop's calls");

    const rows = (await ledger('a-auto')).filter((x) => x.turn_id === 'a-auto:7');
    assert.deepEqual(
      rows.map((x) => [x.purpose, x.model, x.outcome, x.input_tokens]),
      [
        ['turn', 'fake-model', 'error', '0'],
        ['compression', 'aux-claude', 'error', '700'],
        ['compression', 'fake-model', 'ok', '800'],
        ['turn', 'fake-model', 'ok', '100'],
      ],
    );
    const sum = (k: 'input_tokens' | 'output_tokens') => rows.reduce((n, x) => n + Number(x[k]), 0);
    assert.deepEqual(
      [r.usage.turn.input_tokens, r.usage.turn.output_tokens],
      [sum('input_tokens'), sum('output_tokens')],
    );
    assert.equal(r.usage.turn.cost_usd, Number(rows.reduce((n, x) => n + Number(x.cost_usd), 0).toFixed(6)));
    assert.equal(r.usage.session.input_tokens, 600 + 700 + 800 + 100);
    await assertTotalsAgree('a-auto', 8);

    const cli = await runHerald(['usage', 'a-auto'], stack.workerEnv());
    const mine = cli.stdout.split('\n').filter((l) => /^\s*7\s/.test(l));
    assert.equal(mine.length, 4, cli.stdout);
    assert.match(mine[1]!, /\scompression\s+-\s+1\s+anthropic\/aux-claude\s+failed \(\w+\)\s+700\s/);
    assert.match(mine[2]!, /\scompression\s+-\s+2\s+custom\/fake-model\s+ok\s+800\s+60\s/);
  });

  it('the session cost cap stops a turn whose compression spent the budget', async () => {
    // $0.00072 for six turns; the summary costs $0.0045, past the $0.002 cap.
    const conv = await sixTurns('a-cap', { budget: { maxCostUsd: 0.002 } });
    stack.fake.script([OVERFLOW], 'fake-model');
    stack.fake.script([{ text: '## Goal\nAnswer.', usage: { prompt: 1000, completion: 100 } }], 'aux-claude');
    const r = await conv.send('one more');
    assert.equal(r.turn_exit_reason, 'session_budget_exceeded', JSON.stringify(r));
    assert.match(r.error ?? '', /session cost cap is reached/);
    // The overflowed call, then the summary: the call is not made again past the cap.
    assert.equal(stack.fake.requests.length, 6 + 2);
    assert.equal(r.api_calls, 1);
    assert.equal(r.usage.session.cost_usd, 0.00522, '$0.00072 for the turns, $0.0045 for the summary');
    await assertTotalsAgree('a-cap', 7);
    // A manual compression is refused too, with no request.
    const c = await conv.compress();
    assert.equal(c.compressed, false);
    assert.match(c.message, /session cost cap is reached/);
    assert.equal(stack.fake.requests.length, 8);
  });

  it("a smart approval's assessment is in the turn's usage and herald usage, labelled approval", async () => {
    const ws = start.cwd!;
    mkdirSync(join(ws, 'reports'), { recursive: true });
    stack.fake.script(
      [
        {
          toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf reports' } }],
          usage: { prompt: 100, completion: 10 },
        },
        { text: 'cleaned dist', usage: { prompt: 150, completion: 5 } },
      ],
      'fake-model',
    );
    stack.fake.script([{ text: 'APPROVE', usage: { prompt: 60, completion: 1 } }], 'aux-claude');
    const r = await stack.herald
      .conversation('a-smart')
      .send('clean', { start: { ...start, approvals: { mode: 'smart' } } });
    assert.equal(r.final_response, 'cleaned dist');
    assert.equal(r.api_calls, 2);
    assert.equal(r.usage.turn.input_tokens, 100 + 60 + 150);
    assert.equal(r.usage.turn.cost_usd, 0.000475, '$0.00012 + $0.00016 for the calls, $0.000195 for the assessment');
    const rows = await ledger('a-smart');
    assert.deepEqual(
      rows.map((x) => [x.purpose, x.model, x.outcome]),
      [
        ['turn', 'fake-model', 'ok'],
        ['approval', 'aux-claude', 'ok'],
        ['turn', 'fake-model', 'ok'],
      ],
    );
    await assertTotalsAgree('a-smart', 2);
    const cli = await runHerald(['usage', 'a-smart'], stack.workerEnv());
    assert.match(cli.stdout, /\n\s*1\s+approval\s+-\s+1\s+anthropic\/aux-claude\s+ok\s+60\s+1\s/);
  });

  it('a manual compression stopped mid-summary is a cancelled row, counted with the input the provider had reported', async () => {
    const conv = await sixTurns('a-stop');
    stack.fake.script(
      [{ text: 'A summary that takes forever', usage: { prompt: 500 }, hangAfterChunks: 3 }],
      'aux-claude',
    );
    const pending = conv.compress();
    await stack.fake.waitForRequests(7);
    await eventually(async () => {
      const events = await stack.events('a-stop');
      return events.some((e) => e.kind === 'status' && (e.payload as { kind?: string }).kind === 'compression');
    });
    await conv.stop('user');
    const c = await pending;
    assert.equal(c.compressed, false, c.message);
    const rows = await ledger('a-stop');
    assert.deepEqual(
      rows.filter((x) => x.purpose === 'compression').map((x) => [x.outcome, x.input_tokens]),
      [['cancelled', '500']],
    );
    const state = await conv.state();
    assert.equal(state.usage.input_tokens, 600 + 500);
  });
});
