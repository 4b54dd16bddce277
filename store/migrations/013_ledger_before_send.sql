-- Every paid attempt is on the ledger before its request is sent: a row with outcome `started`
-- is written first and completed (ok, error, cancelled) when the attempt ends. An attempt that
-- dies with its worker never completes its row: the next attempt of the same activity, or the
-- sweep `herald usage` runs, marks it `lost`, with what was known when it started.
ALTER TABLE model_calls
  ADD COLUMN IF NOT EXISTS request_bytes integer,
  ADD COLUMN IF NOT EXISTS started_at    timestamptz;
-- The sweep looks only at rows still waiting for their attempt to end.
CREATE INDEX IF NOT EXISTS model_calls_started_idx ON model_calls (created_at) WHERE outcome = 'started';
