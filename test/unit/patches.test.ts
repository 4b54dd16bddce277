/**
 * Patches go through one registry (workflows/patches.ts): no other module calls `patched` or
 * `deprecatePatch`, every entry is well-formed, and docs/architecture.md lists exactly the registry.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import type { PatchEntry } from '../../workflows/patches.js';
import { PATCHES, renderPatchList } from '../../workflows/patches.js';
import { BUILD_FOLDERS } from '../support/build-folders.js';
import { readDoc } from '../support/docs.js';

const REGISTRY = 'workflows/patches.ts';
const SOURCE_FOLDERS = BUILD_FOLDERS;
const START = '<!-- patches: generated from workflows/patches.ts -->';
const END = '<!-- /patches -->';

function sources(folder: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(PROJECT_ROOT, folder))) {
    const path = join(PROJECT_ROOT, folder, name);
    if (statSync(path).isDirectory()) out.push(...sources(relative(PROJECT_ROOT, path)));
    else if (name.endsWith('.ts')) out.push(relative(PROJECT_ROOT, path));
  }
  return out;
}

describe('patches (workflows/patches.ts)', () => {
  it('are asked for only through the registry: no patched( or deprecatePatch( anywhere else', () => {
    const offenders = SOURCE_FOLDERS.flatMap(sources)
      .filter((f) => f !== REGISTRY)
      .filter((f) => {
        const text = readFileSync(join(PROJECT_ROOT, f), 'utf8');
        return (
          /\b(?:patched|deprecatePatch)\s*\(/.test(text) ||
          /import[^;]*\b(?:patched|deprecatePatch)\b[^;]*from '@temporalio\/workflow'/.test(text)
        );
      });
    assert.deepEqual(offenders, []);
  });

  it('each name a unique id, the release that introduced it and when it may be deprecated', () => {
    const entries = PATCHES as readonly PatchEntry[];
    const ids = entries.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'patch ids are unique');
    for (const p of entries) {
      assert.match(p.id, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, p.id);
      assert.match(p.introducedIn, /^v\d+\.\d+\.\d+$/, p.id);
      assert.match(p.deprecateAfter, /^v\d+\.\d+\.\d+$/, p.id);
      assert.ok(p.what.length > 0 && !p.what.includes('\n'), p.id);
    }
  });

  it('docs/architecture.md lists exactly the registry (rendered from it)', () => {
    const doc = readDoc('docs/architecture.md');
    const from = doc.indexOf(START);
    const to = doc.indexOf(END);
    assert.ok(from >= 0 && to > from, `docs/architecture.md holds the patch list between ${START} and ${END}`);
    assert.equal(doc.slice(from + START.length, to).trim(), renderPatchList());
  });

  it('render a table when there are patches', () => {
    const table = renderPatchList([
      { id: 'example-change', introducedIn: 'v0.2.0', deprecateAfter: 'v0.3.0', stage: 'patched', what: 'an example' },
    ]);
    assert.match(table, /\| `example-change` \| v0\.2\.0 \| v0\.3\.0 \| patched \| an example \|/);
  });
});
