-- MCP tool schemas (docs/mcp.md), keyed by the hash that workflow state carries: the workflow keeps
-- names and hashes only (bounded), the model activity reads the schemas from here, and the tool
-- activity reads which server and tool a hash stands for. Rows are immutable (a changed schema is
-- a new hash); nothing here is secret (configs are hashed with their env references, not values).
CREATE TABLE IF NOT EXISTS mcp_tool_schemas (
  hash         text PRIMARY KEY,
  server       text NOT NULL,
  tool         text NOT NULL,
  kind         text NOT NULL DEFAULT 'tool',
  description  text NOT NULL,
  input_schema jsonb NOT NULL,
  read_only    boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now()
);
