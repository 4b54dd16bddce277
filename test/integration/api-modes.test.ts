/**
 * The same scripted conversation (reasoning, parallel tool calls, a tool error, a final answer)
 * through all three API modes, via the real `openai` and `@anthropic-ai/sdk` clients against the
 * fake provider's wire formats. The transcripts in Postgres come out the same.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { StartOptions } from '../../client/client.js';
import type { StoredMessage } from '../../common/messages.js';
import { isValidOrder } from '../../shared/role-order.js';
import type { ScriptedReply } from '../support/fake-provider.js';
import { fakeSignature } from '../support/fake-wire.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack } from '../support/stack.js';

const OPENAI_KEY = 'sk-test-openai-0123456789abcdef';
const ANTHROPIC_KEY = 'sk-ant-test-0123456789abcdef';

const SCRIPT: ScriptedReply[] = [
  {
    reasoning: 'I should read both files at once.',
    text: 'Reading both files.',
    toolCalls: [
      { name: 'read_file', arguments: { path: 'a.txt' } },
      { name: 'read_file', arguments: { path: 'b.txt' } },
    ],
    usage: { prompt: 120, completion: 20, cached: 100 },
  },
  { toolCalls: [{ name: 'read_file', arguments: { path: 'missing.txt' } }] },
  { reasoning: 'Summarise.', text: 'a.txt says A, b.txt says B, and missing.txt does not exist.' },
];

/** The transcript without what legitimately differs between providers (call ids, reasoning). */
function normalise(messages: StoredMessage[]) {
  const ids = new Map<string, string>();
  const id = (raw: string | undefined) => {
    if (!raw) return raw;
    if (!ids.has(raw)) ids.set(raw, `call-${ids.size}`);
    return ids.get(raw);
  };
  return messages.map((m) => ({
    seq: m.seq,
    role: m.role,
    content: m.content,
    tool_calls: m.tool_calls?.map((c) => ({
      id: id(c.id),
      name: c.function.name,
      args: JSON.parse(c.function.arguments) as unknown,
    })),
    tool_call_id: id(m.tool_call_id),
  }));
}

