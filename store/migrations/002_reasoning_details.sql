-- Provider-specific reasoning kept for replay: Anthropic thinking blocks with their signatures,
-- Responses API reasoning items with their encrypted content. Opaque to everything but the adapters.
ALTER TABLE messages ADD COLUMN reasoning_details jsonb;
