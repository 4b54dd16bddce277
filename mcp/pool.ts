/**
 * MCP connections of one worker, pooled per server config (its hash: a changed config gets a new
 * connection). A stdio server runs as a process prepared by the tool sandbox (its network from
 * `mcp.servers.<name>.network`, else the worker's); a Streamable HTTP server is reached with its
 * headers resolved from the environment. A connection that closes (the server died) leaves the
 * pool, so the next use starts the server again; a server that failed to start is not retried for
 * a few seconds, so one broken server cannot slow every model call down.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../shared/mcp-config.js';
import type { NetworkPolicy } from '../common/sandbox-policy.js';
import { oneLine } from '../common/text.js';
import type { Logger } from '../runtime/logger.js';
import type { ToolSandbox } from '../sandbox/sandbox.js';
import { configHash, resolveRecord } from './secrets.js';
import { SandboxedStdioTransport } from './stdio-transport.js';

/** How many tools one server may list (pages are read until then). */
export const MAX_LISTED_TOOLS = 500;
const RETRY_FAILED_AFTER_MS = 5_000;

export interface McpConnection {
  name: string;
  configHash: string;
  /** This connection's identity; with `version`, the epoch of its tool list. */
  id: string;
  client: Client;
  /** Moves on when the server says its tool list changed. */
  version: number;
  hasResources: boolean;
  hasPrompts: boolean;
}

export interface McpPoolOptions {
  sandbox: ToolSandbox;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** Where a stdio server runs when its config names no `cwd`. */
  workspace: string;
  /** The worker's `sandbox.network`: a stdio server's unless its config says otherwise. */
  network: NetworkPolicy;
  version: string;
}

export class McpPool {
  private readonly live = new Map<string, Promise<McpConnection>>();
  private readonly failed = new Map<string, { reason: string; at: number }>();
  private readonly open = new Set<McpConnection>();

  constructor(private readonly o: McpPoolOptions) {}

  /** The connection for this server config, started when there is none. Throws with the reason. */
  get(name: string, cfg: McpServerConfig): Promise<McpConnection> {
    const hash = configHash(name, cfg);
    const existing = this.live.get(hash);
    if (existing) return existing;
    const failure = this.failed.get(hash);
    if (failure && Date.now() - failure.at < RETRY_FAILED_AFTER_MS) return Promise.reject(new Error(failure.reason));
    const started = this.connect(name, cfg, hash).then(
      (c) => {
        this.failed.delete(hash);
        return c;
      },
      (err: unknown) => {
        this.live.delete(hash);
        const reason = oneLine(err instanceof Error ? err.message : String(err), 280);
        this.failed.set(hash, { reason, at: Date.now() });
        throw new Error(reason);
      },
    );
    this.live.set(hash, started);
    return started;
  }

  /** `<connection>:<list version>` of a live connection, if there is one. */
  async epoch(name: string, cfg: McpServerConfig): Promise<string | undefined> {
    const c = await this.live.get(configHash(name, cfg))?.catch(() => undefined);
    return c ? `${c.id}:${c.version}` : undefined;
  }

  /** Every tool the server lists (all pages, at most MAX_LISTED_TOOLS). */
  async listTools(c: McpConnection, timeoutMs: number): Promise<Tool[]> {
    const out: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await c.client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
      out.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && out.length < MAX_LISTED_TOOLS);
    return out.slice(0, MAX_LISTED_TOOLS);
  }

  async closeAll(): Promise<void> {
    const all = [...this.open];
    this.live.clear();
    await Promise.all(all.map((c) => c.client.close().catch(() => {})));
  }

  private async connect(name: string, cfg: McpServerConfig, hash: string): Promise<McpConnection> {
    const transport = await this.transport(cfg);
    const client = new Client({ name: 'herald', version: this.o.version }, { capabilities: {} });
    const conn: McpConnection = {
      name,
      configHash: hash,
      id: randomBytes(6).toString('hex'),
      client,
      version: 0,
      hasResources: false,
      hasPrompts: false,
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      conn.version += 1;
    });
    client.onclose = () => {
      this.open.delete(conn);
      // Only if the pool still holds this connection (a newer one may have replaced it).
      void this.live.get(hash)?.then(
        (c) => {
          if (c === conn) this.live.delete(hash);
        },
        () => {},
      );
      this.o.log.info({ server: name }, 'MCP server connection closed');
    };
    try {
      await client.connect(transport, { timeout: cfg.connectTimeoutSeconds * 1000 });
    } catch (err) {
      await transport.close().catch(() => {});
      const tail = transport instanceof SandboxedStdioTransport ? lastLines(transport.stderrTail()) : '';
      throw new Error(`${(err as Error).message}${tail ? ` — server said: ${tail}` : ''}`);
    }
    conn.hasResources = client.getServerCapabilities()?.resources !== undefined;
    conn.hasPrompts = client.getServerCapabilities()?.prompts !== undefined;
    this.open.add(conn);
    return conn;
  }

  private async transport(cfg: McpServerConfig): Promise<Transport> {
    if (cfg.url) {
      const headers = resolveRecord(cfg.headers, this.o.env);
      return new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers } });
    }
    const env = resolveRecord(cfg.env, this.o.env);
    const cwd = cfg.cwd ?? this.o.workspace;
    const prepared = await this.o.sandbox.prepare({
      command: [cfg.command!, ...cfg.args].map(shellQuote).join(' '),
      workspace: cwd,
      network: cfg.network ?? this.o.network,
    });
    if (!prepared.ok) throw new Error(prepared.error);
    return new SandboxedStdioTransport({ ...prepared.process, env: { ...prepared.process.env, ...env } }, cwd);
  }
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function lastLines(text: string): string {
  return oneLine(text.split('\n').slice(-3).join(' '), 200);
}
