/** The usage ledger: one row per model call attempt, keyed so a retried write is a no-op. */
import type { Usage } from '../../common/messages.js';
import type { Db } from './db.js';

export interface LedgerEntry {
  callKey: string;
  sessionId: string;
  conversationId: string;
  turnId: string;
  seq: number;
  attempt: number;
  provider: string;
  model: string;
  apiMode: string;
  outcome: 'ok' | 'error' | 'cancelled';
  errorType?: string | undefined;
  usage: Usage;
  durationMs: number;
}

export async function recordModelCall(db: Db, e: LedgerEntry): Promise<void> {
  await db.query(
    `INSERT INTO model_calls (call_key, session_id, conversation_id, turn_id, seq, attempt, provider, model, api_mode, outcome, error_type,
                              input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, duration_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
     ON CONFLICT (call_key) DO NOTHING`,
    [
      e.callKey,
      e.sessionId,
      e.conversationId,
      e.turnId,
      e.seq,
      e.attempt,
      e.provider,
      e.model,
      e.apiMode,
      e.outcome,
      e.errorType ?? null,
      e.usage.input_tokens,
      e.usage.output_tokens,
      e.usage.cache_read_tokens,
      e.usage.cache_write_tokens,
      e.usage.reasoning_tokens,
      e.usage.cost_usd,
      Math.round(e.durationMs),
    ],
  );
}
