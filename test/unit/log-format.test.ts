/**
 * Logs people can read: errors keep their message and cause in JSON (pino prints an Error under
 * any key but `err` as `{}`, and the workflow sandbox's errors fail `instanceof Error`), and the
 * foreground format is one line per record.
 */
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { describe, it } from 'node:test';
import { formatLogRecord, loggable } from '../../runtime/log-format.js';
import { cannotReachMessage } from '../../client/connection.js';

describe('log records', () => {
  it('serializes errors at any depth, from any realm, with their causes, cleaned', () => {
    const sandboxed = vm.runInNewContext('new TypeError("sandbox sk-1")') as Error;
    const out = JSON.parse(
      JSON.stringify(
        loggable({ error: sandboxed, deep: { e: new Error('outer', { cause: new Error('inner') }) } }, (s) =>
          s.replace('sk-1', '***'),
        ),
      ),
    ) as { error: { type: string; message: string }; deep: { e: { message: string; cause: { message: string } } } };
    assert.equal(out.error.type, 'TypeError');
    assert.equal(out.error.message, 'sandbox ***');
    assert.equal(out.deep.e.cause.message, 'inner');
  });

  it('formats a record as one readable line, errors spelled out', () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.now(),
      pid: 1,
      hostname: 'h',
      name: 'herald',
      msg: 'poll failed',
      attempt: 3,
      ctx: { queue: 'herald' },
      error: loggable(new Error('unavailable', { cause: new Error('connection refused') })),
    });
    const text = formatLogRecord(line);
    assert.match(text, /^\d\d:\d\d:\d\d WARN +poll failed {2}attempt=3 {2}ctx\.queue=herald\n/);
    assert.match(text, /\n {2}error: unavailable\n {4}caused by: connection refused\n$/);
    assert.doesNotMatch(text, /"level"/);
    assert.equal(formatLogRecord('plain text'), 'plain text\n');
  });
});

describe('cannot reach Temporal', () => {
  it('names the address tried, where it came from and how to start the stack', () => {
    const d = cannotReachMessage('127.0.0.1:17999', { kind: 'default', home: '/h', port: 17999 }, 'timeout');
    assert.match(d, /^cannot reach Temporal at 127\.0\.0\.1:17999 \(timeout\): no `herald dev` is running for \/h/);
    assert.match(d, /`herald dev`/);
    const gone = cannotReachMessage(
      '127.0.0.1:1',
      { kind: 'runtime', file: '/h/runtime.json', pid: 5 },
      'x',
      () => false,
    );
    assert.match(gone, /the `herald dev` that wrote it \(pid 5\) is gone; start the stack again with `herald dev`/);
    assert.match(cannotReachMessage('t:7233', { kind: 'env' }, 'x'), /that is TEMPORAL_ADDRESS/);
  });
});
