/**
 * Determinism guard: every committed history of a real run must replay against today's workflow
 * code. A change that alters the command sequence without `patched()` fails here.
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

describe('replay of committed histories', () => {
  it('has recorded histories to replay', () => {
    assert.ok(files.length >= 3, `only ${files.length} histories in ${dir}`);
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
