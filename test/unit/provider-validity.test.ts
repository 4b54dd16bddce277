/**
 * Provider validity (docs/architecture.md), as a property: whatever sequence of conversation events left a
 * transcript in the store — interrupts between a tool call and its result, crashes mid-batch,
 * failed calls, compressions that put a summary first — the messages Herald sends after
 * `repairMessageOrder` are valid for each API mode: chat completions, Anthropic Messages and the
 * Responses API. Transcripts come from a seeded PRNG so a failure reproduces; a failing case is
 * shrunk (messages removed one at a time while it still fails) before it is reported.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import { toAnthropicMessages } from '../../model-adapters/anthropic-messages.js';
import { toResponsesInput } from '../../model-adapters/codex-responses.js';
import { SUMMARY_CLOSE, SUMMARY_OPEN } from '../../shared/compression.js';
import type { ChatMessage, ReasoningDetails, ToolCall } from '../../common/messages.js';
import { isValidOrder, repairMessageOrder } from '../../shared/role-order.js';
import { prng } from '../support/prng.js';

type BlockParam = Anthropic.Messages.ContentBlockParam;

const CASES = 400;
const SEED = 0xa11ce;

// ---------------------------------------------------------------------------------------------
// Stored transcripts as interrupts, failures and compressions leave them

function randomTranscript(rand: () => number): ChatMessage[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const chance = (p: number) => rand() < p;
  const shuffled = <T>(xs: readonly T[]): T[] => {
    const copy = [...xs];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy;
  };

  let n = 0;
  /** Ids are unique per transcript; some carry `|` or `.` (ids from other providers, composite ids). */
  const newId = () => {
    n += 1;
    return pick([`call_${n}`, `call_${n}`, `call_${n}|fc_${n}`, `call_${n}.1`]);
  };
  const reasoningDetails = (): ReasoningDetails | undefined => {
    const r = rand();
    if (r < 0.25)
      return {
        format: 'anthropic',
        blocks: [
          { type: 'thinking', thinking: pick(['let me think', '']), signature: `sig${n}` },
          ...(chance(0.2) ? [{ type: 'redacted_thinking' as const, data: 'opaque' }] : []),
        ],
      };
    if (r < 0.45)
      return {
        format: 'responses',
        items: [
          {
            type: 'reasoning',
            ...(chance(0.5) ? { id: `rs_${n}` } : {}),
            encrypted_content: pick(['x', 'x', null]),
            summary: [],
          },
          ...(chance(0.2) ? [{ type: 'reasoning' as const, encrypted_content: 'y', summary: [] }] : []),
        ],
      };
    return undefined;
  };
  const assistant = (content: string | null, calls?: ToolCall[]): ChatMessage => {
    const m: ChatMessage = { role: 'assistant', content };
    if (calls) m.tool_calls = calls;
    const details = reasoningDetails();
    if (details) m.reasoning_details = details;
    if (chance(0.2)) m.reasoning = 'visible reasoning';
    return m;
  };
  const result = (id: string): ChatMessage => {
    const m: ChatMessage = { role: 'tool', tool_call_id: id, content: pick(['ok', '', '  \n', 'a\nb']) };
    if (chance(0.5)) m.name = 'read_file';
    return m;
  };

  const out: ChatMessage[] = [];
  /** Calls whose results have not been written yet (an interrupt may leave them so for good). */
  let open: string[] = [];
  const issued: string[] = [];
  if (chance(0.35))
    out.push({
      role: pick(['user', 'assistant'] as const),
      content: `${SUMMARY_OPEN}\nGoal: ship it.\n${SUMMARY_CLOSE}`,
    });
  else if (chance(0.85)) out.push({ role: 'user', content: 'hi' }); // a conversation opens with the user
  const steps = 1 + Math.floor(rand() * 14);
  for (let s = 0; s < steps; s++) {
    const r = rand();
    if (r < 0.22) out.push({ role: 'user', content: pick(['hi', 'go on', 'stop', '', '   ', '\n\t']) });
    else if (r < 0.36) out.push(assistant(pick(['Done.', 'Let me check.', '', '  ', null])));
    else if (r < 0.72) {
      const calls = Array.from({ length: 1 + Math.floor(rand() * 3) }, (): ToolCall => {
        const id = newId();
        issued.push(id);
        return {
          id,
          type: 'function',
          function: { name: pick(['read_file', 'terminal']), arguments: pick(['{"path":"a.txt"}', '{}', 'not json']) },
        };
      });
      out.push(assistant(pick(['Calling tools.', null, '', ' ']), calls));
      const ids = calls.map((c) => c.id);
      const mode = rand();
      if (mode < 0.4) {
        // all results, in call order or not
        for (const id of chance(0.7) ? ids : shuffled(ids)) out.push(result(id));
      } else if (mode < 0.6) {
        // some results (a crash mid-batch)
        for (const id of ids) if (chance(0.5)) out.push(result(id));
      } else if (mode < 0.75) {
        // none (the worker died before any result was stored)
      } else {
        // results come later, after whatever happens next (an interrupt, a user message)
        open.push(...ids);
      }
      if (chance(0.15)) out.push(result(pick(ids))); // a duplicate result
      if (chance(0.1)) out.push(result(`call_orphan_${s}`)); // an extra result nobody asked for
    } else if (r < 0.85) {
      // late results for calls issued earlier
      for (const id of shuffled(open)) if (chance(0.7)) out.push(result(id));
      open = [];
    } else if (issued.length && chance(0.5))
      out.push(result(pick(issued))); // an old call answered again
    else out.push(result(`call_ghost_${s}`)); // an orphan result
  }
  return out;
}

