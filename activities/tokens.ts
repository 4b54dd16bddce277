/**
 * Token estimates for when the provider has not reported usage yet: a real BPE count for
 * OpenAI-family models, a characters-per-token ratio for the rest (Anthropic's tokenizer is not
 * public). Tool schemas count too: they are part of every request.
 */
import { countTokens } from 'gpt-tokenizer';
import type { ChatMessage } from '../common/messages.js';

/** Role, separators and JSON structure around each message and each tool call (ids, type, name). */
const PER_MESSAGE_OVERHEAD = 8;
const PER_TOOL_CALL_OVERHEAD = 24;
const CHARS_PER_TOKEN = 3.6;

function usesOpenAiTokenizer(model: string): boolean {
  return /gpt|o[134]|codex|text-embedding/i.test(model);
}

export function estimateTextTokens(text: string, model: string): number {
  if (!text) return 0;
  if (usesOpenAiTokenizer(model)) {
    try {
      return countTokens(text);
    } catch {
      // fall through to the ratio
    }
  }
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateMessageTokens(m: ChatMessage, model: string): number {
  let n = PER_MESSAGE_OVERHEAD + estimateTextTokens(m.content ?? '', model);
  for (const c of m.tool_calls ?? [])
    n += estimateTextTokens(c.function.name + c.function.arguments, model) + PER_TOOL_CALL_OVERHEAD;
  if (m.tool_call_id) n += PER_TOOL_CALL_OVERHEAD / 2;
  return n;
}

export function estimateRequestTokens(messages: readonly ChatMessage[], toolSchemas: unknown, model: string): number {
  const tools = toolSchemas ? estimateTextTokens(JSON.stringify(toolSchemas), model) : 0;
  return tools + messages.reduce((n, m) => n + estimateMessageTokens(m, model), 0);
}
