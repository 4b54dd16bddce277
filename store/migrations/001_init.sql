-- Herald's store: the transcript lives here; Temporal history only carries references to it.

CREATE TABLE sessions (
  id                 text PRIMARY KEY,
  parent_id          text REFERENCES sessions (id),
  conversation_id    text NOT NULL,
  workflow_id        text,
  title              text,
  source             text NOT NULL DEFAULT 'api',
  provider           text,
  model              text,
  api_mode           text,
  base_url           text,
  system_prompt      text,
  cwd                text,
  started_at         timestamptz NOT NULL DEFAULT now(),
  ended_at           timestamptz,
  end_reason         text,
  api_calls          integer NOT NULL DEFAULT 0,
  input_tokens       bigint NOT NULL DEFAULT 0,
  output_tokens      bigint NOT NULL DEFAULT 0,
  cache_read_tokens  bigint NOT NULL DEFAULT 0,
  cache_write_tokens bigint NOT NULL DEFAULT 0,
  reasoning_tokens   bigint NOT NULL DEFAULT 0,
  estimated_cost_usd numeric(14, 6) NOT NULL DEFAULT 0
);
CREATE INDEX sessions_conversation_idx ON sessions (conversation_id);
CREATE INDEX sessions_started_idx ON sessions (started_at DESC);

-- One row per message, keyed by the sequence number the workflow assigned: every write is an
-- idempotent upsert, so a retried activity never duplicates a message.
CREATE TABLE messages (
  session_id    text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq           integer NOT NULL,
  role          text NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
  content       text,
  tool_calls    jsonb,
  tool_call_id  text,
  tool_name     text,
  reasoning     text,
  finish_reason text,
  turn_id       text,
  message_id    text,
  synthetic     boolean NOT NULL DEFAULT false,
  compacted     boolean NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  search        tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(content, ''))) STORED,
  PRIMARY KEY (session_id, seq)
);
CREATE INDEX messages_search_idx ON messages USING gin (search);

-- Usage ledger: one row per model call attempt.
CREATE TABLE model_calls (
  call_key           text PRIMARY KEY,
  session_id         text NOT NULL,
  conversation_id    text NOT NULL,
  turn_id            text NOT NULL,
  seq                integer NOT NULL,
  attempt            integer NOT NULL,
  provider           text NOT NULL,
  model              text NOT NULL,
  api_mode           text NOT NULL,
  outcome            text NOT NULL,
  error_type         text,
  input_tokens       bigint NOT NULL DEFAULT 0,
  output_tokens      bigint NOT NULL DEFAULT 0,
  cache_read_tokens  bigint NOT NULL DEFAULT 0,
  cache_write_tokens bigint NOT NULL DEFAULT 0,
  reasoning_tokens   bigint NOT NULL DEFAULT 0,
  cost_usd           numeric(14, 6) NOT NULL DEFAULT 0,
  duration_ms        integer NOT NULL DEFAULT 0,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX model_calls_session_idx ON model_calls (session_id);

-- Tool runs: started/finished markers so a re-run after a worker crash is visible, not silent.
CREATE TABLE tool_runs (
  session_id   text NOT NULL,
  result_seq   integer NOT NULL,
  tool_call_id text NOT NULL,
  tool_name    text NOT NULL,
  attempts     integer NOT NULL DEFAULT 1,
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  is_error     boolean,
  duration_ms  integer,
  PRIMARY KEY (session_id, result_seq)
);

-- Event side channel (docs/architecture.md): per-conversation sequence; NOTIFY herald_events on insert.
CREATE TABLE event_counters (
  conversation_id text PRIMARY KEY,
  last_seq        bigint NOT NULL
);
CREATE TABLE events (
  conversation_id text NOT NULL,
  seq             bigint NOT NULL,
  kind            text NOT NULL,
  turn_id         text,
  payload         jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, seq)
);
CREATE INDEX events_created_idx ON events (created_at);
