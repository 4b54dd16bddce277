-- Memory (docs/long-conversations.md): two small stores shared by every worker and conversation. MEMORY holds the
-- agent's own notes, USER the user's profile. Postgres is the single source of truth.
CREATE TABLE memory_entries (
  id         bigserial PRIMARY KEY,
  store      text NOT NULL CHECK (store IN ('memory', 'user')),
  content    text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX memory_entries_store_idx ON memory_entries (store, id);
