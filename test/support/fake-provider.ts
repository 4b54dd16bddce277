/**
 * A fake LLM provider: a real `node:http` server on loopback that speaks the OpenAI chat
 * completions wire format (JSON and SSE) to the real `openai` client. Tests script its replies
 * in order, inspect the requests it received, inject delays, hangs and HTTP errors, and see a loud
 * failure when the script runs out. `npm run demo` uses it too, labelled as a demo provider.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  name: string;
  /** A JSON string is sent as is (so tests can send broken JSON); objects are serialised. */
  arguments: string | Record<string, unknown>;
  id?: string;
}

export interface ScriptedReply {
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  finishReason?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  usage?: { prompt?: number; completion?: number; cached?: number; reasoning?: number };
  /** Answer with this HTTP status and error body instead of a completion. */
  status?: number;
  error?: { message: string; type?: string; code?: string };
  headers?: Record<string, string>;
  /** Wait this long before answering at all. */
  delayMs?: number;
  /** Wait this long between stream chunks. */
  chunkDelayMs?: number;
  /** Stop sending after this many stream chunks and keep the connection open (a hung model). */
  hangAfterChunks?: number;
  /** Close the connection after this many stream chunks (a stream cut mid-response). */
  cutAfterChunks?: number;
}

export interface RecordedRequest {
  n: number;
  path: string;
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  receivedAt: number;
  /** When the client went away before the response was complete. */
  abortedAt?: number;
  completedAt?: number;
  reply?: ScriptedReply;
}

export type Responder = (req: RecordedRequest) => ScriptedReply | undefined;

