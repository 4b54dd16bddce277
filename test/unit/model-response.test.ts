/**
 * Model misbehaviour (docs/providers.md): a reply that arrived but is not a usable step. Each case is
 * retried a bounded number of times and then ends the turn clearly; the counters carry across the
 * calls of one turn, so a sequence is simulated by calling decideNextStep with one counters object.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  EMPTY_AFTER_TOOLS_NUDGE,
  MAX_CONTINUATIONS,
  MAX_EMPTY_RETRIES,
  MAX_INVALID_JSON_RECALLS,
  MAX_SCRATCHPAD_RETRIES,
  MAX_TRUNCATED_TOOL_RECALLS,
  MAX_UNKNOWN_TOOL_STREAK,
  decideNextStep,
  freshCounters,
  raisedOutputCap,
  type NextStep,
  type ResponseCounters,
  type ResponseFacts,
  type StepContext,
} from '../../common/model-response.js';

const reply = (over: Partial<ResponseFacts> = {}): ResponseFacts => ({
  finishReason: 'stop',
  text: 'Here is the answer.',
  toolCalls: [],
  scratchpadUnterminated: false,
  ...over,
});
const calls = (...names: string[]): ResponseFacts =>
  reply({ finishReason: 'tool_calls', text: '', toolCalls: names.map((name) => ({ name })) });
const unknownCall = (name = 'reed_file'): ResponseFacts =>
  reply({ finishReason: 'tool_calls', text: '', toolCalls: [{ name, problem: 'unknown_tool' as const }] });
const brokenCall = (finishReason = 'tool_calls'): ResponseFacts =>
  reply({ finishReason, text: '', toolCalls: [{ name: 'write_file', problem: 'invalid_json' as const }] });
const empty = (text = ''): ResponseFacts => reply({ text });

const ctx = (over: Partial<StepContext> = {}): StepContext => ({ lastStepWasTools: false, fallbacksLeft: 0, ...over });

/** Feed the same reply n times through one counters object and collect the step kinds. */
function run(r: ResponseFacts, n: number, c: ResponseCounters, context: StepContext): NextStep[] {
  return Array.from({ length: n }, () => decideNextStep(r, c, context));
}
const kinds = (steps: NextStep[]) => steps.map((s) => s.kind);

describe('decideNextStep: ordinary replies', () => {
  it('text that finished normally is the final answer', () => {
    for (const finishReason of ['stop', 'end_turn', 'completed'])
      assert.deepEqual(decideNextStep(reply({ finishReason }), freshCounters(), ctx()), { kind: 'final' });
  });

  it('tool calls run the tools, with or without text and whatever the finish reason', () => {
    assert.deepEqual(decideNextStep(calls('read_file'), freshCounters(), ctx()), { kind: 'tools' });
    assert.deepEqual(
      decideNextStep(reply({ text: 'Reading it.', toolCalls: [{ name: 'read_file' }] }), freshCounters(), ctx()),
      { kind: 'tools' },
    );
    // a complete tool call at the output limit is still a usable tool call
    assert.deepEqual(
      decideNextStep(reply({ finishReason: 'length', toolCalls: [{ name: 'read_file' }] }), freshCounters(), ctx()),
      { kind: 'tools' },
    );
  });

  it('leaves fresh counters untouched on a normal step', () => {
    const c = freshCounters();
    decideNextStep(reply(), c, ctx());
    decideNextStep(calls('a', 'b'), c, ctx());
    assert.deepEqual(c, freshCounters());
  });
});