const CASES_LIST: ChatMessage[][] = (() => {
  const rand = prng(SEED);
  return Array.from({ length: CASES }, () => randomTranscript(rand));
})();

const withSystem = (t: readonly ChatMessage[]): ChatMessage[] => [{ role: 'system', content: 'sys' }, ...t];
const repaired = (t: readonly ChatMessage[]) => repairMessageOrder(withSystem(t));

// ---------------------------------------------------------------------------------------------
// Reporting: a compact shape and a greedy shrinker

function describeMessage(m: ChatMessage): string {
  const text =
    m.content === null ? 'null' : JSON.stringify(m.content.length > 24 ? `${m.content.slice(0, 21)}…` : m.content);
  if (m.role === 'tool') return `tool(${m.tool_call_id ?? '?'}, ${text})`;
  const extras: string[] = [];
  if (m.tool_calls?.length) extras.push(`calls=[${m.tool_calls.map((c) => c.id).join(',')}]`);
  if (m.reasoning_details) extras.push(`reasoning_details=${m.reasoning_details.format}`);
  return `${m.role}(${[text, ...extras].join(', ')})`;
}
const describeTranscript = (t: readonly ChatMessage[]) => `[${t.map(describeMessage).join(', ')}]`;

/** Simpler versions of one message: fewer calls, no reasoning, plain text. */
function simpler(m: ChatMessage): ChatMessage[] {
  const out: ChatMessage[] = [];
  const without = (key: keyof ChatMessage) => {
    const copy = { ...m };
    delete copy[key];
    return copy;
  };
  if (m.reasoning_details) out.push(without('reasoning_details'));
  if (m.reasoning) out.push(without('reasoning'));
  if (m.name) out.push(without('name'));
  if (m.tool_calls?.length === 1) out.push(without('tool_calls'));
  m.tool_calls?.forEach((_, i) => {
    if (m.tool_calls!.length > 1) out.push({ ...m, tool_calls: m.tool_calls!.filter((__, j) => j !== i) });
  });
  if (m.content !== 'x' && !m.content?.startsWith('[CONTEXT SUMMARY')) out.push({ ...m, content: 'x' });
  return out;
}

/** Remove messages one at a time, then simplify the rest, while the property still fails. */
function shrink(t: ChatMessage[], violation: (t: ChatMessage[]) => string | undefined): ChatMessage[] {
  let current = t;
  for (let changed = true; changed;) {
    changed = false;
    const candidates = [
      ...current.map((_, i) => [...current.slice(0, i), ...current.slice(i + 1)]),
      ...current.flatMap((m, i) => simpler(m).map((s) => [...current.slice(0, i), s, ...current.slice(i + 1)])),
    ];
    for (const candidate of candidates) {
      if (violation(candidate)) {
        current = candidate;
        changed = true;
        break;
      }
    }
  }
  return current;
}

/**
 * Check a property on every case it applies to. Returns how many cases were checked and, when
 * some fail, a report built on the shrunk first failing transcript.
 */
function checkAll(
  name: string,
  violation: (t: ChatMessage[]) => string | undefined,
  applies: (t: ChatMessage[]) => boolean = () => true,
): { checked: number; failure: string | undefined } {
  let checked = 0;
  let failures = 0;
  let first: { index: number; transcript: ChatMessage[] } | undefined;
  CASES_LIST.forEach((t, index) => {
    if (!applies(t)) return;
    checked++;
    if (violation(t)) {
      failures++;
      first ??= { index, transcript: t };
    }
  });
  console.log(`provider-validity: ${name}: ${checked} cases checked, ${failures} failing`);
  if (!first) return { checked, failure: undefined };
  const minimal = shrink(first.transcript, (t) => (applies(t) ? violation(t) : undefined));
  return {
    checked,
    failure:
      `${name}: ${failures} of ${checked} cases fail (first: case ${first.index}).\n` +
      `minimal stored transcript (system 'sys' prepended): ${describeTranscript(minimal)}\n` +
      `repaired: ${describeTranscript(repaired(minimal))}\n` +
      `violation: ${violation(minimal)}`,
  };
}

