/** The REPL's status line, from the conversation's state and the usage ledger's last model call. */
import type { Db } from '../store/db.js';
import { contextWindowOf } from '../common/context-window.js';
import type { HeraldConfig } from '../runtime/config.js';
import type { Conversation } from './client.js';
import { statusLine } from './status-line.js';

/** Prompt size of the conversation's last successful model call (what the context holds now). */
async function lastPromptTokens(db: Db, conversationId: string): Promise<number> {
  const r = await db.query<{ n: string }>(
    `SELECT (input_tokens + cache_read_tokens + cache_write_tokens)::text AS n FROM model_calls
      WHERE conversation_id = $1 AND outcome = 'ok' ORDER BY created_at DESC LIMIT 1`,
    [conversationId],
  );
  return Number(r.rows[0]?.n ?? 0);
}

export async function chatStatus(
  conv: Conversation,
  db: Db | undefined,
  config: HeraldConfig,
): Promise<{ line: string; busyPolicy: string }> {
  const s = await conv.state();
  const promptTokens = db ? await lastPromptTokens(db, conv.sessionId).catch(() => 0) : 0;
  const line = statusLine({
    sessionId: s.session_id,
    model: s.model,
    promptTokens,
    contextWindow: contextWindowOf(s.model, config.file.model.contextLength),
    costUsd: s.usage.cost_usd,
    totalTokens: s.usage.total_tokens,
    warning: s.sandbox && !s.sandbox.active ? 'tools unsandboxed' : undefined,
  });
  return { line, busyPolicy: s.busy_policy };
}
