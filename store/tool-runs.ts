/**
 * Tool run markers. Tools run at least once: a worker that dies mid-tool means Temporal runs the
 * tool again. The "started" marker written first turns that re-run into something the transcript
 * states plainly instead of hiding.
 */
import type { Db } from './db.js';
import { withTransaction } from './db.js';
import type { MessageWrite } from './messages.js';
import { writeMessage } from './messages.js';

/** Mark a run started; returns which run of the call this is (1: the first; more: a re-run). */
export async function markToolStarted(
  db: Db,
  sessionId: string,
  resultSeq: number,
  toolCallId: string,
  toolName: string,
): Promise<number> {
  const r = await db.query<{ attempts: number }>(
    `INSERT INTO tool_runs (session_id, result_seq, tool_call_id, tool_name) VALUES ($1, $2, $3, $4)
     ON CONFLICT (session_id, result_seq) DO UPDATE
       SET attempts = CASE WHEN tool_runs.tool_call_id = EXCLUDED.tool_call_id THEN tool_runs.attempts + 1 ELSE 1 END,
           tool_call_id = EXCLUDED.tool_call_id, tool_name = EXCLUDED.tool_name, started_at = now(), finished_at = NULL
     RETURNING attempts`,
    [sessionId, resultSeq, toolCallId, toolName],
  );
  return r.rows[0]?.attempts ?? 1;
}

/**
 * Write a tool's result and mark the run finished — unless a later run of the same call started
 * since this one did. That happens when an attempt outlives its heartbeat timeout on a live but
 * starved worker (or across a Temporal restart): Temporal runs the call again elsewhere, and if the
 * first run wrote last, its unmarked result would replace the re-run's marked one, and the
 * transcript would no longer say the tool ran twice. The check and the write are one transaction,
 * the row locked, so a re-run starting meanwhile waits for it. Returns whether this run's result
 * was kept.
 */
export async function writeToolResult(
  db: Db,
  sessionId: string,
  resultSeq: number,
  run: number,
  message: MessageWrite,
  outcome: { isError: boolean; durationMs: number },
): Promise<boolean> {
  return await withTransaction(db, async (client) => {
    const r = await client.query<{ attempts: number }>(
      'SELECT attempts FROM tool_runs WHERE session_id = $1 AND result_seq = $2 FOR UPDATE',
      [sessionId, resultSeq],
    );
    if ((r.rows[0]?.attempts ?? run) !== run) return false;
    await writeMessage(client, sessionId, message);
    await client.query(
      'UPDATE tool_runs SET finished_at = now(), is_error = $3, duration_ms = $4 WHERE session_id = $1 AND result_seq = $2',
      [sessionId, resultSeq, outcome.isError, Math.round(outcome.durationMs)],
    );
    return true;
  });
}

export async function markToolFinished(
  db: Db,
  sessionId: string,
  resultSeq: number,
  isError: boolean,
  durationMs: number,
): Promise<void> {
  await db.query(
    'UPDATE tool_runs SET finished_at = now(), is_error = $3, duration_ms = $4 WHERE session_id = $1 AND result_seq = $2',
    [sessionId, resultSeq, isError, Math.round(durationMs)],
  );
}
