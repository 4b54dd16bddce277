-- What each usage-ledger row's request was for: `turn` (the agent loop's model calls),
-- `compression` (a summary for context compression), `approval` (a `smart` approval's assessment).
-- Rows written before this column were all the agent loop's: the default says so. Only `turn` rows
-- count in a turn's `api_calls`; every row counts in the usage, the cost and the session caps.
ALTER TABLE model_calls ADD COLUMN IF NOT EXISTS purpose text NOT NULL DEFAULT 'turn';
