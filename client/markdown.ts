/**
 * Markdown for the terminal: `marked` parses, `marked-terminal` draws (headings, emphasis, lists,
 * tables, highlighted code) — well-kept libraries rather than a hand-written renderer.
 *
 * Streaming: a reply arrives in pieces, and markdown cannot be drawn before a block is complete (a
 * `**` may close later, a code fence may still be open). MarkdownStream renders each block as soon
 * as it is complete — a paragraph once a blank line follows it, a code block once its fence closes —
 * and holds only the unfinished block. Nothing printed is ever redrawn, so a reply longer than the
 * screen reads the same as a short one, and the text still appears while the model writes.
 */
import type { MarkedExtension } from 'marked';
import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

export interface MarkdownOptions {
  /** Wrap paragraphs at this width (terminal columns). */
  width?: number;
}

type TextRenderer = (this: { parser: { parseInline(tokens: never): string } }, token: unknown) => string;

function parser(width: number): Marked {
  const m = new Marked();
  const ext = markedTerminal({
    reflowText: true,
    width,
    tab: 2,
    showSectionPrefix: false,
    emoji: false,
  }) as unknown as MarkedExtension & { renderer: { text: TextRenderer } };
  // marked-terminal 7 draws a tight list item's text token as plain text, dropping its inline
  // markup (`code`, *em*) with recent marked: render the token's inline children instead.
  const text = ext.renderer.text;
  ext.renderer.text = function (token) {
    const inner = (token as { tokens?: unknown[] } | null)?.tokens;
    return Array.isArray(inner) && inner.length ? this.parser.parseInline(inner as never) : text.call(this, token);
  };
  m.use(ext);
  return m;
}

const parsers = new Map<number, Marked>();

/** `text` as terminal output: rendered markdown, ending in exactly one newline. */
export function renderMarkdown(text: string, options: MarkdownOptions = {}): string {
  const width = Math.max(20, Math.min(options.width ?? 100, 120));
  let m = parsers.get(width);
  if (!m) parsers.set(width, (m = parser(width)));
  const out = m.parse(text, { async: false }).replace(/\s+$/, '');
  return out ? `${out}\n` : '';
}

/** Whether a fence line opens or closes a code block (``` or ~~~, at most 3 spaces in). */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Complete markdown blocks out of a stream of text pieces. `push` returns the text of the blocks
 * completed so far (to render now); `end` returns the rest.
 */
export class MarkdownStream {
  private pending = '';

  push(piece: string): string {
    this.pending += piece;
    const cut = lastBlockBoundary(this.pending);
    if (cut <= 0) return '';
    const done = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    return done;
  }

  end(): string {
    const rest = this.pending;
    this.pending = '';
    return rest;
  }

  /** Drop what is held (the model call is retried and will send its text again). */
  reset(): void {
    this.pending = '';
  }

  get held(): number {
    return this.pending.length;
  }
}

/**
 * The offset just after the last blank line that is outside a code fence, followed by a line that
 * does not continue a list or an indented block (so a loose list stays one list); 0 if none.
 */
export function lastBlockBoundary(text: string): number {
  let inFence: string | undefined;
  let offset = 0;
  let boundary = 0;
  const lines = text.split('\n');
  // The last element is an unfinished line: never decide on it.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line)?.[1];
    if (fence) {
      if (!inFence) inFence = fence[0]!.repeat(3);
      else if (fence.startsWith(inFence)) {
        inFence = undefined;
        // A closed fence ends its block at once.
        boundary = offset + line.length + 1;
      }
    } else if (!inFence && line.trim() === '' && i > 0 && lines[i - 1]!.trim() !== '') {
      const next = lines[i + 1]!;
      // Wait for enough of the next line to know whether a list or indented block goes on.
      const decided = i + 1 < lines.length - 1 || next.length >= 4;
      if (decided && !/^(\s+|\s*([-*+]|\d+[.)])(\s|$))/.test(next)) boundary = offset + line.length + 1;
    }
    offset += line.length + 1;
  }
  return boundary;
}
