/**
 * The determinism fence holds for every module a workflow can import: lint refuses, in workflows/
 * and in common/, what would make a replay differ (Node APIs, side-effect libraries, timers,
 * randomness; in common/ also the clock and any Temporal import). Probed with real lint runs of
 * small sources placed as files of those folders.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';
import { PROJECT_ROOT } from '../../runtime/paths.js';

const eslint = new ESLint({ cwd: PROJECT_ROOT });

/** Real files of each folder, so type-aware lint knows them; the probe's text stands in for theirs. */
const PROBE_FILE: Record<string, string> = { workflows: 'workflows/limits.ts', common: 'common/text.ts' };
const FENCE_RULES = new Set([
  'no-restricted-imports',
  'no-restricted-globals',
  'no-restricted-properties',
  'no-restricted-syntax',
]);

/** The fence rules a source breaks when it is a file of `folder` (a parse failure counts as a problem too). */
async function problems(folder: string, source: string): Promise<string[]> {
  const [r] = await eslint.lintText(source, { filePath: join(PROJECT_ROOT, PROBE_FILE[folder]!) });
  return (r?.messages ?? [])
    .filter((m) => m.fatal || (m.ruleId !== null && FENCE_RULES.has(m.ruleId)))
    .map((m) => m.ruleId ?? m.message);
}

const BANNED_EVERYWHERE: Array<[string, string]> = [
  ["import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n", 'no-restricted-imports'],
  ["import pino from 'pino';\nexport const x = pino;\n", 'no-restricted-imports'],
  ["import { parse } from 'yaml';\nexport const x = parse;\n", 'no-restricted-imports'],
  ["import { Context } from '@temporalio/activity';\nexport const x = Context;\n", 'no-restricted-imports'],
  ["import { loadConfig } from '../runtime/config.js';\nexport const x = loadConfig;\n", 'no-restricted-imports'],
  ["import { createDb } from '../store/db.js';\nexport const x = createDb;\n", 'no-restricted-imports'],
  ['export const x = Math.random();\n', 'no-restricted-properties'],
  ['export const x = setTimeout;\n', 'no-restricted-globals'],
  ['export const x = process.env;\n', 'no-restricted-globals'],
];

describe('the determinism fence', () => {
  for (const folder of ['workflows', 'common']) {
    for (const [source, rule] of BANNED_EVERYWHERE) {
      it(`${folder}/: refuses ${source.split('\n')[0]}`, async () => {
        assert.ok((await problems(folder, source)).includes(rule), source);
      });
    }
  }

  it('common/: refuses the clock and any Temporal import; workflows/ may read Temporal’s deterministic time', async () => {
    assert.ok((await problems('common', 'export const x = Date.now();\n')).length);
    assert.ok((await problems('common', 'export const x = new Date();\n')).length);
    const temporal = "import { sleep } from '@temporalio/workflow';\nexport const x = sleep;\n";
    assert.ok((await problems('common', temporal)).includes('no-restricted-imports'));
    assert.deepEqual(await problems('workflows', temporal), []);
    assert.deepEqual(await problems('workflows', 'export const x = Date.now();\n'), []);
  });

  it('type imports from activities stay allowed (they vanish at compile time)', async () => {
    const source = "import type { Db } from '../store/db.js';\nexport type X = Db;\n";
    assert.deepEqual(await problems('workflows', source), []);
  });
});
