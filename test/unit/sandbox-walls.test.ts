/** Which walls a sandboxed command ran into: the notes the model reads and the kinds metrics count. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainFailure, explainWalls } from '../../sandbox/explain.js';

const limits = { memoryMb: 512, processes: 64, fileSizeMb: 100, cpuSeconds: 60 } as never;

describe('sandbox walls', () => {
  it('names each wall with its kind, and the notes are the same as before', () => {
    const outcome = {
      output: 'touch: /etc/x: Read-only file system\nbash: fork: Resource temporarily unavailable',
      code: 1,
      signal: null,
    };
    const context = { limits, network: 'none' as const, denied: ['example.com'], memoryHit: true };
    const walls = explainWalls(outcome, context);
    assert.deepEqual(
      walls.map((w) => w.kind),
      ['network', 'read_only', 'processes', 'memory'],
    );
    assert.deepEqual(
      explainFailure(outcome, context),
      walls.map((w) => w.note),
    );
    assert.match(walls[0]!.note, /blocked network access to example\.com/);
  });

  it('finds no wall in an ordinary failure', () => {
    assert.deepEqual(
      explainWalls(
        { output: 'grep: no match', code: 1, signal: null },
        { limits, network: 'none', denied: [], memoryHit: false },
      ),
      [],
    );
  });
});