describe('decideNextStep: content filter', () => {
  it('falls back once when a fallback is available, then fails naming content_policy_blocked', () => {
    const c = freshCounters();
    const refusal = reply({ finishReason: 'content_filter', text: 'I cannot help with that.' });
    const first = decideNextStep(refusal, c, ctx({ fallbacksLeft: 2 }));
    assert.equal(first.kind, 'fallback');
    assert.equal(c.contentFilterFallbackUsed, true);
    const second = decideNextStep(refusal, c, ctx({ fallbacksLeft: 1 }));
    assert.equal(second.kind, 'fail');
    if (second.kind === 'fail') {
      assert.match(second.message, /^content_policy_blocked/);
      assert.ok(second.message.includes('I cannot help with that.'), 'the refusal text is quoted');
    }
  });

  it('fails at once without a fallback, and without quoting an empty refusal', () => {
    const step = decideNextStep(reply({ finishReason: 'content_filter', text: '' }), freshCounters(), ctx());
    assert.deepEqual(step, { kind: 'fail', message: 'content_policy_blocked: the provider refused to answer' });
  });

  it('quotes at most 200 characters of the refusal', () => {
    const step = decideNextStep(
      reply({ finishReason: 'content_filter', text: 'x'.repeat(1000) }),
      freshCounters(),
      ctx(),
    );
    assert.equal(step.kind, 'fail');
    if (step.kind === 'fail') assert.ok(step.message.length < 260, String(step.message.length));
  });

  it('does not apply to a reply that carries tool calls', () => {
    assert.equal(
      decideNextStep(
        reply({ finishReason: 'content_filter', toolCalls: [{ name: 'read_file' }] }),
        freshCounters(),
        ctx(),
      ).kind,
      'tools',
    );
  });
});

describe('decideNextStep: unterminated scratchpad', () => {
  it(`recalls ${MAX_SCRATCHPAD_RETRIES} times, then ends the turn as partial`, () => {
    const c = freshCounters();
    const steps = run(
      reply({ scratchpadUnterminated: true }),
      MAX_SCRATCHPAD_RETRIES + 2,
      c,
      ctx({ fallbacksLeft: 1 }),
    );
    assert.deepEqual(kinds(steps), [
      ...Array<string>(MAX_SCRATCHPAD_RETRIES).fill('recall'),
      'end_partial',
      'end_partial',
    ]);
    assert.equal(c.scratchpadRetries, MAX_SCRATCHPAD_RETRIES);
    const last = steps.at(-1)!;
    if (last.kind === 'end_partial') assert.match(last.message, /scratchpad/);
  });

  it('takes precedence over tool calls in the same reply', () => {
    const r = reply({ scratchpadUnterminated: true, toolCalls: [{ name: 'read_file' }] });
    assert.equal(decideNextStep(r, freshCounters(), ctx()).kind, 'recall');
  });
});

describe('decideNextStep: tool call cut off by the output limit', () => {
  it(`recalls with a raised output cap ${MAX_TRUNCATED_TOOL_RECALLS} times, then ends as partial`, () => {
    const c = freshCounters();
    const steps = run(brokenCall('length'), MAX_TRUNCATED_TOOL_RECALLS + 1, c, ctx());
    for (const s of steps.slice(0, MAX_TRUNCATED_TOOL_RECALLS)) {
      assert.equal(s.kind, 'recall');
      if (s.kind === 'recall') assert.equal(s.raiseOutputCap, true);
    }
    const last = steps.at(-1)!;
    assert.equal(last.kind, 'end_partial');
    if (last.kind === 'end_partial') assert.match(last.message, /truncated/);
    assert.equal(c.truncatedToolRecalls, MAX_TRUNCATED_TOOL_RECALLS);
    assert.equal(c.invalidJson, 0, 'a truncated call is not counted as invalid JSON');
  });
});

describe('decideNextStep: invalid JSON arguments', () => {
  it(`recalls silently ${MAX_INVALID_JSON_RECALLS} times, then runs the tools and resets the counter`, () => {
    const c = freshCounters();
    const steps = run(brokenCall(), 2 * (MAX_INVALID_JSON_RECALLS + 1), c, ctx());
    const cycle = [...Array<string>(MAX_INVALID_JSON_RECALLS).fill('recall'), 'tools'];
    assert.deepEqual(kinds(steps), [...cycle, ...cycle]);
    assert.equal(c.invalidJson, 0);
    const first = steps[0]!;
    assert.equal(first.kind, 'recall');
    if (first.kind === 'recall') {
      assert.match(first.why, /invalid JSON/);
      assert.match(first.why, /write_file/);
      assert.equal(first.note, undefined, 'the recall is silent');
      assert.equal(first.raiseOutputCap, undefined);
    }
  });

  it('names every broken call in the reason', () => {
    const r = reply({
      toolCalls: [
        { name: 'a', problem: 'invalid_json' as const },
        { name: 'b' },
        { name: 'c', problem: 'invalid_json' as const },
      ],
    });
    const s = decideNextStep(r, freshCounters(), ctx());
    assert.equal(s.kind === 'recall' && s.why.endsWith('a, c'), true, JSON.stringify(s));
  });
});

