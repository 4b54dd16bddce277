-- One usage-ledger row per HTTP attempt: every retry is paid for. Rows were keyed by (session, seq, turn, attempt),
-- so a fallback or a whole-call retry at the same step repeated the key and its row was dropped.
-- New rows are keyed by the activity's own identity (workflow run, activity id, attempt): unique per
-- attempt, and the same when Temporal re-delivers one. The columns below say where the attempt ran.
ALTER TABLE model_calls
  ADD COLUMN IF NOT EXISTS step            integer,
  ADD COLUMN IF NOT EXISTS workflow_run_id text,
  ADD COLUMN IF NOT EXISTS activity_id     text;
-- `herald usage` and the turn footer read one conversation (and turn) at a time.
CREATE INDEX IF NOT EXISTS model_calls_conversation_idx ON model_calls (conversation_id, turn_id, created_at);
