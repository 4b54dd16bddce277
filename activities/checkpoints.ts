/**
 * The checkpoint activities (docs/checkpoints.md): a snapshot of the workspace before a turn's first
 * tool that can change it and after the turn, a rewind of the workspace to the snapshot before a
 * turn, and a rewind of the transcript (a new session in the lineage, like a compression's: the
 * discarded turns stay readable in the old one). They run where the tools run (the conversation's
 * tool task queue): the workspace is on that machine. Every result is small — commit ids, counts,
 * a few bounded notes; the diff itself goes to Postgres, never into history.
 */
import { Context } from '@temporalio/activity';
import { describeChanges } from '../common/checkpoints.js';
import type { ActivityDeps } from './deps.js';
import { keepHeartbeating } from './deps.js';
import { EventPublisher } from './events/publisher.js';
import { withTransaction } from '../store/db.js';
import { confineWorkspace } from './workspace-policy.js';
import type { ChangeSummary } from '../checkpoints/restore.js';
import { exportSnapshot, patchBetween, restoreTo, summarise } from '../checkpoints/restore.js';
import { readRef } from '../checkpoints/refs.js';
import { mkdirSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { shadowRepoOf } from '../checkpoints/paths.js';
import type { ShadowRepo } from '../checkpoints/shadow-git.js';
import { git, nulList, resolveRef } from '../checkpoints/shadow-git.js';
import type { SnapshotLimits } from '../checkpoints/snapshot.js';
import { takeSnapshot, turnRef } from '../checkpoints/snapshot.js';

/** The largest turn diff stored for `herald diff` (the rest is in the shadow repository). */
export const MAX_STORED_PATCH_CHARS = 512 * 1024;

export interface SnapshotArgs {
  conversationId: string;
  sessionId: string;
  turnId: string;
  turn: number;
  phase: 'before' | 'after';
  cwd: string;
}

export interface SnapshotResult {
  taken: boolean;
  /** Why none was taken (checkpoints off, the workspace refused, no snapshot before the turn). */
  skipped?: string;
  commit?: string;
  notes: string[];
  /** After the turn: what it changed. */
  summary?: ChangeSummary;
}

export interface RewindWorkspaceArgs {
  conversationId: string;
  cwd: string;
  toTurn: number;
  force: boolean;
  /** Names the forced rewind's save of outside changes: the same on a retry. */
  rewindId: string;
}

export type RewindWorkspaceResult =
  | { restored: true; toCommit: string; changed: ChangeSummary; savedAs?: string; note?: string }
  | { restored: false; refused: string; wouldLose: string[] };

export interface ForkWorkspaceArgs {
  conversationId: string;
  cwd: string;
  atTurn: number;
  /** The new workspace: inside a declared workspace root, absent or empty. */
  dest: string;
}

export type ForkWorkspaceResult = { ok: true; cwd: string; files: number } | { ok: false; refused: string };

export interface RewindTranscriptArgs {
  conversationId: string;
  sessionId: string;
  newSessionId: string;
  toTurn: number;
}

export type RewindTranscriptResult =
  { ok: true; sessionId: string; nextSeq: number; discardedMessages: number } | { ok: false; refused: string };

export function snapshotLimits(deps: ActivityDeps): SnapshotLimits {
  const c = deps.config.file.checkpoints;
  return { maxFileBytes: c.maxFileMb * 1024 * 1024, maxSnapshotBytes: c.maxSnapshotMb * 1024 * 1024 };
}

/**
 * The snapshot that holds the workspace as turn `atTurn` left it: the "after" snapshot of the last
 * turn up to it that took one; else the "before" snapshot of the first later turn; else the latest.
 */
export async function snapshotAfterTurn(repo: ShadowRepo, atTurn: number): Promise<string | undefined> {
  const refs = nulList((await git(repo, ['for-each-ref', '--format=%(refname)%00', 'refs/herald/turns/'])).stdout).map(
    (r) => r.trim(),
  );
  const of = (phase: string) =>
    refs
      .map((r) => new RegExp(`^refs/herald/turns/(\\d+)/${phase}$`).exec(r))
      .flatMap((m) => (m ? [Number(m[1])] : []));
  const after = of('after').filter((t) => t <= atTurn);
  if (after.length) return readRef(repo, turnRef(Math.max(...after), 'after'));
  const later = of('before').filter((t) => t > atTurn);
  if (later.length) return readRef(repo, turnRef(Math.min(...later), 'before'));
  return readRef(repo, 'refs/herald/latest');
}

/**
 * The snapshot that holds the workspace as it was when turn `toTurn` began: the "before" snapshot
 * of the first turn from `toTurn` on that took one (turns without one changed nothing).
 */
export async function snapshotBeforeTurn(repo: ShadowRepo, toTurn: number): Promise<string | undefined> {
  const refs = nulList(
    (await git(repo, ['for-each-ref', '--format=%(refname)%00', 'refs/herald/turns/'], { ok: [] })).stdout,
  ).map((r) => r.trim());
  const turns = refs
    .map((r) => /^refs\/herald\/turns\/(\d+)\/before$/.exec(r))
    .flatMap((m) => (m ? [Number(m[1])] : []))
    .filter((t) => t >= toTurn)
    .sort((a, b) => a - b);
  return turns.length ? await resolveRef(repo, turnRef(turns[0]!, 'before')) : undefined;
}

export function checkpointActivities(deps: ActivityDeps) {
  const { db, config } = deps;

  async function workspaceOf(cwd: string): Promise<{ ok: true; cwd: string } | { ok: false; why: string }> {
    const where = await confineWorkspace(deps, cwd);
    return where.ok ? { ok: true, cwd: where.cwd } : { ok: false, why: where.why };
  }

  return {
    async snapshotWorkspace(a: SnapshotArgs): Promise<SnapshotResult> {
      if (!config.file.checkpoints.enabled) return { taken: false, skipped: 'checkpoints are off', notes: [] };
      const where = await workspaceOf(a.cwd);
      if (!where.ok) return { taken: false, skipped: `workspace refused: ${where.why}`, notes: [] };
      const ctx = Context.current();
      const stop = keepHeartbeating(() => ctx.heartbeat({ phase: a.phase }), 1000);
      try {
        const repo = shadowRepoOf(config.home, a.conversationId, where.cwd);
        const limits = snapshotLimits(deps);
        if (a.phase === 'before') {
          const s = await takeSnapshot(repo, turnRef(a.turn, 'before'), `turn ${a.turn}: before`, limits);
          await db.query(
            `INSERT INTO checkpoints (conversation_id, turn, session_id, before_commit, notes)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (conversation_id, turn) DO NOTHING`,
            [a.conversationId, a.turn, a.sessionId, s.commit, JSON.stringify(s.notes)],
          );
          return { taken: true, commit: s.commit, notes: s.notes };
        }
        const before = await resolveRef(repo, turnRef(a.turn, 'before'));
        if (!before) return { taken: false, skipped: 'no snapshot before the turn', notes: [] };
        const s = await takeSnapshot(repo, turnRef(a.turn, 'after'), `turn ${a.turn}: after`, limits);
        const summary = await summarise(repo, before, s.commit);
        const patch = await patchBetween(repo, before, s.commit, MAX_STORED_PATCH_CHARS);
        await db.query(
          `INSERT INTO checkpoints (conversation_id, turn, session_id, before_commit, after_commit, files, added, removed, notes, patch)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           ON CONFLICT (conversation_id, turn) DO UPDATE SET after_commit = $5, files = $6, added = $7, removed = $8,
             notes = coalesce((SELECT jsonb_agg(DISTINCT n) FROM jsonb_array_elements(checkpoints.notes || $9::jsonb) n), '[]'),
             patch = $10`,
          [
            a.conversationId,
            a.turn,
            a.sessionId,
            before,
            s.commit,
            summary.files,
            summary.added,
            summary.removed,
            JSON.stringify(s.notes),
            patch.replaceAll('\0', ''),
          ],
        );
        if (!s.existing) {
          const pub = new EventPublisher(db, a.conversationId, a.turnId, deps.log);
          pub.emit('status', {
            kind: 'checkpoint',
            message: `workspace: ${describeChanges(summary)}${s.notes.length ? ` (${s.notes.length} not snapshotted)` : ''}`,
            turn: a.turn,
            ...summary,
            notes: s.notes,
          });
          await pub.flush();
        }
        return { taken: true, commit: s.commit, notes: s.notes, summary };
      } finally {
        stop();
      }
    },

    async rewindWorkspace(a: RewindWorkspaceArgs): Promise<RewindWorkspaceResult> {
      const where = await workspaceOf(a.cwd);
      if (!where.ok) return { restored: false, refused: `workspace refused: ${where.why}`, wouldLose: [] };
      const repo = shadowRepoOf(config.home, a.conversationId, where.cwd);
      if (!(await resolveRef(repo, 'refs/herald/latest').catch(() => undefined)))
        return {
          restored: true,
          toCommit: '',
          changed: { files: 0, added: 0, removed: 0 },
          note: 'no snapshots: no turn changed the workspace',
        };
      const target = await snapshotBeforeTurn(repo, a.toTurn);
      if (!target)
        return {
          restored: true,
          toCommit: '',
          changed: { files: 0, added: 0, removed: 0 },
          note: `no turn from ${a.toTurn} on changed the workspace`,
        };
      const r = await restoreTo(repo, target, {
        force: a.force,
        saveRef: `refs/herald/rewinds/${a.rewindId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100)}`,
        limits: snapshotLimits(deps),
        title: `rewind to before turn ${a.toTurn}`,
      });
      return r.restored
        ? { restored: true, toCommit: target, changed: r.changed, ...(r.savedAs ? { savedAs: r.savedAs } : {}) }
        : r;
    },

    /** A copy of the workspace as turn `atTurn` left it, in a new folder (`herald fork`). */
    async forkWorkspace(a: ForkWorkspaceArgs): Promise<ForkWorkspaceResult> {
      const where = await workspaceOf(a.cwd);
      if (!where.ok) return { ok: false, refused: `workspace refused: ${where.why}` };
      // The parent must already be a workspace a root allows; the fork's own folder is made in it.
      const parent = await workspaceOf(dirname(a.dest));
      if (!parent.ok) return { ok: false, refused: `the fork's folder is refused: ${parent.why}` };
      const name = basename(a.dest);
      if (!name || name === '.' || name === '..') return { ok: false, refused: 'the fork needs a new folder name' };
      try {
        mkdirSync(join(parent.cwd, name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const dest = await workspaceOf(join(parent.cwd, name));
      if (!dest.ok) return { ok: false, refused: `the fork's folder is refused: ${dest.why}` };
      if (readdirSync(dest.cwd).length)
        return { ok: false, refused: `${dest.cwd} is not empty: a fork goes into a new folder` };
      const repo = shadowRepoOf(config.home, a.conversationId, where.cwd);
      const at = await snapshotAfterTurn(repo, a.atTurn).catch(() => undefined);
      if (!at) return { ok: false, refused: 'no snapshot: no turn of this conversation changed its workspace' };
      return { ok: true, cwd: dest.cwd, files: await exportSnapshot(repo, at, dest.cwd) };
    },

    /**
     * The transcript as it was before turn `toTurn`, as a new session of the lineage (idempotent: a
     * retry finds the session). The old session keeps every message: the discarded turns stay readable.
     */
    async rewindTranscript(a: RewindTranscriptArgs): Promise<RewindTranscriptResult> {
      const turnId = `${a.conversationId}:${a.toTurn}`;
      return await withTransaction(db, async (c) => {
        const existing = await c.query<{ n: string }>(
          'SELECT coalesce(max(seq) + 1, 0) AS n FROM messages WHERE session_id = $1',
          [a.newSessionId],
        );
        const had = await c.query('SELECT 1 FROM sessions WHERE id = $1', [a.newSessionId]);
        if (had.rowCount)
          return { ok: true, sessionId: a.newSessionId, nextSeq: Number(existing.rows[0]!.n), discardedMessages: 0 };
        const at = await c.query<{ seq: number }>(
          `SELECT min(seq) AS seq FROM messages WHERE session_id = $1 AND turn_id = $2 AND role = 'user'`,
          [a.sessionId, turnId],
        );
        const cut = at.rows[0]?.seq;
        if (cut === null || cut === undefined)
          return {
            ok: false,
            refused: `turn ${a.toTurn} is not in the current transcript (compressed away, or never ran); only the files can go back`,
          };
        await c.query(
          `INSERT INTO sessions (id, parent_id, conversation_id, workflow_id, title, source, provider, model, api_mode, base_url,
                                 system_prompt, cwd, marker_nonce, api_calls, input_tokens, output_tokens, cache_read_tokens,
                                 cache_write_tokens, reasoning_tokens, estimated_cost_usd)
           SELECT $1, id, conversation_id, workflow_id, title, source, provider, model, api_mode, base_url,
                  system_prompt, cwd, marker_nonce, api_calls, input_tokens, output_tokens, cache_read_tokens,
                  cache_write_tokens, reasoning_tokens, estimated_cost_usd
             FROM sessions WHERE id = $2`,
          [a.newSessionId, a.sessionId],
        );
        await c.query(
          `INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, tool_name, reasoning, reasoning_details,
                                 finish_reason, turn_id, message_id, synthetic, compacted)
           SELECT $1, seq, role, content, tool_calls, tool_call_id, tool_name, reasoning, reasoning_details,
                  finish_reason, turn_id, message_id, synthetic, compacted
             FROM messages WHERE session_id = $2 AND seq < $3`,
          [a.newSessionId, a.sessionId, cut],
        );
        const gone = await c.query<{ n: string }>(
          'SELECT count(*) AS n FROM messages WHERE session_id = $1 AND seq >= $2',
          [a.sessionId, cut],
        );
        await c.query(
          "UPDATE sessions SET ended_at = coalesce(ended_at, now()), end_reason = coalesce(end_reason, 'rewind') WHERE id = $1",
          [a.sessionId],
        );
        return { ok: true, sessionId: a.newSessionId, nextSeq: cut, discardedMessages: Number(gone.rows[0]!.n) };
      });
    },
  };
}