describe('decideNextStep: unknown tool names', () => {
  it(`ends the turn after ${MAX_UNKNOWN_TOOL_STREAK} consecutive replies calling unknown tools`, () => {
    const c = freshCounters();
    const steps = run(unknownCall('reed_file'), MAX_UNKNOWN_TOOL_STREAK, c, ctx());
    assert.deepEqual(kinds(steps), [...Array<string>(MAX_UNKNOWN_TOOL_STREAK - 1).fill('tools'), 'end_partial']);
    const last = steps.at(-1)!;
    if (last.kind === 'end_partial') assert.match(last.message, /reed_file/);
  });

  it('a reply without unknown tools resets the streak', () => {
    for (const breaker of [calls('read_file'), reply()]) {
      const c = freshCounters();
      const seq = [
        ...Array<ResponseFacts>(MAX_UNKNOWN_TOOL_STREAK - 1).fill(unknownCall()),
        breaker,
        ...Array<ResponseFacts>(MAX_UNKNOWN_TOOL_STREAK - 1).fill(unknownCall()),
      ];
      const steps = seq.map((r) => decideNextStep(r, c, ctx()));
      assert.ok(!steps.some((s) => s.kind === 'end_partial'), JSON.stringify(kinds(steps)));
      assert.equal(c.unknownToolStreak, MAX_UNKNOWN_TOOL_STREAK - 1);
      assert.equal(decideNextStep(unknownCall(), c, ctx()).kind, 'end_partial');
    }
  });

  it('counts a reply that mixes known and unknown tools, and names a nameless call', () => {
    const c = freshCounters();
    const mixed = reply({ toolCalls: [{ name: 'read_file' }, { name: '', problem: 'unknown_tool' as const }] });
    const steps = run(mixed, MAX_UNKNOWN_TOOL_STREAK, c, ctx());
    const last = steps.at(-1)!;
    assert.equal(last.kind, 'end_partial');
    if (last.kind === 'end_partial') {
      assert.match(last.message, /\(no name\)/);
      assert.doesNotMatch(last.message, /read_file/);
    }
  });
});

describe('decideNextStep: empty replies', () => {
  it('after tool results: nudges once, retries, falls back once, retries on the new provider, then ends', () => {
    const c = freshCounters();
    const context = ctx({ lastStepWasTools: true, fallbacksLeft: 1 });
    const steps = run(empty(), 2 * MAX_EMPTY_RETRIES + 4, c, context);
    const retries = Array<string>(MAX_EMPTY_RETRIES).fill('recall');
    // a switch resets the retry counters (docs/providers.md): the fallback provider gets its own retries
    assert.deepEqual(kinds(steps), ['recall', ...retries, 'fallback', ...retries, 'end_partial', 'end_partial']);
    const nudge = steps[0]!;
    assert.equal(nudge.kind === 'recall' && nudge.note, EMPTY_AFTER_TOOLS_NUDGE);
    for (const s of steps.slice(1, 1 + MAX_EMPTY_RETRIES))
      assert.equal(s.kind === 'recall' && s.note, undefined, 'plain retries carry no note');
    const last = steps.at(-1)!;
    if (last.kind === 'end_partial') assert.match(last.message, /empty/);
    assert.equal(c.nudged, true);
    assert.equal(c.emptyFallbackUsed, true);
  });

  it('after tool results without a fallback: nudge, retries, then ends', () => {
    const steps = run(empty(), MAX_EMPTY_RETRIES + 3, freshCounters(), ctx({ lastStepWasTools: true }));
    assert.deepEqual(kinds(steps), [
      'recall',
      ...Array<string>(MAX_EMPTY_RETRIES).fill('recall'),
      'end_partial',
      'end_partial',
    ]);
  });

  it('not after tool results: no nudge, just the retries', () => {
    const c = freshCounters();
    const steps = run(empty(), MAX_EMPTY_RETRIES + 2, c, ctx({ fallbacksLeft: 0 }));
    assert.deepEqual(kinds(steps), [...Array<string>(MAX_EMPTY_RETRIES).fill('recall'), 'end_partial', 'end_partial']);
    assert.ok(steps.every((s) => s.kind !== 'recall' || s.note === undefined));
    assert.equal(c.nudged, false);
  });

  it('counts whitespace-only text as empty', () => {
    for (const text of [' ', '\n\n', '\t \n '])
      assert.deepEqual(decideNextStep(empty(text), freshCounters(), ctx({ lastStepWasTools: true })), {
        kind: 'recall',
        why: 'empty reply after tool results',
        note: EMPTY_AFTER_TOOLS_NUDGE,
      });
  });

  it('an empty reply cut off by the output limit is continued, not retried as empty', () => {
    assert.deepEqual(decideNextStep(reply({ text: '', finishReason: 'length' }), freshCounters(), ctx()), {
      kind: 'continue_truncated',
    });
  });
});