/** The property holds on all CASES transcripts. */
function assertHolds(name: string, violation: (t: ChatMessage[]) => string | undefined): void {
  const { checked, failure } = checkAll(name, violation);
  assert.equal(failure, undefined, failure);
  assert.equal(checked, CASES);
}

// ---------------------------------------------------------------------------------------------
// Chat completions

function chatViolation(t: ChatMessage[]): string | undefined {
  const out = repaired(t);
  if (!isValidOrder(out)) return 'isValidOrder is false';
  if (out[0]?.role !== 'system') return 'the system message is not first';
  for (let i = 0; i < out.length; i++) {
    const m = out[i]!;
    if (m.role === 'tool') {
      let owner = i - 1;
      while (owner >= 0 && out[owner]!.role === 'tool') owner--;
      const calls = out[owner]?.role === 'assistant' ? (out[owner]!.tool_calls ?? []) : [];
      if (!calls.some((c) => c.id === m.tool_call_id))
        return `tool message ${i} (${m.tool_call_id}) answers no call of the assistant message before its run`;
    }
    if (m.role === 'assistant' && m.tool_calls?.length) {
      const results: string[] = [];
      for (let j = i + 1; j < out.length && out[j]!.role === 'tool'; j++) results.push(out[j]!.tool_call_id ?? '');
      for (const c of m.tool_calls) {
        const count = results.filter((id) => id === c.id).length;
        if (count !== 1) return `call ${c.id} of message ${i} has ${count} results`;
      }
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

const blocksOf = (m: Anthropic.Messages.MessageParam): BlockParam[] =>
  typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
const isThinking = (b: BlockParam) => b.type === 'thinking' || b.type === 'redacted_thinking';
const TOOL_ID = /^[A-Za-z0-9_-]+$/;

function anthropicViolation(t: ChatMessage[]): string | undefined {
  const out = repaired(t);
  const { system, messages } = toAnthropicMessages(out, '5m');
  const firstRest = out.find((m) => m.role !== 'system');
  if (firstRest?.role === 'user' && messages[0]?.role !== 'user')
    return `the transcript starts with a user message but the request starts with ${messages[0]?.role}`;
  for (let i = 1; i < messages.length; i++)
    if (messages[i]!.role === messages[i - 1]!.role) return `messages ${i - 1} and ${i} are both ${messages[i]!.role}`;
  let cacheMarks = system.filter((b) => b.cache_control).length;
  for (const b of system) if (!b.text.trim()) return 'an empty system text block';
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const blocks = blocksOf(m);
    if (!blocks.length) return `message ${i} has no content blocks`;
    cacheMarks += blocks.filter((b) => (b as { cache_control?: unknown }).cache_control).length;
    for (const b of blocks) {
      if (b.type === 'text' && !b.text.trim()) return `message ${i} has an empty or whitespace-only text block`;
      if (b.type === 'tool_use' && !TOOL_ID.test(b.id)) return `tool_use id ${JSON.stringify(b.id)} is not allowed`;
      if (b.type === 'tool_result' && !TOOL_ID.test(b.tool_use_id))
        return `tool_result id ${JSON.stringify(b.tool_use_id)} is not allowed`;
    }
    if (m.role === 'assistant') {
      const firstOther = blocks.findIndex((b) => !isThinking(b));
      if (firstOther < 0) return `assistant message ${i} has only thinking blocks`;
      if (blocks.slice(firstOther).some(isThinking)) return `assistant message ${i} has a thinking block after content`;
      if (blocks.some((b) => b.type === 'tool_result')) return `assistant message ${i} holds a tool_result`;
      const uses = blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      if (new Set(uses).size !== uses.length) return `assistant message ${i} repeats a tool_use id: ${uses.join(',')}`;
      const next = messages[i + 1];
      const results =
        next?.role === 'user' ? blocksOf(next).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])) : [];
      for (const id of uses) {
        const count = results.filter((r) => r === id).length;
        if (count !== 1) return `tool_use ${id} in message ${i} has ${count} tool_result blocks in the next message`;
      }
    } else {
      if (blocks.some(isThinking)) return `user message ${i} holds a thinking block`;
      if (blocks.some((b) => b.type === 'tool_use')) return `user message ${i} holds a tool_use`;
      const prev = messages[i - 1];
      const asked = new Set(
        prev?.role === 'assistant' ? blocksOf(prev).flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [],
      );
      let seenOther = false;
      for (const b of blocks) {
        if (b.type !== 'tool_result') seenOther = true;
        else if (seenOther) return `user message ${i} has a tool_result after another block`;
        else if (!asked.has(b.tool_use_id))
          return `tool_result ${b.tool_use_id} in message ${i} answers no tool_use of the previous message`;
      }
    }
  }
  if (cacheMarks > 4) return `${cacheMarks} cache_control markers`;
  return undefined;
}

