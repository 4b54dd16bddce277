/** `herald deploy drain`'s pure parts: which build a listed run is on, and the progress line. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderDrainProgress } from '../../client/commands/deploy.js';
import { buildOfVersion } from '../../client/deploy-drain.js';

describe('buildOfVersion', () => {
  it('reads the build from the deployment version, in both separators servers have used', () => {
    assert.equal(buildOfVersion('herald:0.2.0', 'herald'), '0.2.0');
    assert.equal(buildOfVersion('herald.0.2.0', 'herald'), '0.2.0');
    assert.equal(buildOfVersion('other:1', 'herald'), 'other:1');
    assert.equal(buildOfVersion(undefined, 'herald'), 'unknown');
  });
});

describe('renderDrainProgress', () => {
  const base = { deploymentName: 'herald', currentBuildId: 'b', totalSignalled: 3 };
  it('names how many remain on which builds, and a few of them', () => {
    const line = renderDrainProgress({
      ...base,
      signalled: 3,
      remaining: 12,
      byBuild: { a: 10, z: 2 },
      sample: ['s1', 's2'],
    });
    assert.equal(line, 'signalled 3; 12 conversations remain on older builds (a: 10, z: 2): s1, s2, …');
  });
  it('says when none remain', () => {
    const line = renderDrainProgress({ ...base, signalled: 0, remaining: 0, byBuild: {}, sample: [] });
    assert.equal(line, '0 conversations remain on older builds');
  });
  it('speaks of one conversation in the singular', () => {
    const line = renderDrainProgress({ ...base, signalled: 0, remaining: 1, byBuild: { a: 1 }, sample: ['s1'] });
    assert.equal(line, '1 conversation remains on older builds (a: 1): s1');
  });
});
