/**
 * The checkpoint policy's rule table (common/checkpoints.ts): each rule's examples are classified by
 * the real approval gate as that rule alone, and only with the switch on (and snapshots on) is a
 * call marked as one the gate may let run unasked.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadCommandSafety } from '../../command-safety/classify.js';
import { checkCommand } from '../../command-safety/approval-check.js';
import { UNDOABLE_RULES, checkpointsConfigSchema, markUndoable } from '../../common/checkpoints.js';
import type { CheckpointSettings } from '../../common/checkpoints.js';
import { approvalOf } from '../../common/tool-batch.js';
import type { ActivityCall } from '../../common/tool-batch.js';

const SHELL = { readOnly: false, pathScoped: false, serial: true };
const call = (command: string): ActivityCall => {
  const approval = checkCommand(command, new Set());
  return {
    kind: 'activity',
    id: 'c1',
    name: 'terminal',
    summary: command,
    timeoutSeconds: 60,
    traits: SHELL,
    argsKey: 'k',
    ...(approval ? { approval } : {}),
  };
};
const undoable = (c: ActivityCall, settings: CheckpointSettings) => approvalOf(markUndoable(c, settings))?.undoable;

describe('checkpoint policy', () => {
  before(async () => {
    await loadCommandSafety();
  });

  it('classifies every example of an undoable rule as that rule', () => {
    for (const [rule, examples] of Object.entries(UNDOABLE_RULES))
      for (const example of examples.split(', ')) assert.deepEqual(call(example).approval?.rules, [rule], example);
  });

  it('marks a workspace-only command only with the switch on; never one that leaves the workspace', () => {
    const on = checkpointsConfigSchema.parse({ autoApproveWorkspaceCommands: true });
    const off = checkpointsConfigSchema.parse({});
    assert.equal(undoable(call('rm -rf src'), off), undefined);
    assert.equal(undoable(call('rm -rf src'), on), true);
    assert.equal(undoable(call('rm -rf src'), { ...on, enabled: false }), undefined);
    for (const away of [
      'rm -rf /tmp/build',
      'rm -rf ~/project',
      'rm -rf src && rm -rf ../other-project',
      'git clean -fdx',
      'git push --force',
    ])
      assert.equal(undoable(call(away), on), undefined, away);
  });
});
