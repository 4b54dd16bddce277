/** Shared by the adapter tests (one per API mode): a sink that records the stream, fixtures, servers. */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelResponse, StreamSink, ToolSchema } from '../../model-adapters/types.js';
import type { ChatMessage, ToolCall } from '../../common/messages.js';
import type { SseFrame } from './fake-wire.js';

export interface RecordingSink extends StreamSink {
  texts: string[];
  reasonings: string[];
  tools: string[];
  alives: number;
}

export function recordingSink(): RecordingSink {
  const sink: RecordingSink = {
    texts: [],
    reasonings: [],
    tools: [],
    alives: 0,
    text: (d) => void sink.texts.push(d),
    reasoning: (d) => void sink.reasonings.push(d),
    toolGenerating: (name) => void sink.tools.push(name),
    alive: () => void (sink.alives += 1),
  };
  return sink;
}

export const call = (id: string, name: string, args: string): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

/** Two tools offered to the model: one taking a path, one a command. */
export const TWO_TOOLS: ToolSchema[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
  {
    name: 'terminal',
    description: 'Run a command',
    parameters: { type: 'object', properties: { command: { type: 'string' } } },
  },
];

/** The assistant message Herald stores from a response, as it comes back out of the database (JSON). */
export function storedAssistant(r: ModelResponse): ChatMessage {
  const m: ChatMessage = { role: 'assistant', content: r.content };
  if (r.toolCalls.length) m.tool_calls = r.toolCalls;
  if (r.reasoning) m.reasoning = r.reasoning;
  if (r.reasoningDetails) m.reasoning_details = r.reasoningDetails;
  return JSON.parse(JSON.stringify(m)) as ChatMessage;
}

/** The error a call rejects with. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  return assert.fail('expected the call to fail');
}

/** A server that answers every request with these SSE frames and then ends the stream. */
export async function truncatedServer(frames: SseFrame[]): Promise<{ url: string; close: () => Promise<void> }> {
  const body = frames.map((f) => `event: ${f.event ?? 'message'}\ndata: ${JSON.stringify(f.data)}\n\n`).join('');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