describe('decideNextStep: text cut off by the output limit', () => {
  it(`continues ${MAX_CONTINUATIONS} times, then ends as partial`, () => {
    const c = freshCounters();
    const steps = run(reply({ finishReason: 'length', text: 'The first half of' }), MAX_CONTINUATIONS + 2, c, ctx());
    assert.deepEqual(kinds(steps), [
      ...Array<string>(MAX_CONTINUATIONS).fill('continue_truncated'),
      'end_partial',
      'end_partial',
    ]);
    assert.equal(c.continuations, MAX_CONTINUATIONS);
    const last = steps.at(-1)!;
    if (last.kind === 'end_partial') assert.match(last.message, /output limit/);
  });
});

describe('decideNextStep: a whole turn', () => {
  it('keeps separate budgets per kind of misbehaviour across one turn', () => {
    const c = freshCounters();
    const script: Array<[ResponseFacts, StepContext, NextStep['kind']]> = [
      [brokenCall(), ctx(), 'recall'],
      [calls('read_file'), ctx(), 'tools'],
      [empty(), ctx({ lastStepWasTools: true }), 'recall'], // the nudge
      [unknownCall(), ctx(), 'tools'],
      [unknownCall(), ctx(), 'tools'],
      [reply({ finishReason: 'length', text: 'part' }), ctx({ lastStepWasTools: true }), 'continue_truncated'],
      [empty(), ctx({ lastStepWasTools: true }), 'recall'], // no second nudge: a plain retry
      [brokenCall(), ctx(), 'recall'],
      [brokenCall(), ctx(), 'tools'], // the third invalid-JSON reply in this turn
      [reply(), ctx({ lastStepWasTools: true }), 'final'],
    ];
    const got = script.map(([r, context]) => decideNextStep(r, c, context).kind);
    assert.deepEqual(
      got,
      script.map(([, , k]) => k),
    );
    assert.deepEqual(c, {
      ...freshCounters(),
      invalidJson: 0,
      emptyRetries: 1,
      nudged: true,
      continuations: 1,
      unknownToolStreak: 0,
    });
  });
});

describe('raisedOutputCap', () => {
  const cases: Array<[number | undefined, number, number]> = [
    [undefined, 0, 4096],
    [undefined, 1, 8192],
    [undefined, 2, 16_384],
    [undefined, 3, 32_768],
    [undefined, 4, 32_768],
    [undefined, 20, 32_768],
    [1000, 1, 2000],
    [1000, 5, 32_000],
    [1000, 6, 32_768],
    [20_000, 1, 32_768],
    [64_000, 0, 64_000],
    [64_000, 3, 64_000], // a base above the cap is never lowered or raised
  ];
  for (const [base, n, want] of cases)
    it(`base ${base ?? 'default'}, attempt ${n} → ${want}`, () => assert.equal(raisedOutputCap(base, n), want));

  it('never decreases as attempts go on', () => {
    for (const base of [undefined, 512, 4096, 10_000, 40_000]) {
      let prev = 0;
      for (let n = 0; n < 10; n++) {
        const cap = raisedOutputCap(base, n);
        assert.ok(cap >= prev, `base ${base} n ${n}`);
        prev = cap;
      }
    }
  });
});
