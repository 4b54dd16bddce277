/**
 * Context compression planning (docs/long-conversations.md): which messages stay verbatim (head and tail), which are
 * summarised (middle), how old tool results are pruned, how the summary is asked for, framed and
 * built without a model, and that secrets do not survive into it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  SUMMARY_CLOSE,
  SUMMARY_OPEN,
  SUMMARY_SECTIONS,
  fallbackSummary,
  isSummary,
  planCompression,
  pruneToolResults,
  redactSecrets,
  summaryInput,
  summaryPrompt,
  summaryRole,
  unwrapSummary,
  wrapSummary,
  type CompressionPlan,
  type PlanOptions,
  type PlannedMessage,
} from '../../shared/compression.js';
import type { ChatMessage, ToolCall } from '../../common/messages.js';
import { prng } from '../support/prng.js';

// ---------------------------------------------------------------------------------------------
// Builders: drafts get their seq (= index) and a default of 10 tokens when numbered.

type Draft = ChatMessage & { tokens?: number };

let callCounter = 0;
const call = (name = 'read_file', args = '{}'): ToolCall => ({
  id: `call_${++callCounter}`,
  type: 'function',
  function: { name, arguments: args },
});
const u = (content = 'a question', tokens?: number): Draft =>
  tokens === undefined ? { role: 'user', content } : { role: 'user', content, tokens };
const a = (content: string | null = 'an answer', tokens?: number): Draft =>
  tokens === undefined ? { role: 'assistant', content } : { role: 'assistant', content, tokens };
/** An assistant message with `n` tool calls followed by its `n` results. */
const group = (n: number, tokens = 10): Draft[] => {
  const calls = Array.from({ length: n }, () => call());
  return [
    { role: 'assistant', content: null, tool_calls: calls, tokens },
    ...calls.map((c): Draft => ({ role: 'tool', tool_call_id: c.id, name: 'read_file', content: 'file text', tokens })),
  ];
};
const numbered = (drafts: Draft[]): PlannedMessage[] =>
  drafts.map((d, i) => ({ ...d, seq: i, tokens: d.tokens ?? 10 }));
const seqs = (ms: readonly PlannedMessage[]) => ms.map((m) => m.seq);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const parts = (p: CompressionPlan) => ({ head: seqs(p.head), middle: seqs(p.middle), tail: seqs(p.tail) });

/**
 * 0 user · 1 assistant(2 calls) · 2 tool · 3 tool · 4 assistant · 5 user · 6 assistant(1 call) ·
 * 7 tool · 8 assistant · 9 user · 10 assistant — every message 10 tokens.
 */
const T1 = numbered([u(), ...group(2), a(), u(), ...group(1), a(), u(), a()]);

// ---------------------------------------------------------------------------------------------

describe('planCompression: head', () => {
  // a tiny tail (the last user message and what follows it) so the head is what varies
  const tiny = { tailTokens: 0, tailMessages: 1 };
  const cases: Array<[number, number[], string]> = [
    [0, [], 'no head on a later compression'],
    [1, [0], 'the first message'],
    [2, [0, 1, 2, 3], 'extended past the results of a tool-calling assistant'],
    [3, [0, 1, 2, 3], 'extended when it would end on a tool result'],
    [4, [0, 1, 2, 3], 'exactly a group end'],
    [5, [0, 1, 2, 3, 4], 'ordinary messages are not extended'],
    [7, range(0, 8), 'extended for a single-call group'],
  ];
  for (const [protectFirst, head, why] of cases)
    it(`protectFirst ${protectFirst}: ${why}`, () => {
      const p = planCompression(T1, { protectFirst, ...tiny });
      assert.deepEqual(seqs(p.head), head);
      assert.notEqual(T1[p.head.length]?.role, 'tool', 'the message after the head is not a tool result');
    });

  it('keeps everything in the head when protectFirst covers the transcript: nothing to compress', () => {
    const p = planCompression(T1, { protectFirst: 20, ...tiny });
    assert.deepEqual(parts(p), { head: range(0, 11), middle: [], tail: [] });
    assert.equal(p.previousSummary, undefined);
  });
});

