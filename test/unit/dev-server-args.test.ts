import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { devServerArgs } from '../../workers/temporal-dev-server.js';

/** The value following each occurrence of `flag`. */
function values(args: string[], flag: string): string[] {
  return args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));
}

describe('devServerArgs', () => {
  it('raises the transfer queue poll rate, enables eager activities and skips search-attribute re-reads', () => {
    const dyn = values(devServerArgs({ port: 7233 }), '--dynamic-config-value');
    assert.ok(dyn.includes('history.transferProcessorMaxPollRPS=1000'));
    assert.ok(dyn.includes('system.enableActivityEagerExecution=true'));
    assert.ok(dyn.includes('system.forceSearchAttributesCacheRefreshOnRead=false'));
  });
  it('puts a file-backed database in WAL mode with normal sync; an in-memory one has no pragmas', () => {
    const file = devServerArgs({ port: 7233, dbFile: '/home/x/.herald/temporal/history.db' });
    assert.deepEqual(values(file, '--db-filename'), ['/home/x/.herald/temporal/history.db']);
    assert.deepEqual(values(file, '--sqlite-pragma'), ['journal_mode=wal', 'synchronous=normal']);
    assert.deepEqual(values(devServerArgs({ port: 7233 }), '--sqlite-pragma'), []);
  });
  it('runs headless without a UI port, names a non-default namespace, and puts extra arguments last', () => {
    const args = devServerArgs({ port: 7300, uiPort: 8300, namespace: 'agents', extraArgs: ['--x', 'y'] });
    assert.deepEqual(args.slice(0, 8), [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      '7300',
      '--log-level',
      'warn',
    ]);
    assert.deepEqual(values(args, '--ui-port'), ['8300']);
    assert.deepEqual(values(args, '--namespace'), ['agents']);
    assert.deepEqual(args.slice(-2), ['--x', 'y']);
    assert.ok(devServerArgs({ port: 7300 }).includes('--headless'));
    assert.deepEqual(values(devServerArgs({ port: 7300, namespace: 'default' }), '--namespace'), []);
  });
  it('registers every Herald search attribute as a keyword', () => {
    const attrs = values(devServerArgs({ port: 7233 }), '--search-attribute');
    assert.ok(attrs.length > 0 && attrs.every((a) => a.endsWith('=Keyword')));
  });
});
