/**
 * Tool batch planning (docs/tools.md): calls from one assistant message run concurrently only when
 * that cannot change their results; anything doubtful runs in call order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolCallRef, ToolTraits } from '../../common/tool-batch.js';
import { pathsOverlap, planToolBatch } from '../../common/tool-batch.js';

const READ: ToolTraits = { readOnly: true, pathScoped: true, serial: false };
const WRITE: ToolTraits = { readOnly: false, pathScoped: true, serial: false };
const SHELL: ToolTraits = { readOnly: false, pathScoped: false, serial: true };

let n = 0;
function ref(name: string, traits: ToolTraits | undefined, paths?: string[], argsError?: string): ToolCallRef {
  n += 1;
  const base = { id: `call_${n}`, name, summary: name, timeoutSeconds: 60, ...(paths ? { paths } : {}) };
  if (!traits || argsError)
    return {
      ...base,
      ...(traits ? { traits } : {}),
      kind: 'invalid',
      problem: traits ? 'invalid_arguments' : 'unknown_tool',
      argsError: argsError ?? `Tool '${name}' does not exist.`,
    };
  return { ...base, traits, argsKey: `k${n}`, kind: 'activity' };
}
const read = (path: string) => ref('read_file', READ, [path]);
const write = (...paths: string[]) => ref('write_file', WRITE, paths);
const mode = (...calls: ToolCallRef[]) => planToolBatch(calls).mode;

describe('planToolBatch', () => {
  it('runs a single call (or none) sequentially', () => {
    assert.equal(mode(), 'sequential');
    assert.equal(mode(read('a.txt')), 'sequential');
  });

  it('runs read-only calls in parallel, even on the same file', () => {
    assert.equal(mode(read('a.txt'), read('b.txt'), read('a.txt')), 'parallel');
    assert.equal(
      mode(ref('web_search', { readOnly: true, pathScoped: false, serial: false }), read('a.txt')),
      'parallel',
    );
  });

  it('runs file writes to different paths in parallel', () => {
    assert.equal(mode(write('src/a.ts'), write('src/b.ts'), write('docs/readme.md')), 'parallel');
    assert.equal(mode(write('src/a'), write('src/ab')), 'parallel');
  });

  it('runs writes to the same path sequentially', () => {
    assert.equal(mode(write('src/a.ts'), write('src/a.ts')), 'sequential');
    assert.equal(mode(write('src/a.ts'), write('./src/lib/../a.ts')), 'sequential');
  });

  it('runs writes to a directory and a path inside it sequentially', () => {
    assert.equal(mode(write('src'), write('src/a.ts')), 'sequential');
    assert.equal(mode(write('src/a.ts'), write('src/')), 'sequential');
    assert.equal(mode(write('.'), write('anything.txt')), 'sequential');
  });

  it('runs a read and a write of the same path sequentially, in either order', () => {
    assert.equal(mode(read('a.txt'), write('a.txt')), 'sequential');
    assert.equal(mode(write('a.txt'), read('a.txt')), 'sequential');
    assert.equal(mode(read('src/a.ts'), write('src')), 'sequential');
  });

  it('runs a read and a write of unrelated paths in parallel', () => {
    assert.equal(mode(read('a.txt'), write('b.txt')), 'parallel');
  });

  it('runs everything sequentially when a serial tool is in the batch', () => {
    assert.equal(mode(read('a.txt'), ref('terminal', SHELL)), 'sequential');
    // serial by name even if its traits claim otherwise
    assert.equal(mode(read('a.txt'), ref('clarify', READ)), 'sequential');
    assert.equal(mode(ref('todo', { readOnly: true, pathScoped: false, serial: false }), read('a.txt')), 'sequential');
    assert.equal(
      mode(read('a.txt'), ref('custom_serial', { readOnly: true, pathScoped: false, serial: true })),
      'sequential',
    );
  });

  it('runs sequentially when a tool is unknown (no traits)', () => {
    assert.equal(mode(read('a.txt'), ref('no_such_tool', undefined)), 'sequential');
  });

  it('runs sequentially when a call has invalid arguments', () => {
    assert.equal(mode(read('a.txt'), ref('read_file', READ, ['b.txt'], 'Invalid JSON arguments')), 'sequential');
  });

  it('runs sequentially when a writer does not say which paths it touches', () => {
    assert.equal(mode(read('a.txt'), ref('write_file', WRITE)), 'sequential');
    assert.equal(
      mode(read('a.txt'), ref('deploy', { readOnly: false, pathScoped: false, serial: false })),
      'sequential',
    );
  });
});

describe('pathsOverlap', () => {
  it('matches equal paths after normalising', () => {
    assert.ok(pathsOverlap('a/b.txt', 'a/b.txt'));
    assert.ok(pathsOverlap('./a//b.txt', 'a/b.txt'));
    assert.ok(pathsOverlap('a/x/../b.txt', 'a/b.txt'));
    assert.ok(pathsOverlap('a\\b.txt', 'a/b.txt'));
    assert.ok(pathsOverlap('a/', 'a'));
  });

  it('matches a directory and anything inside it, both ways round', () => {
    assert.ok(pathsOverlap('src', 'src/deep/file.ts'));
    assert.ok(pathsOverlap('src/deep/file.ts', 'src'));
  });

  it('treats the workspace root as overlapping everything', () => {
    assert.ok(pathsOverlap('.', 'x/y'));
    assert.ok(pathsOverlap('', 'x'));
  });

  it('does not match siblings or shared name prefixes', () => {
    assert.equal(pathsOverlap('src/a.ts', 'src/b.ts'), false);
    assert.equal(pathsOverlap('src', 'src2/file'), false);
    assert.equal(pathsOverlap('lib/app', 'lib/apple'), false);
  });
});