describe('planCompression: tail', () => {
  const cases: Array<[string, Omit<PlanOptions, 'protectFirst'>, number[]]> = [
    [
      'as many recent messages as fit 1.5 times the token budget, the whole tool group at the cut with them',
      { tailTokens: 20, tailMessages: 1 },
      range(6, 11),
    ],
    [
      'a cut just after a whole tool group takes the group into the tail (Hermes aligns it so)',
      { tailTokens: 47, tailMessages: 1 },
      range(1, 11),
    ],
    ['the ceiling is inclusive', { tailTokens: 40, tailMessages: 1 }, range(5, 11)],
    [
      'at least tailMessages messages even over budget, never splitting a tool group',
      { tailTokens: 0, tailMessages: 4 },
      range(6, 11),
    ],
    [
      'when everything fits the budget, the floor and the last user message still leave the rest to summarise',
      { tailTokens: 1000, tailMessages: 1 },
      [9, 10],
    ],
  ];
  for (const [name, o, tail] of cases)
    it(name, () => {
      const p = planCompression(T1, { protectFirst: 0, ...o });
      assert.deepEqual(seqs(p.tail), tail);
      assert.deepEqual(seqs(p.middle), range(0, tail[0]!));
      assert.notEqual(p.tail[0]?.role, 'tool');
    });

  /** `n` alternating user/assistant messages of 10 tokens. */
  const chat = (n: number) => numbered(Array.from({ length: n }, (_, i) => (i % 2 ? a() : u())));
  const short: Array<[number, number[], number[]]> = [
    [7, [], range(3, 7)],
    [8, [3, 4], [5, 6, 7]],
    [9, [3, 4, 5], [6, 7, 8]],
    [10, [3, 4, 5], range(6, 10)],
    [12, [3, 4, 5], range(6, 12)],
  ];
  for (const [n, middle, tail] of short)
    it(`a short transcript of ${n} under a roomy budget: the floor of 8 leaves ${middle.length} to summarise`, () => {
      const p = planCompression(chat(n), { protectFirst: 3, tailTokens: 20_000, tailMessages: 8 });
      assert.deepEqual(parts(p), { head: [0, 1, 2], middle, tail });
    });

  it('always reaches back to the last user message, and the last reply the user read', () => {
    // 0 u · 1 a(1) · 2 t · 3 a · 4 u · 5 a(2) · 6 t · 7 t · 8 a(1) · 9 t · 10 a(1) · 11 t — mid-turn
    const msgs = numbered([u(), ...group(1), a(), u('the current task'), ...group(2), ...group(1), ...group(1)]);
    const withHead = planCompression(msgs, { protectFirst: 2, tailTokens: 20, tailMessages: 1 });
    assert.deepEqual(parts(withHead), { head: [0, 1, 2], middle: [3], tail: range(4, 12) });
    assert.equal(withHead.tail[0]!.content, 'the current task');
    // Without a head, the last answer with text (3) stays too, with the tool group before it.
    const p = planCompression(msgs, { protectFirst: 0, tailTokens: 20, tailMessages: 1 });
    assert.deepEqual(parts(p), { head: [], middle: [0], tail: range(1, 12) });
  });

  it('a last user message right after the head is summarised together with its answer', () => {
    const msgs = numbered([u('first'), a('reply'), u('the request'), ...group(1), ...group(1), ...group(1), a('done')]);
    const p = planCompression(msgs, { protectFirst: 2, tailTokens: 0, tailMessages: 1 });
    assert.deepEqual(parts(p), { head: [0, 1], middle: [2, 3, 4], tail: range(5, 10) });
  });

  it('keeps a single huge last message and the user message before it', () => {
    const msgs = numbered([u(), a(), u(), a(), u(), a('a very long answer', 500)]);
    const p = planCompression(msgs, { protectFirst: 0, tailTokens: 100, tailMessages: 1 });
    assert.deepEqual(parts(p), { head: [], middle: [0, 1, 2, 3], tail: [4, 5] });
  });

  it('does not repeat the last user message in the tail when the head already holds it', () => {
    const msgs = numbered([u('the only request'), ...group(1), ...group(1), ...group(1), a('done')]);
    const p = planCompression(msgs, { protectFirst: 1, tailTokens: 0, tailMessages: 1 });
    assert.deepEqual(parts(p), { head: [0], middle: range(1, 5), tail: [5, 6, 7] });
  });

  it('gives an empty plan for an empty transcript', () => {
    const p = planCompression([], { protectFirst: 3, tailTokens: 100, tailMessages: 8 });
    assert.deepEqual(parts(p), { head: [], middle: [], tail: [] });
    assert.equal(p.previousSummary, undefined);
  });

  it('has an empty middle when at most four messages follow the head', () => {
    const p = planCompression(numbered([u(), a(), u(), a()]), { protectFirst: 3, tailTokens: 0, tailMessages: 3 });
    assert.deepEqual(parts(p), { head: [0, 1, 2], middle: [], tail: [3] });
    const q = planCompression(numbered([u(), a(), u(), a('a very long answer', 500)]), {
      protectFirst: 0,
      tailTokens: 100,
      tailMessages: 1,
    });
    assert.deepEqual(parts(q), { head: [], middle: [], tail: [0, 1, 2, 3] });
  });
});

