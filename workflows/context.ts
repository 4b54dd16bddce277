/**
 * Compression from the workflow's side (docs/long-conversations.md): when to compress, and switching the
 * conversation to the compressed session. The algorithm itself runs in the compression activity.
 */
import type { CompressionReason } from '../common/activity-types.js';
import {
  INEFFECTIVE_SAVING,
  MAX_INEFFECTIVE_COMPRESSIONS,
  contextWindowOf,
  thresholdTokens,
} from '../common/context-window.js';
import { compression } from './activities.js';
import { checkSessionBudget, countAuxiliary, reportedAuxiliary, spendLimitOf } from './attempts.js';
import type { ConversationState } from './state.js';
import { adoptLeftOut } from './state.js';
import type { TurnProgress } from './turn-progress.js';

export interface CompressionOutcome {
  compressed: boolean;
  /** It made real progress (fewer messages, or over 5% fewer tokens). */
  progress: boolean;
  tokensBefore: number;
  tokensAfter: number;
}

export function windowOf(s: ConversationState): number {
  return contextWindowOf(s.provider.model, s.provider.contextLength);
}

/** Over the compression threshold of the current model's window? */
export function overThreshold(s: ConversationState, tokens: number): boolean {
  return tokens > thresholdTokens(windowOf(s), s.compression);
}

/** Automatic compression is on and has not been thrashing. */
export function mayAutoCompress(s: ConversationState): boolean {
  return s.compression.enabled && s.ineffectiveCompressions < MAX_INEFFECTIVE_COMPRESSIONS;
}

/**
 * Compress now, during turn `at` or (a manual compression between turns) under an id of its own.
 * The summaries are model calls: none is made once a session cap is reached (the turn ends there;
 * a manual compression fails saying so), and their usage counts (workflows/attempts.ts).
 */
export async function compressNow(
  s: ConversationState,
  at: TurnProgress | string,
  reason: CompressionReason,
  focus?: string,
): Promise<CompressionOutcome> {
  const p = typeof at === 'string' ? undefined : at;
  const turnId = typeof at === 'string' ? at : at.turnId;
  checkSessionBudget(s);
  const r = await compression
    .compressContext({
      conversationId: s.conversationId,
      turnId,
      sessionId: s.sessionId,
      beforeSeq: s.nextSeq,
      newSessionId: `${s.conversationId}.${s.compressions + 1}`,
      compressionNumber: s.compressions,
      reason,
      provider: s.provider,
      auxiliary: s.auxiliary,
      tools: s.tools,
      firstCompression: s.compressions === 0,
      ...(s.todos.length ? { todos: s.todos } : {}),
      ...(focus ? { focus } : {}),
      ...spendLimitOf(s),
    })
    .catch((err: unknown) => {
      countAuxiliary(s, p, reportedAuxiliary(err));
      throw err;
    });
  countAuxiliary(s, p, r);
  if (!r.compressed)
    return { compressed: false, progress: false, tokensBefore: r.tokensBefore, tokensAfter: r.tokensAfter };
  s.compressions += 1;
  s.sessionId = r.sessionId;
  // The new session has a new system prompt: its notes replace the old one's.
  if (r.leftOut) adoptLeftOut(s, r.leftOut);
  s.nextSeq = r.nextSeq;
  s.lastPromptTokens = 0;
  const saved = r.tokensBefore > 0 ? 1 - r.tokensAfter / r.tokensBefore : 0;
  s.ineffectiveCompressions = saved < INEFFECTIVE_SAVING ? s.ineffectiveCompressions + 1 : 0;
  return {
    compressed: true,
    progress: r.messagesAfter < r.messagesBefore || r.tokensAfter < r.tokensBefore * 0.95,
    tokensBefore: r.tokensBefore,
    tokensAfter: r.tokensAfter,
  };
}
