/**
 * The Docker deployment registers what workers need: its namespace job creates every search
 * attribute Herald sets (a missing one would leave the Web UI's filters and columns empty until a
 * worker with rights to add it starts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SEARCH_ATTRIBUTE_NAMES } from '../../common/constants.js';
import { PROJECT_ROOT } from '../../runtime/paths.js';

describe('deploy files', () => {
  it('the compose namespace job creates every Herald search attribute', () => {
    const script = readFileSync(join(PROJECT_ROOT, 'deploy', 'temporal', 'create-namespace.sh'), 'utf8');
    const listed = /for attr in ([^;]+);/.exec(script)?.[1]?.trim().split(/\s+/) ?? [];
    assert.deepEqual([...listed].sort(), [...SEARCH_ATTRIBUTE_NAMES].sort());
  });
});