describe('planCompression: previous summary', () => {
  const summary = wrapSummary('## Goal\nship the release', 12);

  it('returns a summary found in the middle, unwrapped, and removes it from the middle', () => {
    const msgs = numbered([u(summary), a('ok'), u(), a(), u(), a(), u('latest'), a()]);
    const p = planCompression(msgs, { protectFirst: 0, tailTokens: 0, tailMessages: 2 });
    assert.equal(p.previousSummary, '## Goal\nship the release');
    assert.deepEqual(parts(p), { head: [], middle: [1, 2, 3, 4, 5], tail: [6, 7] });
  });

  it('finds a summary that follows a protected head, whatever its role', () => {
    const msgs = numbered([
      u('first'),
      a('reply'),
      u('second'),
      { role: 'assistant', content: summary },
      u(),
      a(),
      u(),
      a(),
    ]);
    const p = planCompression(msgs, { protectFirst: 3, tailTokens: 0, tailMessages: 1 });
    assert.equal(p.previousSummary, '## Goal\nship the release');
    assert.deepEqual(parts(p), { head: [0, 1, 2], middle: [4, 5], tail: [6, 7] });
  });

  it('leaves a summary inside the tail where it is and does not report it', () => {
    const msgs = numbered([u(summary), a('ok'), u('latest'), a()]);
    const p = planCompression(msgs, { protectFirst: 0, tailTokens: 1000, tailMessages: 8 });
    assert.equal(p.previousSummary, undefined);
    assert.deepEqual(parts(p), { head: [], middle: [], tail: [0, 1, 2, 3] });
  });
});

