/**
 * Context windows of model families, for a model whose window nobody configured (docs/providers.md). The
 * longest matching key wins, so a specific entry (`gpt-5.4-mini`) beats its family (`gpt-5`); keys
 * are matched inside the lowercased model name, so `openrouter/anthropic/claude-…` finds `claude`.
 * A wrong guess is survivable: too small compresses early, too large is corrected by the provider's
 * overflow error (its stated limit is believed). Each row is checked against an example at load.
 */

/** [key, window, a model name the key must resolve to this window] */
const ROWS: ReadonlyArray<readonly [string, number, string]> = [
  // Anthropic: Claude 4.6 and later serve 1M; the rest (Sonnet 4 / 4.5 without the 1M beta) 200K.
  ['claude-opus-4-6', 1_000_000, 'claude-opus-4-6'],
  ['claude-opus-4.6', 1_000_000, 'anthropic/claude-opus-4.6'],
  ['claude-sonnet-4-6', 1_000_000, 'claude-sonnet-4-6'],
  ['claude-sonnet-4.6', 1_000_000, 'anthropic/claude-sonnet-4.6'],
  ['claude-opus-4-7', 1_000_000, 'claude-opus-4-7'],
  ['claude-opus-4.7', 1_000_000, 'claude-opus-4.7'],
  ['claude-opus-4-8', 1_000_000, 'claude-opus-4-8'],
  ['claude-opus-4.8', 1_000_000, 'claude-opus-4.8'],
  ['claude-opus-5', 1_000_000, 'claude-opus-5'],
  ['claude-sonnet-5', 1_000_000, 'claude-sonnet-5'],
  ['claude', 200_000, 'claude-sonnet-4-5-20250929'],
  // OpenAI.
  ['gpt-5.5', 1_050_000, 'gpt-5.5'],
  ['gpt-5.4-nano', 400_000, 'gpt-5.4-nano'],
  ['gpt-5.4-mini', 400_000, 'gpt-5.4-mini'],
  ['gpt-5.4', 1_050_000, 'gpt-5.4-pro'],
  ['gpt-5.1-chat', 128_000, 'gpt-5.1-chat-latest'],
  ['gpt-5', 400_000, 'gpt-5-mini'],
  ['gpt-4.1', 1_047_576, 'openai/gpt-4.1-nano'],
  ['gpt-4o', 128_000, 'gpt-4o-mini'],
  // Google.
  ['gemini', 1_048_576, 'gemini-2.5-pro'],
  ['gemma-4', 256_000, 'gemma-4-31b'],
  ['gemma4', 256_000, 'gemma4:31b-cloud'],
  ['gemma-3', 131_072, 'gemma-3-27b-it'],
  ['gemma', 8192, 'gemma-7b'],
  // DeepSeek: V4 is 1M; V3 and the rest 128K.
  ['deepseek-v4', 1_000_000, 'deepseek-v4-pro'],
  ['deepseek', 128_000, 'deepseek-v3'],
  // Meta, Mistral.
  ['llama', 131_072, 'meta-llama/llama-3.3-70b-instruct'],
  ['mistral', 128_000, 'mistral-large-latest'],
  // Qwen: the Qwen3 families before the catch-all.
  ['qwen3-coder-plus', 1_000_000, 'qwen3-coder-plus'],
  ['qwen3-coder', 262_144, 'qwen/qwen3-coder-480b-a35b'],
  ['qwen3-max', 262_144, 'qwen3-max'],
  ['qwen3.6-plus', 1_048_576, 'qwen3.6-plus'],
  ['qwen3.7-plus', 1_048_576, 'qwen3.7-plus'],
  ['qwen', 131_072, 'qwen2.5-coder'],
  // Others with public, stable windows.
  ['minimax-m3', 1_000_000, 'minimax-m3'],
  ['minimax', 204_800, 'MiniMax-M2.5'],
  ['glm-5.2', 1_048_576, 'glm-5.2'],
  ['glm-5.3', 1_048_576, 'glm-5.3'],
  ['glm', 202_752, 'glm-4.7'],
  ['grok-4-fast', 2_000_000, 'grok-4-fast-reasoning'],
  ['grok-4', 256_000, 'grok-4-0709'],
  ['grok', 131_072, 'grok-3-mini'],
  ['kimi-k3', 1_048_576, 'kimi-k3'],
  ['kimi', 262_144, 'moonshotai/kimi-k2-thinking'],
  ['nemotron', 131_072, 'nvidia/nemotron-3-super'],
];

/** OpenAI's o-series, matched as a whole name part (`o3`, `o4-mini`), never inside another word. */
const O_SERIES = /(^|\/)o[134](-|$)/i;
const O_SERIES_WINDOW = 128_000;

const BY_LENGTH = [...ROWS].sort((a, b) => b[0].length - a[0].length);

/** The family window of a model name, or undefined when no family matches. */
export function familyWindowOf(model: string): number | undefined {
  const name = model.toLowerCase();
  for (const [key, window] of BY_LENGTH) if (name.includes(key)) return window;
  return O_SERIES.test(name) ? O_SERIES_WINDOW : undefined;
}

// The table checks itself: each example resolves to its own row's window.
for (const [key, window, example] of ROWS) {
  if (key !== key.toLowerCase()) throw new Error(`model window key ${key} must be lowercase`);
  if (familyWindowOf(example) !== window)
    throw new Error(`model window table: ${example} should resolve to ${window} (row ${key})`);
}
