/**
 * The fuzzer's fake model: a responder for FakeProvider that reads the plan from the user message
 * that started the turn (`[[fz <tag> plan=read,danger~d500,text]]`) and plays its steps in order,
 * one per model call. It keeps no script, so it gives the same answer to a retried call, after a
 * worker restart, after compression and in any interleaving of conversations.
 */
import { createHash } from 'node:crypto';
import type { RecordedRequest, Responder, ScriptedReply } from '../fake-provider.js';
import type { ScriptedToolCall } from '../fake-wire.js';

type WireMessage = { role: string; content: unknown };

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .map((p) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : ''))
          .join('')
      : '';

const DIRECTIVE = /\[\[fz (\S+) plan=([^\]\s]*)\]\]/g;
const DANGEROUS = ['rm -rf scratch', 'chmod -R 777 scratch', 'git reset --hard HEAD~3'];

function hash(s: string): number {
  return createHash('sha256').update(s).digest().readUInt32BE(0);
}

function toolCalls(step: string, key: string): ScriptedToolCall[] {
  switch (step) {
    case 'read':
      return [{ name: 'read_file', arguments: { path: 'notes.txt' } }];
    case 'readmissing':
      return [{ name: 'read_file', arguments: { path: 'missing/nope.txt' } }];
    case 'multi':
      return [
        { name: 'read_file', arguments: { path: 'notes.txt' } },
        { name: 'read_file', arguments: { path: 'other.txt' } },
      ];
    case 'safe':
      return [{ name: 'terminal', arguments: { command: 'echo fz-safe && ls' } }];
    case 'danger':
      return [{ name: 'terminal', arguments: { command: DANGEROUS[hash(key) % DANGEROUS.length]! } }];
    case 'clarify':
      return [{ name: 'clarify', arguments: { question: 'Which one do you mean?', choices: ['a', 'b'] } }];
    case 'todo':
      return [
        { name: 'todo', arguments: { todos: [{ id: '1', content: 'fuzz the workflow', status: 'in_progress' }] } },
      ];
    case 'badargs':
      return [{ name: 'terminal', arguments: '{"command": "echo broken' }];
    case 'unknown':
      return [{ name: 'no_such_tool', arguments: {} }];
    default:
      return [];
  }
}

export interface FuzzModel {
  responder: Responder;
  /** Model calls answered, by kind (for coverage reports). */
  calls: Record<string, number>;
}

export function fuzzModel(): FuzzModel {
  const attempts = new Map<string, number>();
  const calls: Record<string, number> = {};
  const count = (k: string) => (calls[k] = (calls[k] ?? 0) + 1);

  const responder = (req: RecordedRequest): ScriptedReply => {
    const messages = (req.body.messages as WireMessage[] | undefined) ?? [];
    const system = messages[0]?.role === 'system' ? textOf(messages[0].content) : '';
    if (system.startsWith('You compress the earlier part')) {
      count('summary');
      return {
        text: '## Goal\nfuzz the conversation\n## Completed actions\nsome turns\n## Remaining work\nmore turns',
      };
    }
    if (system.startsWith('You review shell commands')) {
      count('smart-approval');
      const cmd = textOf(messages[1]?.content);
      return { text: hash(cmd) % 2 ? 'APPROVE' : 'ESCALATE' };
    }
    // The turn's message: the last user message with a plan (merged messages: its last plan).
    let at = -1;
    let directive: RegExpExecArray | undefined;
    for (let i = messages.length - 1; i >= 0 && !directive; i--) {
      if (messages[i]!.role !== 'user') continue;
      const found = [...textOf(messages[i]!.content).matchAll(DIRECTIVE)];
      if (found.length) {
        directive = found[found.length - 1];
        at = i;
      }
    }
    const plan = directive ? directive[2]!.split(',').filter(Boolean) : ['text'];
    const k = messages.slice(at + 1).filter((m) => m.role === 'assistant').length;
    const raw = plan[Math.min(k, plan.length - 1)] ?? 'text';
    const [step, ...mods] = raw.split('~');
    const key = `${directive?.[1] ?? 'none'}:${at}:${k}`;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    count(step!);

    const reply: ScriptedReply = {};
    for (const m of mods) {
      if (m.startsWith('d')) reply.delayMs = Number(m.slice(1));
      if (m.startsWith('e') && attempt === 1) return { status: Number(m.slice(1)) };
      if (m === 'h' && attempt === 1) return { text: 'this reply hangs', hangAfterChunks: 1 };
    }
    // Past the end of the plan (extra calls after recalls, fallbacks, budget summaries): answer.
    const calls = k >= plan.length ? [] : toolCalls(step!, key);
    if (calls.length) reply.toolCalls = calls;
    else reply.text = `fuzz reply ${k + 1} of ${plan.length}`;
    return reply;
  };
  return { responder, calls };
}
