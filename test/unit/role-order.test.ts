/**
 * Message-order repair (docs/architecture.md): whatever an interrupt, crash or misbehaving model left in the
 * transcript, the copy sent to the provider must be well ordered, and the input is never mutated.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatMessage, ToolCall } from '../../common/messages.js';
import { MISSING_RESULT_STUB, canonicalArguments, isValidOrder, repairMessageOrder } from '../../shared/role-order.js';
import { prng } from '../support/prng.js';

const call = (id: string, name = 'read_file', args = '{}'): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});
const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string | null, calls?: ToolCall[]): ChatMessage =>
  calls ? { role: 'assistant', content, tool_calls: calls } : { role: 'assistant', content };
const tool = (id: string, content = `result ${id}`): ChatMessage => ({ role: 'tool', tool_call_id: id, content });
const shape = (messages: readonly ChatMessage[]) =>
  messages.map((m) => (m.role === 'tool' ? `tool:${m.tool_call_id}` : m.role));

describe('repairMessageOrder', () => {
  it('leaves a well-ordered transcript as it is', () => {
    const input = [
      { role: 'system', content: 'sys' } as ChatMessage,
      user('hi'),
      assistant('reading', [call('a'), call('b')]),
      tool('a'),
      tool('b'),
      assistant('done'),
    ];
    const out = repairMessageOrder(input);
    assert.deepEqual(out, input);
    assert.ok(isValidOrder(out));
  });

  it('merges consecutive user messages into one, joining their text', () => {
    const out = repairMessageOrder([user('first'), user('second'), assistant('ok')]);
    assert.deepEqual(shape(out), ['user', 'assistant']);
    assert.equal(out[0]!.content, 'first\n\nsecond');
  });

  it('merges consecutive assistant messages, joining text, reasoning and tool calls', () => {
    const out = repairMessageOrder([
      user('go'),
      { ...assistant('part one', [call('a')]), reasoning: 'think 1' },
      { ...assistant('part two', [call('b')]), reasoning: 'think 2' },
      tool('a'),
      tool('b'),
    ]);
    assert.deepEqual(shape(out), ['user', 'assistant', 'tool:a', 'tool:b']);
    assert.equal(out[1]!.content, 'part one\npart two');
    assert.equal(out[1]!.reasoning, 'think 1\n\nthink 2');
    assert.deepEqual(
      out[1]!.tool_calls!.map((c) => c.id),
      ['a', 'b'],
    );
    assert.ok(isValidOrder(out));
  });

  it('joins a reply split across consecutive assistant messages line by line, trimmed (as Hermes does)', () => {
    const out = repairMessageOrder([user('Hi'), assistant('Hello  '), assistant('\nHow can I help?'), user('Q2')]);
    assert.deepEqual(shape(out), ['user', 'assistant', 'user']);
    assert.equal(out[1]!.content, 'Hello\nHow can I help?');
    assert.ok(isValidOrder(out));
  });

  it('keeps a trailing user message after an assistant turn without tool calls as it is', () => {
    const input = [user('Q1'), assistant('A1'), user('Q2')];
    assert.deepEqual(repairMessageOrder(input), input);
    const empty = repairMessageOrder([user('Q1'), { ...assistant('A1'), tool_calls: [] }, user('Q2')]);
    assert.deepEqual(shape(empty), ['user', 'assistant', 'user']);
    assert.equal('tool_calls' in empty[1]!, false, 'an empty tool_calls list is not sent');
  });

  it('a call left unanswered before the next user message is stubbed, not pruned (a deliberate difference)', () => {
    // Hermes drops the unanswered call (and the assistant turn, when nothing else is left
    // in it). Herald keeps it with a stub: the command may have run before the crash, and the
    // model must know it tried.
    const out = repairMessageOrder([
      user('go'),
      assistant(null, [call('a', 'terminal')]),
      assistant('checking'),
      user('well?'),
    ]);
    assert.deepEqual(shape(out), ['user', 'assistant', 'tool:a', 'user']);
    assert.equal(out[1]!.content, 'checking');
    assert.equal(out[2]!.content, MISSING_RESULT_STUB);
    assert.ok(isValidOrder(out));
  });

  it('keeps one copy of a tool call repeated across merged assistant messages', () => {
    const out = repairMessageOrder([
      user('go'),
      assistant(null, [call('a')]),
      assistant(null, [call('a'), call('b')]),
      tool('a'),
      tool('b'),
    ]);
    assert.deepEqual(
      out[1]!.tool_calls!.map((c) => c.id),
      ['a', 'b'],
    );
    assert.ok(isValidOrder(out));
  });

  it('drops tool results that answer no call of the preceding assistant message', () => {
    const out = repairMessageOrder([
      user('hi'),
      tool('ghost'),
      assistant('text only'),
      tool('ghost2'),
      user('again'),
      assistant(null, [call('a')]),
      tool('zzz'),
      tool('a'),
    ]);
    assert.deepEqual(shape(out), ['user', 'assistant', 'user', 'assistant', 'tool:a']);
    assert.equal(out[4]!.content, 'result a');
    assert.ok(isValidOrder(out));
  });

  it('drops a tool result without a tool_call_id', () => {
    const out = repairMessageOrder([
      user('hi'),
      assistant(null, [call('a')]),
      { role: 'tool', content: 'anonymous' },
      tool('a'),
    ]);
    assert.deepEqual(shape(out), ['user', 'assistant', 'tool:a']);
  });

  it('keeps only the first of duplicate results for the same call', () => {
    const out = repairMessageOrder([
      user('hi'),
      assistant(null, [call('a')]),
      tool('a', 'first'),
      tool('a', 'second'),
      assistant('done'),
    ]);
    assert.deepEqual(shape(out), ['user', 'assistant', 'tool:a', 'assistant']);
    assert.equal(out[2]!.content, 'first');
  });

  it('adds a stub result for every call left without one, in call order', () => {
    const out = repairMessageOrder([
      user('hi'),
      assistant(null, [call('a', 'terminal'), call('b'), call('c')]),
      tool('b'),
      user('are you there?'),
    ]);
    assert.deepEqual(shape(out), ['user', 'assistant', 'tool:b', 'tool:a', 'tool:c', 'user']);
    assert.equal(out[3]!.content, MISSING_RESULT_STUB);
    assert.equal(out[3]!.name, 'terminal');
    assert.equal(out[4]!.content, MISSING_RESULT_STUB);
    assert.ok(isValidOrder(out));
  });

  it('stubs open calls at the end of the transcript (a crash mid-tool)', () => {
    const out = repairMessageOrder([user('hi'), assistant('working', [call('a'), call('b')]), tool('a')]);
    assert.deepEqual(shape(out), ['user', 'assistant', 'tool:a', 'tool:b']);
    assert.equal(out[3]!.content, MISSING_RESULT_STUB);
  });

  it('never modifies its input', () => {
    const input: ChatMessage[] = [
      user('a'),
      user('b'),
      assistant('x', [call('1', 'read_file', '{"b":1,"a":2}')]),
      assistant('y', [call('2')]),
      tool('9'),
      tool('1'),
    ];
    const snapshot = structuredClone(input);
    const out = repairMessageOrder(input);
    assert.deepEqual(input, snapshot);
    // the output shares no mutable objects with the input
    out[0]!.content = 'changed';
    out[1]!.tool_calls![0]!.function.arguments = 'changed';
    assert.deepEqual(input, snapshot);
  });

  it('returns an empty list for an empty transcript', () => {
    assert.deepEqual(repairMessageOrder([]), []);
  });

  it('produces a valid order when one assistant message repeats a call id', () => {
    const out = repairMessageOrder([user('hi'), assistant(null, [call('a'), call('a')])]);
    assert.ok(isValidOrder(out), JSON.stringify(shape(out)));
    assert.deepEqual(shape(out), ['user', 'assistant', 'tool:a']);
  });
});

describe('isValidOrder', () => {
  it('accepts system, alternating turns and fully answered tool calls', () => {
    assert.ok(isValidOrder([]));
    assert.ok(
      isValidOrder([
        { role: 'system', content: 's' },
        user('q'),
        assistant(null, [call('a')]),
        tool('a'),
        assistant('a'),
      ]),
    );
  });

  it('rejects each kind of disorder', () => {
    assert.equal(isValidOrder([user('a'), user('b')]), false, 'two users in a row');
    assert.equal(isValidOrder([user('a'), assistant('x'), assistant('y')]), false, 'two assistants in a row');
    assert.equal(isValidOrder([user('a'), { role: 'system', content: 's' }]), false, 'system not first');
    assert.equal(isValidOrder([user('a'), tool('a')]), false, 'orphan result');
    assert.equal(isValidOrder([user('a'), assistant(null, [call('a')])]), false, 'unanswered call at the end');
    assert.equal(
      isValidOrder([user('a'), assistant(null, [call('a')]), user('b')]),
      false,
      'unanswered call before a user',
    );
    assert.equal(
      isValidOrder([user('a'), assistant(null, [call('a')]), tool('a'), tool('a')]),
      false,
      'duplicate result',
    );
  });
});

describe('canonicalArguments', () => {
  it('sorts keys at every depth and removes whitespace', () => {
    assert.equal(
      canonicalArguments('{ "b": 1, "a": { "z": [ {"y": 2, "x": 1} ], "c": null } }'),
      '{"a":{"c":null,"z":[{"x":1,"y":2}]},"b":1}',
    );
  });

  it('gives identical bytes for identical calls written differently', () => {
    assert.equal(
      canonicalArguments('{"path":"a.txt","offset":2}'),
      canonicalArguments('{\n  "offset": 2,\n  "path": "a.txt"\n}'),
    );
  });

  it('returns text that is not JSON unchanged', () => {
    assert.equal(canonicalArguments('{"path": "a.txt"'), '{"path": "a.txt"');
    assert.equal(canonicalArguments(''), '');
  });
});

describe('repairMessageOrder property', () => {
  function randomTranscript(rand: () => number): ChatMessage[] {
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const ids = ['c1', 'c2', 'c3', 'c4', 'c5'];
    const out: ChatMessage[] = [];
    if (rand() < 0.5) out.push({ role: 'system', content: 'system prompt' });
    const length = Math.floor(rand() * 14);
    for (let i = 0; i < length; i++) {
      const r = rand();
      if (r < 0.25) out.push(user(pick(['hi', '', 'more'])));
      else if (r < 0.4) out.push(assistant(pick(['answer', null, ''])));
      else if (r < 0.65) {
        // 0–3 calls; ids repeat across messages and sometimes within one
        const n = Math.floor(rand() * 4);
        const chosen = Array.from({ length: n }, () => pick(ids));
        out.push(
          assistant(
            pick(['calling', null]),
            chosen.map((id) => call(id, pick(['read_file', 'terminal']))),
          ),
        );
      } else if (r < 0.95) out.push(tool(pick(ids)));
      else out.push({ role: 'tool', content: 'no id' });
    }
    return out;
  }

  it('always produces a valid order for 500 random transcripts', () => {
    const rand = prng(0x5eed);
    let brokenInputs = 0;
    for (let i = 0; i < 500; i++) {
      const input = randomTranscript(rand);
      if (!isValidOrder(input)) brokenInputs++;
      const snapshot = structuredClone(input);
      const out = repairMessageOrder(input);
      assert.ok(isValidOrder(out), `case ${i}: ${JSON.stringify(shape(input))} → ${JSON.stringify(shape(out))}`);
      assert.deepEqual(input, snapshot, `case ${i}: input was modified`);
      // repairing twice changes nothing more
      assert.deepEqual(repairMessageOrder(out), out, `case ${i}: not idempotent`);
    }
    // the generator must actually produce disorder for the property to mean anything
    assert.ok(brokenInputs > 250, `only ${brokenInputs} of 500 inputs needed repair`);
  });
});
