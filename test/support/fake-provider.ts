/**
 * A fake LLM provider: a real `node:http` server on loopback that speaks the OpenAI chat
 * completions, OpenAI Responses and Anthropic Messages wire formats (JSON and SSE) to the real
 * `openai` and `@anthropic-ai/sdk` clients. Tests script its replies
 * in order, inspect the requests it received, inject delays, hangs and HTTP errors, and see a loud
 * failure when the script runs out. `npm run demo` uses it too, labelled as a demo provider.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReplyContent, SseFrame, Wire } from './fake-wire.js';
import { anthropicWire, chatCompletionsWire, responsesWire } from './fake-wire.js';

export type { ScriptedToolCall } from './fake-wire.js';

export interface ScriptedReply extends ReplyContent {
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
  /** When the first streamed frame carrying output was written. */
  firstChunkAt?: number;
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
  /** What the model list (`GET …/models`) offers. */
  models: string[] = ['fake-model'];
  /**
   * Local servers' own endpoints, by path from the server root: `/props` (llama.cpp), `/api/show`
   * (Ollama) and `/api/v0/models` (LM Studio) answer with this JSON; a path not set is a 404.
   */
  readonly localServer = new Map<string, unknown>();

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

  /** Base URL for the Anthropic client (`ANTHROPIC_BASE_URL`; the SDK adds `/v1/messages`). */
  get anthropicUrl(): string {
    return `http://127.0.0.1:${this.port}`;
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
    this.localServer.clear();
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
      if (Date.now() > deadline)
        throw new Error(`fake provider: expected ${count} requests, got ${this.requests.length}`);
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
    const rec: RecordedRequest = {
      n: this.requests.length + 1,
      path: req.url ?? '',
      body,
      headers: req.headers,
      receivedAt: Date.now(),
    };
    this.requests.push(rec);
    for (const w of this.waiters.splice(0)) w();
    res.on('close', () => {
      if (!res.writableFinished && rec.abortedAt === undefined) rec.abortedAt = Date.now();
    });

    const localAnswer = this.localServer.get(new URL(rec.path, 'http://fake').pathname);
    if (localAnswer !== undefined) return this.send(res, 200, localAnswer);
    // The model list (`herald doctor` asks for it): one shape both SDKs read.
    if (req.method === 'GET' && new URL(rec.path, 'http://fake').pathname.endsWith('/models')) {
      return this.send(res, 200, modelList(this.models));
    }
    const wire = wireFor(rec.path);
    if (!wire) {
      return this.send(res, 404, openaiNotFound(`fake provider: no route for ${req.method} ${rec.path}`));
    }
    const reply = this.next(rec);
    if (!reply) {
      const msg = `FAKE PROVIDER SCRIPT EXHAUSTED: request #${rec.n} (model ${modelOf(body)}) has no scripted reply`;
      this.errors.push(msg);
      return this.send(res, 400, wire.error(400, msg, undefined, 'fake_script_exhausted'));
    }
    rec.reply = reply;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    if (reply.status && reply.status >= 400) {
      return this.send(
        res,
        reply.status,
        wire.error(
          reply.status,
          reply.error?.message ?? `injected HTTP ${reply.status}`,
          reply.error?.type,
          reply.error?.code,
        ),
        reply.headers,
      );
    }
    if (body.stream === true) await this.stream(res, wire.frames(modelOf(body), reply, body), reply, rec);
    else this.send(res, 200, wire.json(modelOf(body), reply), reply.headers);
    rec.completedAt = Date.now();
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  private async stream(res: ServerResponse, frames: SseFrame[], r: ScriptedReply, rec: RecordedRequest): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...(r.headers ?? {}),
    });
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
      const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
      res.write(`${frame.event ? `event: ${frame.event}\n` : ''}data: ${data}\n\n`);
      sent += 1;
      if (sent === 2) rec.firstChunkAt ??= Date.now();
      if (r.chunkDelayMs) await sleep(r.chunkDelayMs);
    }
    if (r.hangAfterChunks !== undefined) return await hangUntilClosed(res);
    res.end();
  }
}

function wireFor(path: string): Wire | undefined {
  if (path.endsWith('/chat/completions')) return chatCompletionsWire;
  if (path.endsWith('/responses')) return responsesWire;
  if (path.endsWith('/messages')) return anthropicWire;
  return undefined;
}

function modelList(ids: readonly string[]) {
  const data = ids.map((id) => ({
    id,
    object: 'model',
    created: 0,
    owned_by: 'fake-provider',
    type: 'model',
    display_name: id,
    created_at: '2026-01-01T00:00:00Z',
  }));
  return { object: 'list', data, has_more: false, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null };
}

function openaiNotFound(message: string) {
  return { error: { message, type: 'invalid_request_error', code: 'not_found', param: null } };
}

function modelOf(body: Record<string, unknown>): string {
  return typeof body.model === 'string' ? body.model : 'fake';
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