describe('planCompression property: 300 random valid transcripts', () => {
  function randomTranscript(rand: () => number): PlannedMessage[] {
    const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
    const tokens = () => (rand() < 0.1 ? int(200, 800) : int(1, 120));
    const drafts: Draft[] = [];
    const turns = int(1, 7);
    const summaryAfter = rand() < 0.35 ? int(0, turns - 1) : -1;
    for (let t = 0; t < turns; t++) {
      if (t === summaryAfter)
        drafts.push({
          role: summaryRole(drafts.at(-1)),
          content: wrapSummary(`summary ${t}`, int(1, 40)),
          tokens: tokens(),
        });
      drafts.push(u(`request ${t}`, tokens()));
      for (let g = int(0, 3); g > 0; g--) drafts.push(...group(int(1, 3), tokens()));
      // the conversation may stop mid-turn, after tool results
      if (t < turns - 1 || rand() < 0.6) drafts.push(a(`answer ${t}`, tokens()));
    }
    return numbered(drafts);
  }

  it('partitions in order, never splits a tool group, summarises something, keeps the last user message', () => {
    const rand = prng(0xc0ffee);
    let withMiddle = 0;
    let withPrevious = 0;
    for (let i = 0; i < 300; i++) {
      const msgs = randomTranscript(rand);
      const o: PlanOptions = {
        protectFirst: Math.floor(rand() * 6),
        tailTokens: Math.floor(rand() * 600),
        tailMessages: 1 + Math.floor(rand() * 8),
      };
      const p = planCompression(msgs, o);
      const where = `case ${i} ${JSON.stringify(o)} ${JSON.stringify(msgs.map((m) => `${m.role[0]}${m.tokens}`))}`;

      // 1. head + middle + tail is the original order; only a summary in the middle is taken out
      const kept = new Set([...seqs(p.head), ...seqs(p.middle), ...seqs(p.tail)]);
      const removed = msgs.filter((m) => !kept.has(m.seq));
      assert.deepEqual(
        [...seqs(p.head), ...seqs(p.middle), ...seqs(p.tail)],
        seqs(msgs).filter((s) => kept.has(s)),
        where,
      );
      assert.ok(
        removed.every((m) => isSummary(m)),
        `${where}: lost ${JSON.stringify(removed)}`,
      );
      const lastRemoved = removed.at(-1);
      assert.equal(p.previousSummary, lastRemoved ? unwrapSummary(lastRemoved.content!) : undefined, where);
      if (removed.length) {
        withPrevious++;
        assert.ok(removed[0]!.seq >= p.head.length, where);
        assert.ok(p.tail.length === 0 || removed.at(-1)!.seq < p.tail[0]!.seq, where);
      }
      assert.ok(!p.middle.some(isSummary), `${where}: a summary left in the middle`);

      // 2. no tool group is split across parts
      const partOf = new Map<number, string>();
      for (const [name, list] of Object.entries({ head: p.head, middle: p.middle, tail: p.tail }))
        for (const m of list) partOf.set(m.seq, name);
      for (let j = 0; j < msgs.length; j++) {
        if (msgs[j]!.role !== 'tool') continue;
        let owner = j;
        while (msgs[owner]!.role === 'tool') owner--;
        assert.equal(partOf.get(j), partOf.get(owner), `${where}: tool ${j} split from assistant ${owner}`);
      }
      assert.notEqual(p.tail[0]?.role, 'tool', where);
      assert.notEqual(p.middle[0]?.role, 'tool', where);

      // 3. the head is at least protectFirst long; with more than four messages after it, something
      //    between head and tail is summarised, and the tail is never empty
      assert.ok(p.head.length >= Math.min(o.protectFirst, msgs.length), where);
      const after = msgs.length - p.head.length;
      if (after > 4) {
        assert.ok(p.middle.length + removed.length > 0, `${where}: nothing to summarise`);
        assert.ok(p.tail.length > 0, `${where}: empty tail`);
      } else assert.equal(p.tail.length, after, where);

      // 4. the last user message is in the tail, unless the head holds it or it is the first message
      //    after the head (then it is summarised with its answer)
      const lastUser = msgs.findLast((m) => m.role === 'user' && !isSummary(m))!;
      if (lastUser.seq < p.head.length) assert.ok(seqs(p.head).includes(lastUser.seq), where);
      else if (lastUser.seq > p.head.length || after <= 4)
        assert.ok(seqs(p.tail).includes(lastUser.seq), `${where}: last user`);

      // 5. the tail stays within 1.5 times the budget unless it holds no more than its floor, its
      //    first message is an anchor (the last user message or the last answer's group), or the
      //    cut had to move past a tool group's results
      const sum = (ms: readonly PlannedMessage[]) => ms.reduce((n, m) => n + m.tokens, 0);
      if (after > 4 && sum(p.tail) > o.tailTokens * 1.5) {
        const floor = Math.min(o.tailMessages, Math.max(3, after - 3), after - 1);
        const first = p.tail[0]!;
        const lastAnswer = msgs.findLast((m) => m.role === 'assistant' && !isSummary(m) && m.content);
        const anchored =
          first === lastUser ||
          (lastAnswer !== undefined && first.seq <= lastAnswer.seq && seqs(p.middle).every((s) => s < lastAnswer.seq));
        let groupEnd = 1;
        while (p.tail[groupEnd]?.role === 'tool') groupEnd++;
        assert.ok(
          anchored || sum(p.tail.slice(groupEnd)) <= o.tailTokens * 1.5 || p.tail.length - groupEnd < floor,
          `${where}: tail over budget without need`,
        );
      }
      if (p.middle.length) withMiddle++;
    }
    // the generator must exercise the interesting cases for the property to mean anything
    assert.ok(withMiddle > 150, `only ${withMiddle} plans had a middle`);
    assert.ok(withPrevious > 30, `only ${withPrevious} plans found a previous summary`);
  });
});

