/**
 * Bounds on what one model reply can put into the conversation (docs/architecture.md, bounds). Temporal refuses a
 * payload over 2 MB and warns past 512 KB; a reply with thousands of tool calls, or a few huge
 * `delegate_task`/`clarify` arguments, would make the activity's result too large on every retry
 * — paid model calls repeated for nothing. So:
 *
 * - A reply with more than MAX_TOOL_CALLS_PER_REPLY calls runs none of them: the transcript keeps
 *   the first call (a tool call needs a result), answered with an error that says why, and the
 *   model tries again.
 * - The result handed to the workflow stays under RESULT_BUDGET_BYTES: the largest call records
 *   lose their payload (the call fails with a clear error instead) until it fits. The whole reply
 *   stays in Postgres either way.
 */
import type { ToolCall } from '../../common/messages.js';
import type { InvalidCall, ToolCallRef } from '../../common/tool-batch.js';

export const MAX_TOOL_CALLS_PER_REPLY = 128;
/** What the workflow gets from one model call, at most (JSON bytes), well under Temporal's 2 MB. */
export const RESULT_BUDGET_BYTES = 1_000_000;
/** One call record's share before it is the first to go. */
const REF_BUDGET_BYTES = 64_000;

export function tooManyCallsError(n: number): string {
  return (
    `Your reply asked for ${n} tool calls; at most ${MAX_TOOL_CALLS_PER_REPLY} are allowed in one reply, ` +
    `so none of them ran (the others were dropped from the transcript). Make at most ${MAX_TOOL_CALLS_PER_REPLY} calls per reply.`
  );
}

/** The calls the transcript keeps, and the error the kept one answers with (undefined: all run). */
export function capToolCalls(calls: ToolCall[]): { calls: ToolCall[]; error?: string } {
  if (calls.length <= MAX_TOOL_CALLS_PER_REPLY) return { calls };
  return { calls: calls.slice(0, 1), error: tooManyCallsError(calls.length) };
}

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8');

/** A call record without its payload: it fails with `why` and never runs. */
function withoutPayload(ref: ToolCallRef, why: string): InvalidCall {
  return {
    id: ref.id,
    name: ref.name,
    summary: ref.summary.slice(0, 120),
    timeoutSeconds: ref.timeoutSeconds,
    ...(ref.traits ? { traits: ref.traits } : {}),
    kind: 'invalid',
    problem: 'too_large',
    argsError: why,
  };
}

/**
 * Call records that fit the budget alongside `fixedBytes` of other result fields: oversized ones
 * first, then the largest, lose their payload.
 */
export function boundCallRefs(refs: ToolCallRef[], fixedBytes: number): ToolCallRef[] {
  const sizes = refs.map(bytes);
  const out = refs.map((r, i) =>
    sizes[i]! > REF_BUDGET_BYTES
      ? withoutPayload(
          r,
          `The arguments of this ${r.name} call are too large to act on (${sizes[i]} bytes as the conversation would carry them; at most ${REF_BUDGET_BYTES}). Shorten them — put long text in a file and refer to it.`,
        )
      : r,
  );
  let total = fixedBytes + out.reduce((s, r) => s + bytes(r), 0);
  const order = out.map((r, i) => ({ i, size: bytes(r) })).sort((a, b) => b.size - a.size);
  for (const { i } of order) {
    if (total <= RESULT_BUDGET_BYTES) break;
    const before = bytes(out[i]);
    out[i] = withoutPayload(
      out[i]!,
      'This reply carried more call arguments than the conversation can hold at once; this call did not run. Make fewer or smaller calls.',
    );
    total -= before - bytes(out[i]);
  }
  return out;
}
