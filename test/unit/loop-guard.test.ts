/**
 * Tool-loop guardrails (issue 14): the same call with the same result is nudged, then answered
 * from the earlier result, then refused; calls of one reply run once; a run of repeats ends the turn.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LOOP_GUARD, LoopGuard, canonicalJson, duplicatesInReply } from '../../common/loop-guard.js';

const read = { name: 'read_file', argsKey: 'k-settings', readOnly: true };
const shell = { name: 'terminal', argsKey: 'k-ls', readOnly: false };

describe('loop guard', () => {
  it('a model repeating read_file is nudged, answered from the earlier result, refused, then halted', () => {
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    const seen: string[] = [];
    for (let i = 1; i <= 10 && !g.shouldHalt(); i++) {
      const d = g.decide(read);
      if (d.action === 'run') {
        g.ran(read, i * 2, 'same-result');
        seen.push(g.takeNudges() ? 'ran+nudge' : 'ran');
      } else seen.push(d.refused ? 'refused' : 'reference');
    }
    assert.deepEqual(seen, ['ran', 'ran+nudge', 'reference', 'reference', 'refused', 'refused', 'refused']);
    assert.equal(g.shouldHalt(), true);
    assert.deepEqual(g.stats, { nudges: 3, refusals: 3, halts: 0 });
  });

  it('asks for one tool-less request after it answered a call itself, not after calls that ran', () => {
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    const pauses: boolean[] = [];
    for (let i = 1; i <= 4; i++) {
      const d = g.decide(read);
      if (d.action === 'run') g.ran(read, i * 2, 'same-result');
      pauses.push(g.takePause());
    }
    assert.deepEqual(pauses, [false, false, true, true]);
    assert.equal(g.takePause(), false, 'the flag clears once taken');
    const off = new LoopGuard({ ...DEFAULT_LOOP_GUARD, enabled: false });
    off.ran(read, 1, 'r');
    off.decide(read);
    off.decide(read);
    assert.equal(off.takePause(), false);
  });

  it('answers a repeat of a failed call from its earlier result at once, whatever the tool', () => {
    const patch = { name: 'patch', argsKey: 'k-patch', readOnly: false };
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    g.ran(patch, 2, 'identical-strings-error', true);
    const d = g.decide(patch);
    assert.equal(d.action, 'answer');
    assert.equal(g.takePause(), true);
    const old = new LoopGuard(DEFAULT_LOOP_GUARD, undefined, false);
    old.ran(patch, 2, 'identical-strings-error', true);
    assert.equal(old.decide(patch).action, 'run', 'guards of older workflows keep the recorded rules');
    assert.equal(old.takePause(), false);
  });

  it('the reference names the result it stands for and refusals say why', () => {
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    g.ran(read, 3, 'r');
    g.decide(read);
    g.ran(read, 5, 'r');
    const ref = g.decide(read);
    assert.equal(ref.action, 'answer');
    assert.match(ref.action === 'answer' ? ref.text : '', /read_file .*unchanged \(message #5 above\)/);
    g.decide(read);
    const refused = g.decide(read);
    assert.match(refused.action === 'answer' ? refused.text : '', /^\[Refused: read_file was called 5 times/);
  });

  it('a terminal command still runs on repeats (with a nudge) until it is refused', () => {
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const d = g.decide(shell);
      if (d.action === 'run') {
        g.ran(shell, i, 'out');
        seen.push('ran');
      } else seen.push(d.refused ? 'refused' : 'reference');
    }
    assert.deepEqual(seen, ['ran', 'ran', 'ran', 'ran', 'refused']);
  });

  it('a changed result is progress: the count starts again', () => {
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    for (let i = 0; i < 20; i++) {
      const d = g.decide(shell);
      assert.equal(d.action, 'run');
      g.ran(shell, i, `output ${i}`);
      assert.equal(g.shouldHalt(), false);
    }
    assert.equal(g.takeNudges(), undefined);
  });

  it('edits that put a file back the way an earlier edit left it are repeats and pause tools; one revert is not', () => {
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    const edit = (n: number, state: string) => {
      const call = { name: 'patch', argsKey: `edit ${n}`, readOnly: false };
      assert.equal(g.decide(call).action, 'run');
      g.ran(call, n, `result ${n}`);
      return g.edited(state);
    };
    // The user's file is A. 317 → 320 (B), back to 317 (A: a revert, A was no edit's result).
    assert.equal(edit(1, 'B'), false);
    assert.equal(edit(2, 'A'), false);
    assert.equal(g.takePause(), false);
    // And round again: B is what edit 1 left.
    assert.equal(edit(3, 'B'), true);
    assert.equal(g.takePause(), true);
    assert.equal(g.stats.nudges, 1);
    // Going on in circles counts towards the halt like any repeat.
    for (let n = 4; n < 9; n++) edit(n, n % 2 ? 'A' : 'B');
    assert.equal(g.shouldHalt(), true);
    const off = new LoopGuard({ ...DEFAULT_LOOP_GUARD, enabled: false });
    assert.equal(off.edited('B') || off.edited('B'), false);
  });

  it('other calls in between keep the turn going; turned off, nothing is guarded', () => {
    const g = new LoopGuard({ ...DEFAULT_LOOP_GUARD, maxRepeats: 100 });
    g.ran(read, 1, 'r');
    for (let i = 0; i < 12; i++) {
      g.decide(read);
      g.other();
      assert.equal(g.shouldHalt(), false);
    }
    const off = new LoopGuard({ ...DEFAULT_LOOP_GUARD, enabled: false });
    for (let i = 0; i < 10; i++) {
      assert.equal(off.decide(read).action, 'run');
      off.ran(read, i, 'r');
    }
    assert.equal(off.shouldHalt(), false);
    assert.equal(off.takeNudges(), undefined);
  });

  it('calls without an arguments key (recorded before it) are never guarded', () => {
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    const old = { name: 'read_file', readOnly: true };
    for (let i = 0; i < 10; i++) {
      assert.equal(g.decide(old).action, 'run');
      g.ran(old, i, 'r');
    }
    assert.equal(g.shouldHalt(), false);
  });

  it('duplicate (name, arguments) pairs in one reply point at their first call', () => {
    const dupes = duplicatesInReply([
      read,
      { ...read, argsKey: 'other' },
      read,
      { ...read, name: 'search_files' },
      read,
      { name: 'read_file', readOnly: true },
    ]);
    assert.deepEqual(
      [...dupes],
      [
        [2, 0],
        [4, 0],
      ],
    );
  });

  it('canonical JSON ignores key order at every level', () => {
    assert.equal(
      canonicalJson({ path: 'a', opts: { limit: 5, offset: 1 }, list: [{ b: 1, a: 2 }] }),
      canonicalJson({ list: [{ a: 2, b: 1 }], opts: { offset: 1, limit: 5 }, path: 'a' }),
    );
    assert.notEqual(canonicalJson({ path: 'a' }), canonicalJson({ path: 'b' }));
    assert.equal(canonicalJson({ a: undefined, b: null }), '{"b":null}');
  });
});