// ---------------------------------------------------------------------------------------------

describe('pruneToolResults', () => {
  const tool = (content: string | null, name: string | undefined, seq: number): PlannedMessage => ({
    role: 'tool',
    tool_call_id: `c${seq}`,
    content,
    seq,
    tokens: 10,
    ...(name ? { name } : {}),
  });

  it('turns a tool result into one line naming the tool, its size and its first line', () => {
    const [m] = pruneToolResults([tool('line one\nline two\nline three', 'read_file', 0)]);
    assert.equal(m!.content, '[read_file result pruned (28 chars): line one …]');
    assert.equal(m!.role, 'tool');
    assert.equal(m!.tool_call_id, 'c0', 'the result still answers its call');
    assert.equal(m!.name, 'read_file');
  });

  it('does not add an ellipsis to a short one-line result, and says "tool" for a nameless one', () => {
    const [m] = pruneToolResults([tool('exit code 0', undefined, 0)]);
    assert.equal(m!.content, '[tool result pruned (11 chars): exit code 0]');
  });

  it('cuts a long first line to 120 characters', () => {
    const [m] = pruneToolResults([tool('x'.repeat(300), 'terminal', 0)]);
    assert.equal(m!.content, `[terminal result pruned (300 chars): ${'x'.repeat(120)} …]`);
  });

  it('marks the older of two identical results as a duplicate of the later one', () => {
    const out = pruneToolResults([
      tool('same output', 'terminal', 0),
      tool('other output', 'terminal', 1),
      tool('same output', 'terminal', 2),
    ]);
    assert.equal(out[0]!.content, '[terminal result pruned: identical to a later result]');
    assert.equal(out[1]!.content, '[terminal result pruned (12 chars): other output]');
    assert.equal(out[2]!.content, '[terminal result pruned (11 chars): same output]');
  });

  it('leaves other messages and empty results as they are, only dropping the planning fields', () => {
    const c = call('read_file', '{"path":"a.ts"}');
    const input: PlannedMessage[] = [
      { role: 'user', content: 'read a.ts', seq: 0, tokens: 3 },
      { role: 'assistant', content: null, tool_calls: [c], reasoning: 'need the file', seq: 1, tokens: 9 },
      tool('', 'read_file', 2),
      { role: 'assistant', content: 'done', seq: 3, tokens: 1 },
    ];
    const snapshot = structuredClone(input);
    const out = pruneToolResults(input);
    assert.deepEqual(
      out,
      input.map(({ seq: _s, tokens: _t, ...m }) => m),
    );
    assert.deepEqual(input, snapshot, 'the input is not modified');
  });
});

describe('summaryPrompt', () => {
  it('lists every section, in order', () => {
    const prompt = summaryPrompt(undefined, undefined);
    let at = -1;
    for (const section of SUMMARY_SECTIONS) {
      const i = prompt.indexOf(`## ${section}`);
      assert.ok(i > at, `${section} missing or out of order`);
      at = i;
    }
  });

  it('asks to update the previous summary only when there is one', () => {
    assert.match(summaryPrompt('earlier', undefined), /update it/);
    assert.doesNotMatch(summaryPrompt(undefined, undefined), /update/i);
  });

  it('includes the focus when one is given', () => {
    assert.match(
      summaryPrompt(undefined, 'the database migration'),
      /Pay special attention to: the database migration/,
    );
    assert.doesNotMatch(summaryPrompt(undefined, undefined), /special attention/);
  });

  it('tells the summariser not to keep secrets', () => {
    assert.match(summaryPrompt(undefined, undefined), /Never include secrets/);
  });
});

