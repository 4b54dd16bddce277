/** Who may answer an approval, and when denials end a turn (docs/human-control.md). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approverRefusal, breakerTripped, denialsAfter } from '../../common/approval-policy.js';
import { configFileSchema } from '../../shared/config-schema.js';

describe('approval policy', () => {
  const separate = { maxDenialsInARow: 0, separateApprover: true };

  it('lets anyone answer without separateApprover', () => {
    assert.equal(approverRefusal({ ...separate, separateApprover: false }, 'ann', 'ann'), undefined);
    assert.equal(approverRefusal(undefined, 'ann', undefined), undefined);
  });

  it('refuses the requester and an unnamed approver with separateApprover', () => {
    assert.match(
      approverRefusal(separate, 'ann@box', 'ann@box')!,
      /ann@box asked for this command and cannot approve it/,
    );
    assert.match(approverRefusal(separate, 'ann@box', undefined)!, /names themselves/);
    assert.equal(approverRefusal(separate, 'ann@box', 'bob@box'), undefined);
    assert.equal(approverRefusal(separate, undefined, 'bob@box'), undefined);
  });

  it('counts denials and silences in a row; an approval starts again', () => {
    let n = 0;
    for (const d of ['deny', 'timeout', 'once', 'deny']) n = denialsAfter(n, d);
    assert.equal(n, 1);
    assert.equal(breakerTripped({ maxDenialsInARow: 2, separateApprover: false }, 1), false);
    assert.equal(breakerTripped({ maxDenialsInARow: 2, separateApprover: false }, 2), true);
    assert.equal(breakerTripped({ maxDenialsInARow: 0, separateApprover: false }, 50), false, '0 is off');
    assert.equal(breakerTripped(undefined, 2), false);
    assert.equal(breakerTripped(undefined, 3), true, 'three in a row end a turn by default');
    assert.equal(configFileSchema.parse({}).approvals.maxDenialsInARow, 3, 'the config file says so too');
  });
});
