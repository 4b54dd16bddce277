-- Workspace checkpoints (docs/checkpoints.md): one row per turn that ran a tool able to change the
-- workspace. The snapshots themselves are commits in the conversation's shadow repository under
-- the Herald home; this row carries what `herald diff` shows without reaching a worker: the
-- commits, the change summary and the turn's unified diff (bounded by the worker).
CREATE TABLE IF NOT EXISTS checkpoints (
  conversation_id text NOT NULL,
  turn            integer NOT NULL,
  session_id      text NOT NULL,
  before_commit   text NOT NULL,
  after_commit    text,
  files           integer NOT NULL DEFAULT 0,
  added           integer NOT NULL DEFAULT 0,
  removed         integer NOT NULL DEFAULT 0,
  notes           jsonb NOT NULL DEFAULT '[]',
  patch           text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, turn)
);