describe('API modes', () => {
  let stack: TestStack;
  let workspace: string;
  before(async () => {
    stack = await createTestStack({ env: { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY } });
    workspace = join(stack.workspaces, 'modes');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'a.txt'), 'A\n');
    writeFileSync(join(workspace, 'b.txt'), 'B\n');
  });
  after(async () => {
    await stack.close();
  });

  const modes: Array<{ name: string; start: () => StartOptions }> = [
    { name: 'chat_completions', start: () => ({ provider: 'custom', model: 'm-chat', baseUrl: stack.fake.url }) },
    { name: 'codex_responses', start: () => ({ provider: 'openai-codex', model: 'm-codex', baseUrl: stack.fake.url }) },
    {
      name: 'anthropic_messages',
      start: () => ({ provider: 'anthropic', model: 'm-claude', baseUrl: stack.fake.anthropicUrl }),
    },
  ];
  const transcripts = new Map<string, ReturnType<typeof normalise>>();

  for (const mode of modes) {
    it(`runs the conversation through ${mode.name}`, async () => {
      const start = mode.start();
      stack.fake.script(SCRIPT, start.model);
      const conv = stack.herald.conversation(`mode-${mode.name}`);
      const r = await conv.send('What do a.txt, b.txt and missing.txt say?', { start: { ...start, cwd: workspace } });
      assert.equal(r.final_response, 'a.txt says A, b.txt says B, and missing.txt does not exist.');
      assert.equal(r.api_calls, 3);
      assert.equal(r.last_reasoning, 'Summarise.');
      assert.equal((await conv.state()).api_mode, mode.name);
      // Usage from the provider's own fields: 120 prompt tokens of which 100 cached.
      assert.equal(r.usage.turn.cache_read_tokens, 100);

      const transcript = await stack.transcript(`mode-${mode.name}`);
      assert.ok(isValidOrder(transcript));
      assert.equal(transcript[1]!.reasoning, 'I should read both files at once.');
      assert.match(transcript[5]!.content!, /File not found: missing\.txt/);
      transcripts.set(mode.name, normalise(transcript));
    });
  }

  it('stores the same transcript whatever the API mode (modulo reasoning and call ids)', () => {
    const [first, ...rest] = [...transcripts.values()];
    assert.equal(transcripts.size, 3);
    for (const t of rest) assert.deepEqual(t, first);
  });

  it('spoke each wire format correctly', () => {
    const byPath = (suffix: string) => stack.fake.requests.filter((r) => r.path.endsWith(suffix));
    const anthropic = byPath('/v1/messages');
    const responses = byPath('/v1/responses');
    assert.equal(anthropic.length, 3);
    assert.equal(responses.length, 3);

    // Anthropic: system outside messages with a cache breakpoint; tool_use / tool_result blocks;
    // the thinking block replayed with its signature while the tool loop continues.
    const second = anthropic[1]!.body as {
      system: Array<{ cache_control?: unknown }>;
      messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
      tools: unknown[];
      max_tokens: number;
    };
    assert.deepEqual(second.system[0]!.cache_control, { type: 'ephemeral' });
    assert.ok(second.max_tokens > 0);
    const assistant = second.messages[1]!;
    assert.equal(assistant.role, 'assistant');
    assert.deepEqual(assistant.content[0], {
      type: 'thinking',
      thinking: 'I should read both files at once.',
      signature: fakeSignature('I should read both files at once.'),
    });
    assert.deepEqual(
      assistant.content.slice(1).map((b) => b.type),
      ['text', 'tool_use', 'tool_use'],
    );
    const results = second.messages[2]!.content;
    assert.deepEqual(
      results.map((b) => b.type),
      ['tool_result', 'tool_result'],
    );
    assert.equal(results[0]!.tool_use_id, assistant.content[2]!.id);
    // Four cache breakpoints at most: the system prompt and the last three messages.
    const marked = second.messages.flatMap((m) => m.content).filter((b) => b.cache_control).length;
    assert.ok(marked <= 3 && marked >= 1);
    // The key reaches the provider (this SDK version sends it as a bearer token).
    const h = anthropic[0]!.headers;
    assert.ok(h['x-api-key'] === ANTHROPIC_KEY || h.authorization === `Bearer ${ANTHROPIC_KEY}`);

    // Responses: instructions, function_call / function_call_output items, encrypted reasoning replayed.
    const r2 = responses[1]!.body as {
      instructions: string;
      input: Array<Record<string, unknown>>;
      store: boolean;
      include: string[];
    };
    assert.equal(r2.store, false);
    assert.deepEqual(r2.include, ['reasoning.encrypted_content']);
    assert.ok(r2.instructions.length > 0);
    assert.deepEqual(
      r2.input.map((i) => i.type ?? i.role),
      [
        'user',
        'reasoning',
        'assistant',
        'function_call',
        'function_call',
        'function_call_output',
        'function_call_output',
      ],
    );
    assert.equal(r2.input[1]!.encrypted_content, fakeSignature('I should read both files at once.'));
    assert.equal(r2.input[1]!.id, undefined);
    assert.equal(responses[0]!.headers.authorization, `Bearer ${OPENAI_KEY}`);
  });

  it('never lets a key into Temporal history or the database', async () => {
    for (const mode of modes) {
      const history = await stack.temporal.workflow.getHandle(`session-mode-${mode.name}`).fetchHistory();
      const text = JSON.stringify(history);
      assert.ok(
        !text.includes(OPENAI_KEY) && !text.includes(ANTHROPIC_KEY),
        `a key leaked into the history of ${mode.name}`,
      );
    }
    for (const table of ['sessions', 'messages', 'events', 'model_calls', 'tool_runs']) {
      const rows = await stack.db.query(`SELECT * FROM ${table}`);
      const dump = JSON.stringify(rows.rows);
      assert.ok(!dump.includes(OPENAI_KEY) && !dump.includes(ANTHROPIC_KEY), `a key leaked into ${table}`);
    }
  });

  it('drops the reasoning signatures and retries once when Anthropic rejects them', async () => {
    stack.fake.script(
      [
        { reasoning: 'Look at a.txt first.', toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { status: 400, error: { message: 'messages.1.content.0: Invalid `signature` in `thinking` block' } },
        { text: 'a.txt says A.' },
      ],
      'm-claude-sig',
    );
    const r = await stack.herald.conversation('mode-signature').send('read a.txt', {
      start: { provider: 'anthropic', model: 'm-claude-sig', baseUrl: stack.fake.anthropicUrl, cwd: workspace },
    });
    assert.equal(r.final_response, 'a.txt says A.');
    const calls = stack.fake.requests.filter((q) => q.body.model === 'm-claude-sig');
    const thinking = (q: (typeof calls)[number]) =>
      (q.body.messages as Array<{ content: Array<{ type: string }> }>)
        .flatMap((m) => m.content)
        .filter((b) => b.type === 'thinking').length;
    assert.equal(thinking(calls[1]!), 1, 'the rejected request replayed the signed thinking block');
    assert.equal(thinking(calls[2]!), 0, 'the retry sent no thinking blocks');
  });
});