export class FakeProvider {
  readonly requests: RecordedRequest[] = [];
  readonly errors: string[] = [];
  private readonly queue: ScriptedReply[] = [];
  private readonly byModel = new Map<string, ScriptedReply[]>();
  private responder: Responder | undefined;
  private readonly waiters: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    readonly label: string,
  ) {}

  static async start(options: { port?: number; label?: string } = {}): Promise<FakeProvider> {
    const server = createServer();
    const fake = new FakeProvider(server, options.label ?? 'fake-provider');
    server.on('request', (req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
    return fake;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Base URL for the openai client (`OPENAI_BASE_URL`). */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Queue replies, used in order; `model` scopes them to requests for that model. */
  script(replies: ScriptedReply[], model?: string): this {
    if (model) this.byModel.set(model, [...(this.byModel.get(model) ?? []), ...replies]);
    else this.queue.push(...replies);
    return this;
  }

  /** Forget scripts, recorded requests and errors (between tests sharing one fake). */
  reset(): this {
    this.queue.length = 0;
    this.byModel.clear();
    this.requests.length = 0;
    this.errors.length = 0;
    this.responder = undefined;
    return this;
  }

  /** Answer requests with a function when the queues are empty. */
  respond(responder: Responder | undefined): this {
    this.responder = responder;
    return this;
  }

  get remaining(): number {
    return this.queue.length + [...this.byModel.values()].reduce((n, q) => n + q.length, 0);
  }

  /** Resolve once `count` requests have arrived. */
  async waitForRequests(count: number, timeoutMs = 30_000): Promise<RecordedRequest> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (Date.now() > deadline) throw new Error(`fake provider: expected ${count} requests, got ${this.requests.length}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.requests[count - 1]!;
  }

  /** Fail loudly if a scripted reply was never used or a request found no script. */
  assertDone(): void {
    if (this.errors.length) throw new Error(`fake provider errors: ${this.errors.join('; ')}`);
    if (this.remaining) throw new Error(`fake provider: ${this.remaining} scripted replies were never requested`);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private next(rec: RecordedRequest): ScriptedReply | undefined {
    const model = typeof rec.body.model === 'string' ? rec.body.model : '';
    const scoped = this.byModel.get(model);
    if (scoped?.length) return scoped.shift();
    if (this.queue.length) return this.queue.shift();
    return this.responder?.(rec);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    } catch {
      // recorded as an empty body
    }
    const rec: RecordedRequest = { n: this.requests.length + 1, path: req.url ?? '', body, headers: req.headers, receivedAt: Date.now() };
    this.requests.push(rec);
    for (const w of this.waiters.splice(0)) w();
    res.on('close', () => {
      if (!res.writableFinished && rec.abortedAt === undefined) rec.abortedAt = Date.now();
    });

    if (!rec.path.endsWith('/chat/completions')) {
      return this.sendError(res, 404, { message: `fake provider: no route for ${req.method} ${rec.path}`, type: 'invalid_request_error' });
    }
    const reply = this.next(rec);
    if (!reply) {
      const msg = `FAKE PROVIDER SCRIPT EXHAUSTED: request #${rec.n} (model ${String(body.model)}) has no scripted reply`;
      this.errors.push(msg);
      return this.sendError(res, 400, { message: msg, type: 'invalid_request_error', code: 'fake_script_exhausted' });
    }
    rec.reply = reply;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    if (reply.status && reply.status >= 400) {
      return this.sendError(res, reply.status, reply.error ?? { message: `injected HTTP ${reply.status}` }, reply.headers);
    }
    if (body.stream === true) await this.streamChat(res, body, reply);
    else this.jsonChat(res, body, reply);
    rec.completedAt = Date.now();
  }

  private sendError(res: ServerResponse, status: number, error: { message: string; type?: string; code?: string }, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { type: 'error', code: null, param: null, ...error } }));
  }

  private jsonChat(res: ServerResponse, body: Record<string, unknown>, r: ScriptedReply): void {
    const calls = toolCallsOf(r);
    res.writeHead(200, { 'content-type': 'application/json', ...(r.headers ?? {}) });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${Date.now()}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: modelOf(body),
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: r.text ?? (calls.length ? null : ''),
              ...(r.reasoning ? { reasoning_content: r.reasoning } : {}),
              ...(calls.length ? { tool_calls: calls } : {}),
            },
            finish_reason: finishOf(r, calls.length),
          },
        ],
        usage: usageOf(r),
      }),
    );
  }

  private async streamChat(res: ServerResponse, body: Record<string, unknown>, r: ScriptedReply): Promise<void> {
    const id = `chatcmpl-${Date.now()}`;
    const model = modelOf(body);
    const created = Math.floor(Date.now() / 1000);
    const base = { id, object: 'chat.completion.chunk', created, model };
    const frames: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
    for (const piece of pieces(r.reasoning ?? '', 12)) frames.push({ ...base, choices: [{ index: 0, delta: { reasoning_content: piece }, finish_reason: null }] });
    for (const piece of pieces(r.text ?? '', 8)) frames.push({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
    toolCallsOf(r).forEach((call, index) => {
      frames.push({
        ...base,
        choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, finish_reason: null }],
      });
      for (const piece of pieces(call.function.arguments, 16)) {
        frames.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null }] });
      }
    });
    frames.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finishOf(r, toolCallsOf(r).length) }] });
    const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage;
    if (wantsUsage) frames.push({ ...base, choices: [], usage: usageOf(r) });

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...(r.headers ?? {}) });
    let sent = 0;
    for (const frame of frames) {
      if (res.destroyed) return;
      if (r.hangAfterChunks !== undefined && sent >= r.hangAfterChunks) return await hangUntilClosed(res);
      if (r.cutAfterChunks !== undefined && sent >= r.cutAfterChunks) {
        // Let what was written reach the client first: a cut mid-stream, not before it.
        await new Promise<void>((resolve) => res.write('', () => resolve()));
        res.socket?.destroy();
        return;
      }
      res.write(`data: ${JSON.stringify(frame)}\n\n`);
      sent += 1;
      if (r.chunkDelayMs) await sleep(r.chunkDelayMs);
    }
    if (r.hangAfterChunks !== undefined) return await hangUntilClosed(res);
    res.end('data: [DONE]\n\n');
  }
}

function modelOf(body: Record<string, unknown>): string {
  return typeof body.model === 'string' ? body.model : 'fake';
}

function toolCallsOf(r: ScriptedReply) {
  return (r.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${Math.random().toString(36).slice(2, 10)}_${i}`,
    type: 'function' as const,
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
}

function finishOf(r: ScriptedReply, calls: number): string {
  return r.finishReason ?? (calls ? 'tool_calls' : 'stop');
}

function usageOf(r: ScriptedReply) {
  const prompt = r.usage?.prompt ?? 100;
  const completion = r.usage?.completion ?? Math.max(1, Math.ceil((r.text ?? '').length / 4));
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: r.usage?.cached ?? 0 },
    completion_tokens_details: { reasoning_tokens: r.usage?.reasoning ?? 0 },
  };
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Unref'd, so a scripted long delay never keeps a finished test process alive. */
function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

function hangUntilClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.on('close', () => resolve());
  });
}
