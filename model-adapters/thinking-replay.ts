/**
 * Which assistant thinking an Anthropic-compatible endpoint wants back (docs/providers.md). Anthropic itself
 * needs the signed thinking of the current tool loop only. DeepSeek's Anthropic-compatible endpoint
 * answers 400 "… must be passed back …" unless every assistant message carries its thinking.
 * MiniMax rejects a thinking block without a signature. The endpoint is known by its host.
 */
import type { AnthropicThinkingBlock, ChatMessage } from '../common/messages.js';
import { hostOf } from '../common/providers.js';

export interface ThinkingReplay {
  /** Replay the thinking of every assistant message, not only those after the last user message. */
  everyTurn: boolean;
  /** Thinking blocks with an empty signature are left out. */
  dropUnsigned: boolean;
  /** A message with reasoning text but no stored blocks (another provider's turn) gets an unsigned block. */
  fromReasoningText: boolean;
}

export const ANTHROPIC_REPLAY: ThinkingReplay = { everyTurn: false, dropUnsigned: false, fromReasoningText: false };
const DEEPSEEK_REPLAY: ThinkingReplay = { everyTurn: true, dropUnsigned: false, fromReasoningText: true };
const MINIMAX_REPLAY: ThinkingReplay = { everyTurn: false, dropUnsigned: true, fromReasoningText: false };

const isHost = (host: string | undefined, domain: string) => !!host && (host === domain || host.endsWith(`.${domain}`));

export function thinkingReplayFor(baseUrl: string | undefined): ThinkingReplay {
  const host = baseUrl ? hostOf(baseUrl) : undefined;
  if (isHost(host, 'deepseek.com')) return DEEPSEEK_REPLAY;
  if (['minimax.io', 'minimaxi.com', 'minimax.chat'].some((d) => isHost(host, d))) return MINIMAX_REPLAY;
  return ANTHROPIC_REPLAY;
}

/** The thinking blocks to send with one assistant message under `replay`. */
export function replayedThinking(m: ChatMessage, replay: ThinkingReplay): AnthropicThinkingBlock[] {
  const stored = m.reasoning_details?.format === 'anthropic' ? m.reasoning_details.blocks : [];
  const blocks = replay.dropUnsigned ? stored.filter((b) => b.type !== 'thinking' || b.signature !== '') : stored;
  if (!blocks.length && !stored.length && replay.fromReasoningText && m.reasoning?.trim())
    return [{ type: 'thinking', thinking: m.reasoning, signature: '' }];
  return blocks;
}
