-- Full-text indexing reads a bounded prefix of each message: a tsvector holds at most 1 MB, and a
-- longer reply made the insert fail on every retry. The first 100,000 characters are
-- searchable; the whole text is still stored.
DROP INDEX IF EXISTS messages_search_idx;
ALTER TABLE messages DROP COLUMN IF EXISTS search;
ALTER TABLE messages
  ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('simple', left(coalesce(content, ''), 100000))) STORED;
CREATE INDEX messages_search_idx ON messages USING gin (search);