/** Anthropic requires the first message to be `user`. */
function anthropicFirstViolation(t: ChatMessage[]): string | undefined {
  const { messages } = toAnthropicMessages(repaired(t), '5m');
  return messages[0]?.role === 'user' ? undefined : `the first message is ${messages[0]?.role ?? 'missing'}`;
}
const startsWithAssistant = (t: ChatMessage[]) => repaired(t).find((m) => m.role !== 'system')?.role === 'assistant';

// ---------------------------------------------------------------------------------------------
// Responses API

function responsesViolation(t: ChatMessage[]): string | undefined {
  const { input } = toResponsesInput(repaired(t));
  const items = input as ReadonlyArray<{ type?: string; call_id?: string; id?: unknown }>;
  const calls = new Set<string>();
  const outputs = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.type === 'function_call') {
      if (calls.has(item.call_id!)) return `function_call ${item.call_id} appears twice`;
      calls.add(item.call_id!);
    } else if (item.type === 'function_call_output') {
      if (!calls.has(item.call_id!))
        return `function_call_output ${item.call_id} (item ${i}) has no earlier function_call`;
      outputs.set(item.call_id!, (outputs.get(item.call_id!) ?? 0) + 1);
    } else if (item.type === 'reasoning') {
      if ('id' in item) return `reasoning item ${i} carries an id`;
      if (i === items.length - 1) return `reasoning item ${i} is the last item`;
    }
  }
  for (const id of calls) {
    const count = outputs.get(id) ?? 0;
    if (count !== 1) return `function_call ${id} has ${count} outputs`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------

describe('messages sent to each provider are valid for any stored transcript', () => {
  it('the generator produces the disorder the properties are about', () => {
    const count = (p: (t: ChatMessage[]) => boolean) => CASES_LIST.filter(p).length;
    const stats = {
      needRepair: count((t) => !isValidOrder(withSystem(t))),
      summaryFirst: count((t) => t[0]?.content?.startsWith('[CONTEXT SUMMARY') ?? false),
      assistantFirst: count(startsWithAssistant),
      anthropicThinking: count((t) => t.some((m) => m.reasoning_details?.format === 'anthropic')),
      responsesReasoning: count((t) => t.some((m) => m.reasoning_details?.format === 'responses')),
      oddIds: count((t) => t.some((m) => m.tool_calls?.some((c) => /[|.]/.test(c.id)))),
      blankContent: count((t) => t.some((m) => m.content !== null && !m.content.trim())),
    };
    console.log(`provider-validity: ${CASES} transcripts generated (seed ${SEED}): ${JSON.stringify(stats)}`);
    assert.ok(stats.needRepair > CASES / 2, JSON.stringify(stats));
    for (const [k, v] of Object.entries(stats)) assert.ok(v >= 20, `too few cases with ${k}: ${v}`);
  });

  it('chat completions: valid order, every tool message answers a call before its run, one result per call', () => {
    assertHolds('chat completions', chatViolation);
  });

  it('anthropic: alternating roles, no blank text, tool_use/tool_result pairing, thinking first, ≤ 4 cache marks, clean ids', () => {
    assertHolds('anthropic', anthropicViolation);
  });

  it('anthropic: the first message is user even when the transcript starts with an assistant message', () => {
    const { checked, failure } = checkAll(
      'anthropic first message (assistant-first transcripts)',
      anthropicFirstViolation,
      startsWithAssistant,
    );
    assert.ok(checked > 0, 'no transcript starts with an assistant message');
    // The realistic case: compression stored its summary as an assistant message.
    const example: ChatMessage[] = [
      { role: 'assistant', content: `${SUMMARY_OPEN}\nGoal: ship it.\n${SUMMARY_CLOSE}` },
      { role: 'user', content: 'go on' },
    ];
    const exampleViolation = anthropicFirstViolation(example);
    console.log(
      `provider-validity: anthropic first message for ${describeTranscript(example)}: ${exampleViolation ?? 'user'}`,
    );
    assert.equal(failure, undefined, failure);
    assert.equal(exampleViolation, undefined, `${describeTranscript(example)}: ${exampleViolation}`);
  });

  it('responses: outputs follow their calls, one output per call, reasoning without ids and never last', () => {
    assertHolds('responses', responsesViolation);
  });
});
