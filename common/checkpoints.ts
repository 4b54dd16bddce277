/**
 * Checkpoint settings and the per-turn change summary (docs/checkpoints.md): pure, imported by the
 * config schema, the workflow and the clients.
 */
import { z } from 'zod';
import type { ToolCallRef } from './tool-batch.js';
import { approvalOf } from './tool-batch.js';

export const checkpointsConfigSchema = z
  .object({
    /** Snapshot the workspace before a turn's first tool that can change it, and after the turn. */
    enabled: z.boolean().default(true),
    /** A file larger than this is not snapshotted (the snapshot's notes name it). */
    maxFileMb: z.number().positive().max(1024).default(5),
    /** What one snapshot stages at most; the rest waits for the next snapshot (and is named). */
    maxSnapshotMb: z.number().positive().max(10_240).default(200),
    /** Shadow repositories untouched for this long are removed (the session's diffs stay in Postgres). */
    retentionDays: z.number().positive().default(30),
    /** The whole store's size past which the oldest shadow repositories are removed. */
    maxStoreMb: z.number().positive().default(2048),
    /**
     * With snapshots on and the sandbox active, a command the approval gate would ask about runs
     * without asking when its only effect is inside the workspace (it can be undone). Off by default.
     */
    autoApproveWorkspaceCommands: z.boolean().default(false),
  })
  .strict()
  .prefault({});

export type CheckpointSettings = z.infer<typeof checkpointsConfigSchema>;

/** What a turn changed in the workspace, as `state` and events show it. */
export interface TurnChanges {
  turn: number;
  files: number;
  added: number;
  removed: number;
}

/** `3 files changed, +12 −4` */
export function describeChanges(c: { files: number; added: number; removed: number }): string {
  return `${c.files} file${c.files === 1 ? '' : 's'} changed, +${c.added} −${c.removed}`;
}

/**
 * Approval-gate rules whose every finding is a change inside the workspace that a snapshot holds,
 * so `/undo` can take it back (docs/checkpoints.md). Each rule is reached only after the rules
 * for the root, homes, credentials and paths outside the workspace found nothing; an example of
 * each is beside it. Not here: `git clean -x` and `git reset --hard` (ignored files and history
 * are not in a snapshot), anything that leaves the workspace.
 */
export const UNDOABLE_RULES: Readonly<Record<string, string>> = {
  recursive_delete: "rm -rf src, find . -name '*.orig' -delete",
  git_discard: 'git checkout ., git restore .',
};

/**
 * Mark a terminal call the gate may let run unasked: `autoApproveWorkspaceCommands` on, snapshots
 * on, and every rule it matched undoable. The workflow also needs the sandbox active (its state).
 */
export function markUndoable(ref: ToolCallRef, settings: CheckpointSettings): ToolCallRef {
  const check = approvalOf(ref);
  if (
    check?.level === 'dangerous' &&
    settings.enabled &&
    settings.autoApproveWorkspaceCommands &&
    check.rules.length > 0 &&
    check.rules.every((r) => Object.hasOwn(UNDOABLE_RULES, r))
  )
    check.undoable = true;
  return ref;
}
