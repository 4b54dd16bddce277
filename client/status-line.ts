/**
 * The status line printed above the prompt after each turn: session, model, how full the context
 * window is, and what the session has cost so far.
 */
import pc from 'picocolors';

export interface StatusInfo {
  sessionId: string;
  model: string;
  /** Tokens of the last prompt sent to the model (0: none yet). */
  promptTokens: number;
  /** The model's context window, in tokens. */
  contextWindow: number;
  costUsd: number;
  totalTokens: number;
  /** Why tools run unsandboxed, when they do. */
  warning?: string | undefined;
}

export function contextPercent(promptTokens: number, contextWindow: number): number {
  if (!contextWindow || promptTokens <= 0) return 0;
  return Math.min(100, Math.round((promptTokens / contextWindow) * 100));
}

/** `tokens` as people read them: 950, 12.3k, 1.2M. */
export function shortCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function statusLine(s: StatusInfo, colour = true): string {
  const pct = contextPercent(s.promptTokens, s.contextWindow);
  const tiny = pct === 0 && s.promptTokens > 0;
  const ctx = `ctx ${tiny ? '<1' : pct}% of ${shortCount(s.contextWindow)}`;
  const ctxShown = !colour ? ctx : pct >= 80 ? pc.red(ctx) : pct >= 50 ? pc.yellow(ctx) : ctx;
  const parts = [
    s.sessionId,
    s.model || 'model ?',
    ctxShown,
    `${shortCount(s.totalTokens)} tokens`,
    `$${s.costUsd.toFixed(s.costUsd > 0 && s.costUsd < 0.01 ? 4 : 2)}`,
  ];
  const line = `── ${parts.join(' · ')}${s.warning ? ` · ${s.warning}` : ''}`;
  return colour ? pc.dim(line) : line;
}
