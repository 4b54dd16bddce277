/**
 * Tool run markers. Tools run at least once: a worker that dies mid-tool means Temporal runs the
 * tool again. The "started" marker written first turns that re-run into something the transcript
 * states plainly instead of hiding.
 */
import type { Db } from './db.js';

/** Mark a run started; returns true when an earlier attempt had already started it. */
export async function markToolStarted(
  db: Db,
  sessionId: string,
  resultSeq: number,
  toolCallId: string,
  toolName: string,
): Promise<boolean> {
  const r = await db.query<{ attempts: number }>(
    `INSERT INTO tool_runs (session_id, result_seq, tool_call_id, tool_name) VALUES ($1, $2, $3, $4)
     ON CONFLICT (session_id, result_seq) DO UPDATE
       SET attempts = CASE WHEN tool_runs.tool_call_id = EXCLUDED.tool_call_id THEN tool_runs.attempts + 1 ELSE 1 END,
           tool_call_id = EXCLUDED.tool_call_id, tool_name = EXCLUDED.tool_name, started_at = now(), finished_at = NULL
     RETURNING attempts`,
    [sessionId, resultSeq, toolCallId, toolName],
  );
  return (r.rows[0]?.attempts ?? 1) > 1;
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
