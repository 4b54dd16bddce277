/**
 * docs/architecture.md's module map is the tree as it is: every module it lists exists, every
 * module of the production folders is listed once, and each line says what the module is.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import { BUILD_FOLDERS } from '../support/build-folders.js';
import { readDoc } from '../support/docs.js';

/** What `npm run build` compiles for the package, without the test support it ships for the demo. */
const PRODUCTION_FOLDERS = BUILD_FOLDERS;

function modulesOnDisk(): string[] {
  return PRODUCTION_FOLDERS.flatMap((folder) =>
    readdirSync(join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `${folder}/${name.split('\\').join('/')}`),
  ).sort();
}

/** The map's lines: `- \`path\`: what it is`, between its heading and the next one. */
function mapLines(): { path: string; says: string }[] {
  const doc = readDoc('docs/architecture.md');
  const start = doc.indexOf('\n## Module map\n');
  assert.ok(start >= 0, 'docs/architecture.md has a "Module map" section');
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^- `([^`]+)`: (.*)$/gm)].map((m) => ({ path: m[1]!, says: m[2]!.trim() }));
}

describe('docs/architecture.md module map', () => {
  const listed = mapLines();
  const onDisk = modulesOnDisk();

  it('lists every module of the production folders, each once', () => {
    const paths = listed.map((l) => l.path);
    const missing = onDisk.filter((m) => !paths.includes(m));
    assert.deepEqual(missing, [], 'modules with no line in the map (add one)');
    const twice = paths.filter((p, i) => paths.indexOf(p) !== i);
    assert.deepEqual(twice, [], 'modules listed twice');
  });

  it('lists only modules that exist', () => {
    const gone = listed.map((l) => l.path).filter((p) => !onDisk.includes(p));
    assert.deepEqual(gone, [], 'lines for modules that are not in the tree (remove or rename them)');
  });

  it('says what each module is', () => {
    for (const { path, says } of listed) assert.ok(says.length >= 8, `${path}: "${says}" says too little`);
  });
});
