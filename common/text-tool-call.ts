/**
 * A tool call written as text (docs/decisions/small-models.md): small models asked to answer without tools often write
 * the call they wanted instead — a fenced JSON object with `name` and `arguments`, or the
 * Hermes/Qwen template's `<tool_call>{…}</tool_call>` tags. Recognised so that such a reply is
 * not shipped as the final answer.
 */

export interface TextToolCall {
  name: string;
}

const TAGGED = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/i;
const FENCED = /```(?:json|tool_call|tool)?\s*\n?([\s\S]*?)```/gi;
/** A reply this long is an answer that happens to quote JSON, not a bare call. */
const MAX_PROSE_AROUND = 200;

function callIn(json: string): TextToolCall | undefined {
  let v: unknown;
  try {
    v = JSON.parse(json.trim());
  } catch {
    return undefined;
  }
  const items = Array.isArray(v) ? v : [v];
  for (const item of items) {
    if (!item || typeof item !== 'object') continue;
    const o = item as Record<string, unknown>;
    // OpenAI's own shape nests the call under `function`.
    const fn = o.function && typeof o.function === 'object' ? (o.function as Record<string, unknown>) : o;
    const name = fn.name;
    const args = fn.arguments ?? fn.parameters;
    if (typeof name === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(name) && args !== undefined) return { name };
  }
  return undefined;
}

/** The tool call a reply consists of, if it is one (with at most a little prose around it). */
export function recogniseTextToolCall(text: string): TextToolCall | undefined {
  const tagged = TAGGED.exec(text);
  if (tagged) {
    const call = callIn(tagged[1]!);
    if (call) return call;
  }
  for (const m of text.matchAll(FENCED)) {
    const call = callIn(m[1]!);
    if (call && text.length - m[0].length <= MAX_PROSE_AROUND) return call;
  }
  const bare = text.trim();
  if (bare.startsWith('{') && bare.endsWith('}')) return callIn(bare);
  return undefined;
}

/** The one-line answer given instead of a text tool call written after the budget ran out. */
export const textToolCallNote = (name: string) =>
  `The model tried to call ${name} after its budget ran out; no tool ran. Ask again to continue.`;