describe('summaryInput', () => {
  const c = call('read_file', '{"path":"src/app.ts"}');
  const msgs: ChatMessage[] = [
    { role: 'user', content: 'fix the bug' },
    { role: 'assistant', content: 'Reading it.', tool_calls: [c] },
    { role: 'tool', tool_call_id: c.id, name: 'read_file', content: 'export const x = 1;' },
  ];

  it('gives the previous summary first, then the messages as a transcript with their tool calls', () => {
    const text = summaryInput('the earlier summary', msgs);
    assert.equal(
      text,
      [
        '# Earlier summary',
        'the earlier summary',
        '',
        '# New messages',
        '[user] fix the bug',
        '[assistant] Reading it.',
        '  calls: read_file({"path":"src/app.ts"})',
        '[tool read_file] export const x = 1;',
      ].join('\n'),
    );
  });

  it('has no summary section without a previous summary', () => {
    const text = summaryInput(undefined, msgs);
    assert.ok(!text.includes('# Earlier summary'));
    assert.ok(text.startsWith('[user] fix the bug'));
  });

  it('cuts long tool-call arguments to 500 characters', () => {
    const long = call('write_file', JSON.stringify({ path: 'big.txt', content: 'y'.repeat(2000) }));
    const text = summaryInput(undefined, [{ role: 'assistant', content: null, tool_calls: [long] }]);
    assert.ok(text.includes(`write_file(${long.function.arguments.slice(0, 500)})`));
    assert.ok(!text.includes(long.function.arguments.slice(0, 501)));
  });
});

describe('wrapSummary / unwrapSummary / isSummary', () => {
  it('round-trips the body', () => {
    for (const body of [
      'short',
      '## Goal\nship it\n\n## Blocked\nnone',
      'mentions (It replaces 3 earlier messages.) inside',
    ])
      assert.equal(unwrapSummary(wrapSummary(body, 7)), body);
  });

  it('trims the body, frames it and says how many messages it replaces', () => {
    const text = wrapSummary('  body  \n', 42);
    assert.ok(text.startsWith(SUMMARY_OPEN));
    assert.ok(text.endsWith(SUMMARY_CLOSE));
    assert.ok(text.includes('It replaces 42 earlier messages.'));
    assert.equal(unwrapSummary(text), 'body');
  });

  it('recognises a summary by its opening line only', () => {
    assert.equal(isSummary({ content: wrapSummary('x', 1) }), true);
    assert.equal(isSummary({ content: 'an ordinary message' }), false);
    assert.equal(isSummary({ content: `quoted: ${SUMMARY_OPEN}` }), false);
    assert.equal(isSummary({ content: null }), false);
    assert.equal(isSummary({ content: '' }), false);
  });
});

