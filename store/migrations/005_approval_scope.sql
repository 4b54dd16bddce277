-- Approvals cover one command (its key) unless the human widens them to its rules (scope).
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS scope text;
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS command_key text;
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS command_chars integer;
