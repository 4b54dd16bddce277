import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEARTBEAT_TAIL_CHARS, ToolHeartbeat } from '../../activities/tools/heartbeat-details.js';
import { installRedactor } from '../../runtime/secrets.js';

describe('tool heartbeat details', () => {
  it('carry the command, the elapsed time and a bounded, redacted output tail', () => {
    installRedactor([{ name: 'MY_TOKEN', value: 'supersecretvalue123' }]);
    let now = 1_000;
    const beat = new ToolHeartbeat('terminal', 'terminal: curl -H "x: supersecretvalue123" host', 0, () => now);
    assert.deepEqual(beat.details(), {
      tool: 'terminal',
      command: 'terminal: curl -H "x: [REDACTED:MY_TOKEN]" host',
      elapsedSeconds: 1,
    });
    // A secret that starts long before the last 500 characters is still caught; escapes are dropped.
    beat.output(`key sk-${'a'.repeat(40)}`);
    beat.output(`\x1b[31m${'x'.repeat(HEARTBEAT_TAIL_CHARS - 30)}\x1b[0m supersecretvalue123 done\n`);
    now = 2_500;
    const d = beat.details();
    assert.equal(d.elapsedSeconds, 2.5);
    assert.ok(d.outputTail!.length <= HEARTBEAT_TAIL_CHARS);
    assert.doesNotMatch(d.outputTail!, /supersecretvalue123/);
    assert.ok(!d.outputTail!.includes('\x1b'));
    assert.match(d.outputTail!, /\[REDACTED:MY_TOKEN\] done\n$/);
    beat.output('y'.repeat(100_000));
    now = 3_000;
    assert.equal(beat.details().outputTail, 'y'.repeat(HEARTBEAT_TAIL_CHARS));
  });
});
