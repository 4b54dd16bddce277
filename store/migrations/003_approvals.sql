-- Approvals audit (docs/human-control.md): every request for a dangerous command and how it was decided.
CREATE TABLE approvals (
  request_id      text PRIMARY KEY,
  conversation_id text NOT NULL,
  session_id      text NOT NULL,
  turn_id         text NOT NULL,
  tool_call_id    text NOT NULL,
  tool            text NOT NULL,
  command         text NOT NULL,
  rules           text[] NOT NULL,
  reason          text NOT NULL,
  decision        text,            -- once | session | always | deny | timeout | cancelled | auto (smart/off/allowlist)
  decided_by      text,
  requested_at    timestamptz NOT NULL DEFAULT now(),
  decided_at      timestamptz
);
CREATE INDEX approvals_conversation_idx ON approvals (conversation_id, requested_at);

-- Rules approved "always": such commands no longer ask, in any conversation.
CREATE TABLE approval_allowlist (
  rule        text PRIMARY KEY,
  approved_by text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