describe('fallbackSummary', () => {
  const read1 = call('read_file', '{"path":"src/app.ts"}');
  const read2 = call('read_file', '{ "path" : "test/app.test.ts", "offset": 3 }');
  const read3 = call('read_file', '{"path":"src/app.ts"}');
  const term = call('terminal', '{"command":"npm test"}');
  const msgs: ChatMessage[] = [
    { role: 'user', content: 'Fix the   failing\n test in src/app.ts' },
    { role: 'assistant', content: null, tool_calls: [read1, read2] },
    { role: 'tool', tool_call_id: read1.id, name: 'read_file', content: '...' },
    { role: 'tool', tool_call_id: read2.id, name: 'read_file', content: '...' },
    { role: 'assistant', content: 'Running the tests.', tool_calls: [term, read3] },
    { role: 'tool', tool_call_id: term.id, name: 'terminal', content: 'ok' },
    { role: 'tool', tool_call_id: read3.id, name: 'read_file', content: '...' },
    { role: 'assistant', content: 'Fixed: the test passes now.' },
    { role: 'user', content: 'Thanks, now update the README' },
    { role: 'assistant', content: '   ' },
  ];

  it('says it was built mechanically and lists requests, tools with counts and files', () => {
    const text = fallbackSummary(undefined, msgs);
    assert.match(text, /built mechanically/);
    assert.ok(!text.includes('## Earlier summary'));
    const order = ['## User requests', '## Tools used', '## Relevant files', '## Last assistant message'];
    assert.deepEqual(
      order.map((h) => text.indexOf(h)),
      order.map((h) => text.indexOf(h)).sort((x, y) => x - y),
    );
    assert.ok(order.every((h) => text.includes(h)));
    assert.ok(text.includes('- Fix the failing test in src/app.ts'), 'whitespace is collapsed');
    assert.ok(text.includes('- Thanks, now update the README'));
    assert.ok(text.includes('- read_file ×3'));
    assert.ok(text.includes('- terminal ×1'));
    assert.ok(text.includes('- src/app.ts\n- test/app.test.ts'), 'each path once');
    assert.equal(text.split('- src/app.ts').length - 1, 1);
    assert.ok(text.endsWith('## Last assistant message\nFixed: the test passes now.'), 'blank replies are skipped');
  });

  it('carries the previous summary along', () => {
    const text = fallbackSummary('## Goal\nthe old goal', msgs);
    assert.ok(text.includes('## Earlier summary\n## Goal\nthe old goal'));
  });

  it('says "none" for sections with nothing in them', () => {
    const text = fallbackSummary(undefined, []);
    assert.equal(
      text,
      [
        '(The summariser model failed; this summary was built mechanically from the messages.)',
        '## User requests',
        'none',
        '## Tools used',
        'none',
        '## Relevant files',
        'none',
        '## Last assistant message',
        'none',
      ].join('\n'),
    );
  });
});

