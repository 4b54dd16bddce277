/**
 * A stop says what it was (docs/human-control.md): a person's `/stop`, a client that went away, a
 * deadline, a budget — in the turn's result, its `turn.ended` event, `state` and the transcript.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { StopKind } from '../../common/stop-kind.js';
import { interruptedNote } from '../../common/stop-kind.js';
import type { TestStack } from '../support/stack.js';
import { createTestStack, eventually } from '../support/stack.js';

describe('stop kinds', () => {
  let stack: TestStack;
  before(async () => {
    stack = await createTestStack();
  });
  after(async () => {
    await stack.close();
  });
  beforeEach(() => {
    stack.fake.reset();
  });

  for (const kind of ['user', 'client_gone', 'deadline'] as const satisfies readonly StopKind[]) {
    it(`a stop of kind ${kind} says so everywhere`, async () => {
      stack.fake.script([{ text: 'thinking slowly', hangAfterChunks: 2 }]);
      const session = `kind-${kind.replace('_', '-')}`;
      const conv = stack.herald.conversation(session);
      const pending = conv.send('take your time', { start: {} });
      await eventually(async () => (await stack.events(session)).some((e) => e.kind === 'text.delta'));
      await conv.stop(undefined, kind === 'user' ? {} : { kind });
      const result = await pending;
      assert.equal(result.interrupted, true);
      assert.equal(result.stop_kind, kind);
      const transcript = await stack.transcript(session);
      assert.deepEqual(transcript.at(-1), { ...transcript.at(-1), role: 'assistant', content: interruptedNote(kind) });
      const ended = (await stack.events(session)).find((e) => e.kind === 'turn.ended');
      assert.equal((ended!.payload.result as { stop_kind?: string }).stop_kind, kind);
      assert.equal((await conv.state()).last_result?.stop_kind, kind);
    });
  }

  it('a turn the iteration budget ended says budget', async () => {
    stack.fake.script([
      { toolCalls: [{ name: 'todo', arguments: { todos: [{ id: '1', content: 'a', status: 'pending' }] } }] },
      { text: 'summary at the budget' },
    ]);
    const r = await stack.herald
      .conversation('kind-budget')
      .send('work', { start: { maxIterations: 1, toolsets: ['todo'] } });
    assert.equal(r.turn_exit_reason, 'budget_exhausted');
    assert.equal(r.stop_kind, 'budget');
  });
});
