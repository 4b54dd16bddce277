/**
 * The line under a turn: model calls, tokens and cost. A stopped turn's footer is read from the
 * usage ledger (one row per model call, cancelled and failed ones included, so it can say how many
 * of each) and says "stopped". The ledger also wins over a result that counts fewer calls than it
 * holds (a result from before every attempt was counted, common/attempts.ts).
 */
import pc from 'picocolors';
import type { Db } from '../store/db.js';
import { turnTotals } from '../store/ledger.js';
import type { TurnResult } from '../common/contract.js';

export interface TurnLedger {
  calls: number;
  cancelled: number;
  failed: number;
  tokens: number;
  costUsd: number;
}

/**
 * What the ledger holds for one turn: its calls are the agent loop's attempts (as `api_calls`
 * counts them), its tokens and cost every attempt's, the auxiliary model's included (as the turn's usage).
 */
export async function turnLedger(db: Db, conversationId: string, turnId: string): Promise<TurnLedger> {
  const [t, loop] = await Promise.all([
    turnTotals(db, conversationId, turnId),
    turnTotals(db, conversationId, turnId, 'turn'),
  ]);
  return {
    calls: loop.attempts,
    cancelled: loop.cancelled,
    failed: loop.failed,
    tokens: t.inputTokens + t.outputTokens + t.cacheReadTokens + t.cacheWriteTokens,
    costUsd: t.costUsd,
  };
}

const calls = (n: number) => `${n} call${n === 1 ? '' : 's'}`;

/** `[stopped · 2 calls (1 cancelled) · 340 tokens, $0.0010]`, or from the result when not stopped. */
export function footerText(r: TurnResult | undefined, ledger: TurnLedger | undefined, stopped: boolean): string {
  const parts: string[] = [];
  if (stopped) parts.push('stopped');
  if (ledger && (stopped || ledger.calls > (r?.api_calls ?? 0))) {
    const extra = [
      ...(ledger.cancelled ? [`${ledger.cancelled} cancelled`] : []),
      ...(ledger.failed ? [`${ledger.failed} failed`] : []),
    ];
    parts.push(`${calls(ledger.calls)}${extra.length ? ` (${extra.join(', ')})` : ''}`);
    parts.push(`${ledger.tokens} tokens${ledger.costUsd ? `, $${ledger.costUsd.toFixed(4)}` : ''}`);
  } else if (r && !(stopped && r.api_calls === 0)) {
    // (A stopped turn without its ledger: its result counts no call, which would read as none made.)
    const u = r.usage.turn;
    parts.push(calls(r.api_calls));
    parts.push(`${u.total_tokens} tokens${u.cost_usd ? `, $${u.cost_usd.toFixed(4)}` : ''}`);
  }
  return pc.dim(`[${parts.join(' · ')}]`);
}
