/**
 * The last exchanges of a stored transcript, drawn compactly for a resumed REPL: each user message
 * after `›`, tool calls one line each with a one-line result, the assistant's replies as markdown
 * (long ones cut). Pure: it reads messages, not the store.
 */
import pc from 'picocolors';
import { visibleControls } from '../shared/command-display.js';
import type { ChatMessage } from '../common/messages.js';
import { oneLine } from '../common/text.js';
import { renderMarkdown } from './markdown.js';
import { unwrapPreview } from './tool-line.js';

export interface TranscriptViewOptions {
  /** How many user/assistant exchanges (default 3). */
  exchanges?: number;
  /** Markdown for replies (false: plain text). */
  markdown?: boolean;
  width?: number;
  /** Lines kept of one message (default 12). */
  maxLines?: number;
}

/** The messages from the `n`-th last user message on (system messages left out). */
export function lastExchanges<M extends ChatMessage>(messages: readonly M[], n: number): M[] {
  let seen = 0;
  let from = messages.length;
  for (let i = messages.length - 1; i >= 0 && seen < n; i--) {
    if (messages[i]!.role === 'user') {
      seen += 1;
      from = i;
    }
  }
  return messages.slice(from).filter((m) => m.role !== 'system');
}

function cutLines(text: string, max: number): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.length <= max
    ? lines.join('\n')
    : `${lines.slice(0, max).join('\n')}\n${pc.dim(`… ${lines.length - max} more lines`)}`;
}

/** A tool call as one line: its name and its most telling argument. */
export function callLine(name: string, args: string): string {
  let detail = '';
  try {
    const a = JSON.parse(args) as Record<string, unknown>;
    const v = a.command ?? a.path ?? a.pattern ?? a.query ?? a.goal ?? Object.values(a)[0];
    if (typeof v === 'string') detail = v;
  } catch {
    detail = args;
  }
  return `⚙ ${name}${detail ? `: ${oneLine(visibleControls(detail), 100)}` : ''}`;
}

export function renderExchanges(messages: readonly ChatMessage[], options: TranscriptViewOptions = {}): string[] {
  const max = options.maxLines ?? 12;
  const out: string[] = [];
  for (const m of lastExchanges(messages, options.exchanges ?? 3)) {
    const content = visibleControls(m.content ?? '');
    if (m.role === 'user') {
      out.push(pc.bold(`› ${cutLines(content, max).replace(/\n/g, '\n  ')}`));
    } else if (m.role === 'assistant') {
      if (content.trim()) {
        const body = options.markdown ? renderMarkdown(content, { width: options.width ?? 100 }) : content;
        out.push(cutLines(body, max));
      }
      for (const c of m.tool_calls ?? []) out.push(pc.cyan(callLine(c.function.name, c.function.arguments)));
    } else if (m.role === 'tool') {
      const text = oneLine(unwrapPreview(content), 110);
      if (text) out.push(pc.dim(`  │ ${text}`));
    }
  }
  return out;
}
