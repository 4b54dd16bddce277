/**
 * common/ is the code workflows may import, and only that: each of its modules is reached from
 * workflows/ through imports (type imports included). A pure module no workflow needs lives in
 * shared/, where it is free to grow what a workflow must not have.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../runtime/paths.js';

const modulesIn = (folder: string): string[] =>
  readdirSync(join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `${folder}/${name.split('\\').join('/')}`);

/** Every workflows/ and common/ module reached from workflows/ by relative imports and re-exports. */
function reachedFromWorkflows(): Set<string> {
  const reached = new Set<string>();
  const todo = modulesIn('workflows');
  while (todo.length) {
    const file = todo.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
    for (const m of text.matchAll(/\b(?:import|export)\b[^'";]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = relative(PROJECT_ROOT, resolve(dirname(join(PROJECT_ROOT, file)), m[1]!.replace(/\.js$/, '.ts')));
      if (/^(workflows|common)\//.test(target) && existsSync(join(PROJECT_ROOT, target))) todo.push(target);
    }
  }
  return reached;
}

describe('common/', () => {
  it('holds only modules that workflows import', () => {
    const reached = reachedFromWorkflows();
    const unused = modulesIn('common').filter((m) => !reached.has(m));
    assert.deepEqual(unused, [], 'common/ modules no workflow imports (move them to shared/)');
  });
});
