-- The result of every turn by its message id (unique per conversation), so a repeated message id
-- is answered with what it got the first time, however long ago, instead of running again.
CREATE TABLE IF NOT EXISTS turn_results (
  conversation_id text NOT NULL,
  message_id      text NOT NULL,
  turn_id         text NOT NULL,
  result          jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, message_id)
);
