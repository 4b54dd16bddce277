/**
 * An MCP stdio client transport for a process prepared by the tool sandbox. The SDK's own
 * `StdioClientTransport` spawns the command itself with three pipes only; a sandboxed process
 * needs bubblewrap's command line and the seccomp filter as file descriptor 3, so this spawns the
 * prepared process and reuses the SDK's framing (`ReadBuffer`, `serializeMessage`).
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { PreparedProcess } from '../sandbox/sandbox.js';

/** What the server wrote on stderr last: the reason shown when it fails to start. */
const STDERR_TAIL_CHARS = 2_000;

export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  private stderr = '';
  private closed = false;

  constructor(
    private readonly prepared: PreparedProcess,
    private readonly cwd: string,
  ) {}

  /** The end of what the server wrote on stderr (for failure reasons). */
  stderrTail(): string {
    return this.stderr.trim();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    const p = this.prepared;
    return new Promise((resolve, reject) => {
      const child = spawn(p.file, p.args, {
        env: p.env,
        cwd: this.cwd,
        stdio: ['pipe', 'pipe', 'pipe', ...p.fds],
        // Its own process group, so closing kills the server and whatever it started.
        detached: true,
      });
      this.child = child;
      child.once('error', (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once('spawn', () => resolve());
      child.once('close', (code, signal) => {
        void p.finish({ output: this.stderr, code, signal }).catch(() => {});
        this.child = undefined;
        if (!this.closed) {
          this.closed = true;
          this.onclose?.();
        }
      });
      child.stdout!.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let msg: JSONRPCMessage | null;
          try {
            msg = this.buffer.readMessage();
          } catch (err) {
            // A line that is not JSON-RPC (a server logging to stdout): skipped, not fatal.
            this.onerror?.(err as Error);
            continue;
          }
          if (msg === null) break;
          this.onmessage?.(msg);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      });
      child.stdin!.on('error', (err) => this.onerror?.(err));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) return reject(new Error('the MCP server is not running'));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.stdin?.end();
    const exited = new Promise<void>((r) => child.once('close', () => r()));
    const kill = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        // already gone
      }
    };
    const term = setTimeout(() => kill('SIGTERM'), 1000);
    const hard = setTimeout(() => kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(term);
    clearTimeout(hard);
  }
}
