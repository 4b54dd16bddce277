/**
 * The chaos run's model: deterministic — its reply depends only on the request's messages — and
 * watchful: it checks every request for what a fault could break (a duplicated or missing user
 * message, a tool result twice or not at all) and answers `ANOMALY: …` instead, which also lands
 * in the transcript, so a broken request can never pass unnoticed.
 */
import type { RecordedRequest, Responder, ScriptedReply } from '../fake-provider.js';
import { prng } from '../prng.js';
import { TOKEN, finalAnswer, turnOfMessage, turnScript } from './script.js';

interface WireMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

const textOf = (m: WireMessage): string =>
  typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('');

export interface Anomaly {
  conversation: number;
  at: number;
  what: string;
}

export interface ChaosModel {
  responder: Responder;
  anomalies: Anomaly[];
  /** Model requests per conversation (retries included). */
  requests: Map<number, number>;
}

/** What is wrong with the request's messages, if anything. */
export function requestAnomaly(messages: WireMessage[], c: number, t: number): string | undefined {
  const turns = messages
    .filter((m) => m.role === 'user')
    .flatMap((m) => {
      const at = turnOfMessage(textOf(m));
      return at ? [at] : [];
    });
  const expected = Array.from({ length: t }, (_, i) => `c${c} t${i + 1}`).join(' ');
  const got = turns.map((x) => `c${x.c} t${x.t}`).join(' ');
  if (got !== expected) return `user messages ${got || '(none)'}, expected ${expected}`;
  const open = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      if (open.size) return `tool calls ${[...open].join(', ')} have no result`;
      for (const call of m.tool_calls ?? []) open.add(call.id);
    } else if (m.role === 'tool') {
      const id = m.tool_call_id ?? '';
      if (answered.has(id)) return `tool call ${id} has two results`;
      if (!open.delete(id)) return `tool result for ${id} answers no open call`;
      answered.add(id);
    } else if (m.role === 'user' && open.size && turnOfMessage(textOf(m))) {
      return `tool calls ${[...open].join(', ')} have no result before the next user message`;
    }
  }
  return undefined;
}

export function chaosModel(seed: number): ChaosModel {
  const anomalies: Anomaly[] = [];
  const requests = new Map<number, number>();
  // Latency only (never content): enough that a kill often lands during a model call.
  const latency = prng(seed ^ 0x5eed);
  const responder: Responder = (req: RecordedRequest): ScriptedReply => {
    const messages = (req.body.messages ?? []) as WireMessage[];
    let lastUser = -1;
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i]!.role === 'user' && turnOfMessage(textOf(messages[i]!))) {
        lastUser = i;
        break;
      }
    }
    const delay = { delayMs: 50 + Math.floor(latency() * 400), chunkDelayMs: 5 };
    if (lastUser < 0) return { text: 'ANOMALY: no chaos turn in the request', ...delay };
    const { c, t } = turnOfMessage(textOf(messages[lastUser]!))!;
    requests.set(c, (requests.get(c) ?? 0) + 1);
    const fail = (what: string): ScriptedReply => {
      anomalies.push({ conversation: c, at: Date.now(), what: `turn ${t}: ${what}` });
      return { text: `ANOMALY: ${what}`, ...delay };
    };
    const problem = requestAnomaly(messages, c, t);
    if (problem) return fail(problem);
    const after = messages.slice(lastUser + 1);
    const step = after.filter((m) => m.role === 'assistant').length;
    const results = after.filter((m) => m.role === 'tool');
    const tokens = results.flatMap((m) => textOf(m).match(TOKEN) ?? []);
    const script = turnScript(seed, c, t);
    if (step === script.steps) return { text: finalAnswer(c, t, script.kind, tokens, results.length), ...delay };
    const next = script.step(step, tokens);
    if (!next) return fail(`step ${step} of a ${script.steps}-step turn`);
    return {
      text: next.text,
      toolCalls: next.calls.map((call, i) => ({ ...call, id: `call_c${c}_t${t}_s${step}_${i}` })),
      ...delay,
    };
  };
  return { responder, anomalies, requests };
}
