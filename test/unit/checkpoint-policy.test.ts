/**
 * The checkpoint policy's rule table (common/checkpoints.ts): each rule's examples are classified by
 * the real approval gate as that rule alone, and only with the switch on (and snapshots on) is a
 * call marked as one the gate may let run unasked.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadCommandSafety } from '../../activities/command-safety/classify.js';
import { checkCommand } from '../../activities/command-safety/approval-check.js';
import { UNDOABLE_RULES, checkpointsConfigSchema, markUndoable } from '../../common/checkpoints.js';
import type { ToolCallRef } from '../../common/tool-batch.js';

const call = (command: string): ToolCallRef => {
  const approval = checkCommand(command, new Set());
  return { id: 'c1', name: 'terminal', summary: command, timeoutSeconds: 60, ...(approval ? { approval } : {}) };
};

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
    assert.equal(markUndoable(call('rm -rf src'), off).approval?.undoable, undefined);
    assert.equal(markUndoable(call('rm -rf src'), on).approval?.undoable, true);
    assert.equal(markUndoable(call('rm -rf src'), { ...on, enabled: false }).approval?.undoable, undefined);
    for (const away of [
      'rm -rf /tmp/build',
      'rm -rf ~/project',
      'rm -rf src && rm -rf /tmp/cache',
      'git clean -fdx',
      'git push --force',
    ])
      assert.equal(markUndoable(call(away), on).approval?.undoable, undefined, away);
  });
});
