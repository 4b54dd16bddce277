/**
 * Determinism guard: every committed history of a real run must replay against today's workflow
 * code. Until a release is tagged, a workflow change that alters the command sequence re-records
 * the histories it affects (scripts/record-histories.ts); after one, it goes behind a patch of
 * workflows/patches.ts. The manifest (histories.json: file → scenario → what it proves) lists
 * exactly the committed files.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Worker } from '@temporalio/worker';
import { PROJECT_ROOT } from '../../runtime/paths.js';
import { WORKFLOWS_PATH } from '../../workers/worker.js';
import { workerDataConverter } from '../../runtime/data-converter.js';

const dir = join(PROJECT_ROOT, 'test', 'fixtures', 'histories');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'test', 'replay', 'histories.json'), 'utf8')) as Record<
  string,
  { scenario: string; proves: string }
>;

describe('replay of committed histories', () => {
  it('has recorded histories to replay', () => {
    assert.ok(files.length >= 3, `only ${files.length} histories in ${dir}`);
  });

  it('has a manifest entry for every history, and a history for every entry', () => {
    const listed = Object.keys(manifest).sort();
    assert.deepEqual(
      files.filter((f) => !listed.includes(f)),
      [],
      'histories missing from test/replay/histories.json',
    );
    assert.deepEqual(
      listed.filter((f) => !files.includes(f)),
      [],
      'manifest entries without a history (record them: scripts/record-histories.ts)',
    );
    for (const [file, entry] of Object.entries(manifest))
      assert.ok(entry.scenario && entry.proves, `${file}: a scenario and what it proves`);
  });

  const bundle = process.env.HERALD_WORKFLOW_BUNDLE;
  for (const file of files) {
    it(`replays ${file}`, async () => {
      const history = JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
      await Worker.runReplayHistory(
        bundle
          ? { workflowBundle: { codePath: bundle } }
          : { workflowsPath: WORKFLOWS_PATH, dataConverter: workerDataConverter() },
        history,
        file,
      );
    });
  }
});
