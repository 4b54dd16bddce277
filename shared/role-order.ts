/**
 * Message-order repairs applied to the API copy before every model call (docs/architecture.md).
 * The transcript obeys: system, then user/assistant alternating; an assistant message with tool
 * calls is followed by exactly one tool message per call. These repairs restore that invariant
 * whatever interrupts, crashes or model misbehaviour left behind, without touching the store.
 */
import type { ChatMessage, ToolCall } from '../common/messages.js';

/** Result text for a tool call that never got one (interrupted, crashed, or dropped). */
export const MISSING_RESULT_STUB = '[No result: this tool call did not complete.]';

/**
 * Repair a message list for sending to a provider:
 * merge consecutive user messages, merge consecutive assistant messages (joining text and tool
 * calls), drop tool results that answer no call of the preceding assistant (or answer one twice),
 * and add a stub result for every call left without one.
 */
export function repairMessageOrder(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const original of messages) {
    const msg = cloneMessage(original);
    const prev = out[out.length - 1];
    if (msg.role === 'tool') {
      const owner = owningAssistant(out);
      const callIds = new Set((owner?.tool_calls ?? []).map((c) => c.id));
      const answered = answeredIds(out);
      if (!msg.tool_call_id || !callIds.has(msg.tool_call_id) || answered.has(msg.tool_call_id)) continue;
      out.push(msg);
      continue;
    }
    if (prev && prev.role === msg.role && (msg.role === 'user' || msg.role === 'assistant')) {
      out[out.length - 1] = mergeSameRole(prev, msg);
      continue;
    }
    if (prev?.role === 'assistant' && prev.tool_calls?.length) closeOpenCalls(out);
    else if (prev?.role === 'tool') closeOpenCalls(out);
    out.push(msg);
  }
  closeOpenCalls(out);
  return out;
}

/**
 * A deep-enough copy; a call id repeated within one message is kept once (it can be answered
 * once), and an empty `tool_calls` list is dropped (strict providers refuse `tool_calls: []`).
 */
function cloneMessage(m: ChatMessage): ChatMessage {
  const copy: ChatMessage = { ...m };
  if (m.tool_calls?.length)
    copy.tool_calls = dedupeCalls(m.tool_calls.map((c) => ({ ...c, function: { ...c.function } })));
  else delete copy.tool_calls;
  return copy;
}

/**
 * Two user messages are two things the person said: a blank line between them. Two assistant
 * messages are one reply split by a crash or a retry: their trimmed parts on consecutive lines.
 */
function mergeSameRole(a: ChatMessage, b: ChatMessage): ChatMessage {
  const assistant = a.role === 'assistant';
  const parts = [a.content, b.content]
    .filter((t): t is string => typeof t === 'string')
    .map((t) => (assistant ? t.trim() : t))
    .filter((t) => t.length > 0);
  const text = parts.join(assistant ? '\n' : '\n\n');
  const merged: ChatMessage = { ...a, content: text.length > 0 ? text : (a.content ?? b.content) };
  const calls = [...(a.tool_calls ?? []), ...(b.tool_calls ?? [])];
  if (calls.length) merged.tool_calls = dedupeCalls(calls);
  const reasoning = [a.reasoning, b.reasoning].filter(Boolean).join('\n\n');
  if (reasoning) merged.reasoning = reasoning;
  return merged;
}

function dedupeCalls(calls: ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.filter((c) => (seen.has(c.id) ? false : (seen.add(c.id), true)));
}

/** The assistant message that the trailing run of tool messages answers, if any. */
function owningAssistant(out: ChatMessage[]): ChatMessage | undefined {
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i];
    if (!m) break;
    if (m.role === 'tool') continue;
    return m.role === 'assistant' ? m : undefined;
  }
  return undefined;
}

function answeredIds(out: ChatMessage[]): Set<string> {
  const ids = new Set<string>();
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i];
    if (!m || m.role !== 'tool') break;
    if (m.tool_call_id) ids.add(m.tool_call_id);
  }
  return ids;
}

/** Append stub results for the calls of the trailing assistant that have none yet. */
function closeOpenCalls(out: ChatMessage[]): void {
  const owner = owningAssistant(out);
  if (!owner?.tool_calls?.length) return;
  const answered = answeredIds(out);
  for (const call of owner.tool_calls) {
    if (answered.has(call.id)) continue;
    out.push({ role: 'tool', tool_call_id: call.id, name: call.function.name, content: MISSING_RESULT_STUB });
  }
}

/** True when a message list already satisfies the ordering invariant (used by tests and asserts). */
export function isValidOrder(messages: readonly ChatMessage[]): boolean {
  let open: Set<string> | undefined;
  let prevRole: string | undefined;
  for (const m of messages) {
    if (m.role === 'system') {
      if (prevRole !== undefined) return false;
    } else if (m.role === 'tool') {
      if (!open || !m.tool_call_id || !open.has(m.tool_call_id)) return false;
      open.delete(m.tool_call_id);
    } else {
      if (open && open.size > 0) return false;
      if (prevRole === m.role) return false;
      open = m.role === 'assistant' && m.tool_calls?.length ? new Set(m.tool_calls.map((c) => c.id)) : undefined;
    }
    prevRole = m.role;
  }
  return !open || open.size === 0;
}

/**
 * Serialise tool-call arguments canonically (sorted keys, compact) so identical calls produce
 * identical bytes and provider prefix caches hit. Unparseable text is returned unchanged.
 */
export function canonicalArguments(args: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(args)));
  } catch {
    return args;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}