describe('redactSecrets', () => {
  const secrets: Array<[string, string, string]> = [
    ['an OpenAI key', 'my key is sk-abcdefghijklmnopqrstuvwxyz123456 ok', 'my key is [REDACTED] ok'],
    ['a project key', 'export OPENAI_API_KEY=sk-proj-Abc123_def456-ghi789', 'export OPENAI_API_KEY=[REDACTED]'],
    ['an Anthropic key', 'ANTHROPIC_API_KEY="sk-ant-api03-abcdefghijklmnop"', 'ANTHROPIC_API_KEY="[REDACTED]"'],
    ['a classic GitHub token', 'push with ghp_abcdefghijklmnopqrstuvwxyz0123456789 now', 'push with [REDACTED] now'],
    ['a GitHub OAuth token', 'gho_16C7e42F292c6912E7710c838347Ae178B4a', '[REDACTED]'],
    ['a GitHub app token', 'ghs_16C7e42F292c6912E7710c838347Ae178B4a', '[REDACTED]'],
    ['a fine-grained GitHub token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv', '[REDACTED]'],
    ['an AWS access key id', 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE', 'aws_access_key_id = [REDACTED]'],
    ['a Slack token', 'xoxb-123456789012-abcdefghijkl', '[REDACTED]'],
    ['a bearer token', 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln', 'Authorization: [REDACTED]'],
    ['password=', 'login with password=hunter2hunter2 please', 'login with password=[REDACTED] please'],
    ['api_key:', 'api_key: abcdef123456', 'api_key: [REDACTED]'],
    ['API-KEY =, upper case', 'API-KEY = abcdef123456', 'API-KEY = [REDACTED]'],
    ['apiKey', 'apiKey=Zx9Yw8Vu7Ts6', 'apiKey=[REDACTED]'],
    ['secret:', 'secret: 0123456789abcdef', 'secret: [REDACTED]'],
    ['token= in a URL', 'GET /hook?token=abcdef123456 HTTP/1.1', 'GET /hook?token=[REDACTED] HTTP/1.1'],
    ['passwd=, stopping at a comma', 'user=root, passwd=toor1234, port=22', 'user=root, passwd=[REDACTED], port=22'],
  ];
  for (const [name, input, want] of secrets) it(`removes ${name}`, () => assert.equal(redactSecrets(input), want));

  it('removes a whole private key block, keeping the text around it', () => {
    for (const kind of ['RSA ', 'OPENSSH ', 'EC ', '', 'ENCRYPTED ']) {
      const key = `-----BEGIN ${kind}PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcd+/==\n-----END ${kind}PRIVATE KEY-----`;
      assert.equal(redactSecrets(`before\n${key}\nafter`), 'before\n[REDACTED]\nafter', kind);
    }
  });

  it('removes every secret in a text, not only the first', () => {
    const text = 'a=sk-aaaaaaaaaaaaaaaa b=sk-bbbbbbbbbbbbbbbb password=cccccccc';
    const out = redactSecrets(text);
    assert.ok(!/aaaa|bbbb|cccc/.test(out), out);
    assert.equal(out.split('[REDACTED]').length - 1, 3);
  });

  it('removes a quoted password value', () => {
    const out = redactSecrets('password="hunter2hunter2"');
    assert.ok(!out.includes('hunter2'), out);
    assert.ok(out.startsWith('password='));
  });

  const ordinary = [
    'The token expires in an hour, so refresh the token before it does.',
    'Set max_tokens: 4096 and keep input_tokens=123456 in the log.',
    'Use a password manager; the secret to success is patience.',
    'This task-management-system handles the risk-assessment-framework.',
    'He was the Bearer of bad news.',
    'AKIA is the prefix of long-term AWS access key ids; ghp_ marks GitHub tokens.',
    'See /home/user/.ssh/id_rsa.pub and https://example.com/docs?page=2',
    'The API key is read from the environment, never from the repository.',
    'token: abc',
    'password=',
    'const skill = "sk-short";',
    '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
    '',
  ];
  for (const text of ordinary)
    it(`leaves ordinary text alone: ${JSON.stringify(text.slice(0, 40))}`, () =>
      assert.equal(redactSecrets(text), text));

  it('removes secrets in JSON, where the key is quoted', () => {
    for (const text of ['{"password": "hunter2hunter2"}', '{"api_key":"abcdef123456"}', "{'token': 'abcdef123456'}"]) {
      const out = redactSecrets(text);
      assert.ok(!/hunter2|abcdef123456/.test(out), `${text} → ${out}`);
    }
  });

  it('removes values of prefixed or suffixed key names (environment variables, config keys)', () => {
    const cases = [
      'OPENAI_API_KEY=abcdefghijklmnop',
      'GITHUB_TOKEN=abcdefghijklmnop',
      'DB_PASSWORD=abcdefghijklmnop',
      'secret_key=abcdefghijklmnop',
      'aws_secret_access_key = abcdefghijklmnop',
    ];
    for (const text of cases) {
      const out = redactSecrets(text);
      assert.ok(!out.includes('abcdefghijklmnop'), `${text} → ${out}`);
    }
  });

  it('removes GitHub user-to-server and refresh tokens', () => {
    for (const prefix of ['ghu_', 'ghr_'])
      assert.equal(redactSecrets(`${prefix}16C7e42F292c6912E7710c838347Ae178B4a`), '[REDACTED]', prefix);
  });

  it('removes temporary (STS) AWS access key ids', () =>
    assert.equal(redactSecrets('ASIAIOSFODNN7EXAMPLE'), '[REDACTED]'));
});

describe('summaryRole', () => {
  const cases: Array<[ChatMessage | undefined, 'user' | 'assistant']> = [
    [undefined, 'user'],
    [{ role: 'user', content: 'hi' }, 'assistant'],
    [{ role: 'assistant', content: 'hello' }, 'user'],
    [{ role: 'tool', tool_call_id: 'c', content: 'ok' }, 'user'],
    [{ role: 'system', content: 'sys' }, 'user'],
  ];
  for (const [before, want] of cases)
    it(`after ${before?.role ?? 'nothing'} → ${want}`, () => assert.equal(summaryRole(before), want));
});
