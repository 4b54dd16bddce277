-- The approval trail: who answered (the identity the answering client stated, or `--as`), where
-- from (cli, chat, web, api), the reason a deny gave the model, and who sent the message whose turn
-- asked. `decided_by` keeps saying what decided (user, timeout, stop, smart). Each value is bounded
-- by the workflow's schemas (identities 200 characters, reasons 500, `via` 40).
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS approver text;
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS approver_via text;
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS deny_reason text;
ALTER TABLE approvals ADD COLUMN IF NOT EXISTS requester text;
