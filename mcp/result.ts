/**
 * An MCP tool result as the text the transcript stores: text blocks as they are, structured
 * content as JSON (unless a text block already says exactly that), binary content described, not
 * inlined (an image's base64 would only fill the context).
 */
type Block = { type: string; [k: string]: unknown };

/** A field that should be text, as text (anything else shown as JSON). */
const str = (v: unknown, fallback = ''): string =>
  v === undefined || v === null ? fallback : typeof v === 'string' ? v : JSON.stringify(v);

export function formatContentBlocks(blocks: readonly Block[]): string {
  return blocks.map(formatBlock).join('\n');
}

function formatBlock(b: Block): string {
  switch (b.type) {
    case 'text':
      return str(b.text);
    case 'image':
    case 'audio':
      return `[${b.type}: ${str(b.mimeType, 'unknown type')}, ${approxBytes(b.data)} bytes, not shown]`;
    case 'resource_link':
      return `[resource link: ${str(b.uri)}${b.name ? ` (${str(b.name)})` : ''}]`;
    case 'resource': {
      const r = (b.resource ?? {}) as Record<string, unknown>;
      if (typeof r.text === 'string') return `[resource ${str(r.uri)}]\n${r.text}`;
      return `[resource ${str(r.uri)}: ${str(r.mimeType, 'binary')}, ${approxBytes(r.blob)} bytes, not shown]`;
    }
    default:
      return `[${b.type} content]`;
  }
}

function approxBytes(base64: unknown): number {
  return typeof base64 === 'string' ? Math.floor((base64.length * 3) / 4) : 0;
}

export function formatToolResult(r: Record<string, unknown>): { content: string; isError: boolean } {
  // Servers of protocol version 2024-10-07 answer with a bare `toolResult`.
  if (r.content === undefined && r.toolResult !== undefined)
    return { content: JSON.stringify(r.toolResult, null, 2), isError: false };
  const blocks = Array.isArray(r.content) ? (r.content as Block[]) : [];
  let text = formatContentBlocks(blocks);
  if (r.structuredContent !== undefined) {
    const json = JSON.stringify(r.structuredContent, null, 2);
    const same = blocks.some((b) => b.type === 'text' && sameJson(str(b.text), r.structuredContent));
    if (!same) text = text ? `${text}\n\nStructured content:\n${json}` : json;
  }
  return { content: text || '(no content)', isError: r.isError === true };
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
