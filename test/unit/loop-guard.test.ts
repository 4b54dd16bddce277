/**
 * Tool-loop guardrails (docs/loop-guard.md): the same call with the same result, nothing changed in between,
 * is nudged, then (a read) answered from the earlier result, then refused; identical reads of one
 * reply run once; a run of repeats ends the turn; anything that may change a result starts over.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_LOOP_GUARD,
  LoopGuard,
  callEffect,
  canonicalJson,
  duplicatesInReply,
} from '../../common/loop-guard.js';

const read = { name: 'read_file', argsKey: 'k-settings', readOnly: true };
const shell = { name: 'terminal', argsKey: 'k-ls', readOnly: false };
const patch = { name: 'patch', argsKey: 'k-patch', readOnly: false, effect: 'checked' as const };

describe('loop guard', () => {
  it('a model repeating read_file is nudged, answered from the earlier result, refused, then halted', () => {
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    const seen: string[] = [];
    for (let i = 1; i <= 10 && !g.shouldHalt(); i++) {
      const d = g.decide(read);
      if (d.action === 'run') {
        const note = g.ran(read, i * 2, 'same-result');
        seen.push(g.takeNudges() ? 'ran+nudge' : 'ran');
        // The note for the status event comes with the nudge, from the guard itself.
        assert.equal(note !== undefined, seen.at(-1) === 'ran+nudge');
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

  it('a failed read is answered from its result at once; a failed command or edit runs again', () => {
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    g.ran(read, 2, 'no-such-file', true);
    assert.equal(g.decide(read).action, 'answer', 'a read that failed fails the same way again');
    assert.equal(g.takePause(), true);
    // The test run failed (exit 1): running it again is never answered from that result.
    g.ran(shell, 4, 'exit-1', true);
    assert.deepEqual(g.decide(shell), { action: 'run', repeat: 1 });
    g.ran(shell, 6, 'exit-1', true);
    assert.match(g.takeNudges()!, /you called terminal 2 times/);
    assert.equal(g.takePause(), false, 'a command that failed again is nudged, tools stay');
    // A built-in edit that fails the same way again runs, and then the tools pause.
    g.ran(patch, 8, 'identical-strings-error', true);
    assert.deepEqual(g.decide(patch), { action: 'run', repeat: 1 });
    g.ran(patch, 10, 'identical-strings-error', true);
    assert.equal(g.takePause(), true);
  });

  it('run the tests, fix the code, run them again: the second run is a first call, whatever its result', () => {
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    const test = { name: 'terminal', argsKey: 'k-python3 test_app.py', readOnly: false };
    for (let round = 0; round < 10; round++) {
      // Even a fix that fixes nothing (the same failure every time) is real work, not a loop.
      assert.deepEqual(g.decide(test), { action: 'run', repeat: 0 }, `round ${round}`);
      g.ran(test, round * 2, 'FAILED: add(2, 3) == -1', true);
      const fix = { ...patch, argsKey: `fix ${round}` };
      assert.equal(g.decide(fix).action, 'run');
      g.ran(fix, round * 2 + 1, `patched ${round}`);
    }
    assert.equal(g.takeNudges(), undefined);
    assert.equal(g.takePause(), false);
    assert.equal(g.shouldHalt(), false);
    assert.deepEqual(g.stats, { nudges: 0, refusals: 0, halts: 0 });
  });

  it('a read after an edit, a command, a delegation, a clarify answer or steer text runs again', () => {
    const changes: Array<[string, (g: LoopGuard) => void]> = [
      ['patch', (g) => g.ran(patch, 9, 'patched')],
      ['terminal', (g) => g.ran(shell, 9, 'out')],
      ['mcp', (g) => g.ran({ name: 'mcp_fs_touch', argsKey: 'k', readOnly: false }, 9, 'ok')],
      ['memory', (g) => g.ran({ name: 'memory', argsKey: 'k', readOnly: false, effect: 'checked' }, 9, 'Saved')],
      ['delegation', (g) => g.other(true)],
      ['steer', (g) => g.changed()],
    ];
    for (const [what, change] of changes) {
      const g = new LoopGuard(DEFAULT_LOOP_GUARD);
      g.ran(read, 1, 'r');
      g.ran(read, 2, 'r');
      assert.ok(g.takeNudges(), 'the second read was a repeat');
      change(g);
      assert.deepEqual(g.decide(read), { action: 'run', repeat: 0 }, what);
      g.ran(read, 3, 'r');
      assert.equal(g.takeNudges(), undefined, what);
    }
  });

  it('reads, todo lists and failed edits change nothing: repeats around them still count', () => {
    const g = new LoopGuard(DEFAULT_LOOP_GUARD);
    const todo = { name: 'todo', argsKey: 'k-list', readOnly: false, effect: 'list' as const };
    const failedPatch = { ...patch, effect: 'checked' as const };
    g.ran(read, 1, 'r');
    g.ran({ ...read, argsKey: 'other file' }, 2, 'o');
    g.ran(todo, 3, 'list');
    g.ran(failedPatch, 4, 'old_string not found', true);
    assert.deepEqual(g.decide(read), { action: 'run', repeat: 1 });
  });

  it('says what each call may change', () => {
    assert.equal(callEffect({ name: 'read_file', readOnly: true, kind: 'activity' }), 'none');
    assert.equal(callEffect({ name: 'mcp_docs_search', readOnly: true, kind: 'mcp' }), 'none');
    assert.equal(callEffect({ name: 'todo', readOnly: false, kind: 'todo' }), 'list');
    for (const name of ['patch', 'write_file', 'memory'])
      assert.equal(callEffect({ name, readOnly: false, kind: 'activity' }), 'checked');
    assert.equal(callEffect({ name: 'terminal', readOnly: false, kind: 'activity' }), 'any');
    assert.equal(callEffect({ name: 'patch', readOnly: false, kind: 'mcp' }), 'any', 'only built-in edits are checked');
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

  it('the same command again with nothing in between runs, is nudged, and past maxRepeats is refused', () => {
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
    assert.equal(g.stats.nudges, 3);
    assert.equal(g.takePause(), true, 'a refusal pauses the tools');
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

  it('a duplicate read in one reply points at the first; commands, and reads after an edit, run', () => {
    const test = { name: 'terminal', argsKey: 'k-test', readOnly: false };
    const todo = { name: 'todo', argsKey: 'k-list', readOnly: false, effect: 'list' as const };
    assert.deepEqual([...duplicatesInReply([test, patch, test])], []);
    assert.deepEqual([...duplicatesInReply([read, patch, read])], []);
    assert.deepEqual([...duplicatesInReply([read, test, read, read])], [[3, 2]]);
    assert.deepEqual([...duplicatesInReply([read, todo, read])], [[2, 0]]);
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
