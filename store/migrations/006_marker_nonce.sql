-- The per-session secret that marks Herald's own notes in the transcript (shared/markers.ts).
ALTER TABLE sessions ADD COLUMN IF NOT EXISTS marker_nonce text;
