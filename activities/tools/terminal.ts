/**
 * `terminal`: run a shell command in the workspace, inside the tool sandbox (docs/tool-sandbox.md). The
 * command runs in its own process group (and, sandboxed, its own PID namespace), so `/stop`,
 * timeouts and worker shutdown kill it and everything it started. The exit code is always
 * reported; so is a sandbox limit the command ran into.
 */
import { outputTail } from './tool-display.js';
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { classifyCommand, loadCommandSafety } from '../../command-safety/classify.js';
import { GROUPS } from '../../command-safety/verdict.js';
import { oneLine } from '../../common/text.js';
import type { PreparedProcess } from '../../sandbox/sandbox.js';
import { defineTool } from './registry.js';
import { TRAITS } from '../../common/tool-batch.js';

export interface TerminalSettings {
  timeoutSeconds: number;
  maxOutputChars: number;
}

const MAX_TIMEOUT_SECONDS = 3600;

export function terminalTool(settings: TerminalSettings) {
  const params = z
    .object({
      command: z.string().min(1).describe('Shell command (bash) to run in the workspace directory'),
      timeout: z
        .number()
        .int()
        .min(1)
        .max(MAX_TIMEOUT_SECONDS)
        .optional()
        .describe(`Seconds before the command is killed (default ${settings.timeoutSeconds})`),
    })
    .strict();

  return defineTool({
    name: 'terminal',
    untrusted: 'workspace',
    toolset: 'terminal',
    description:
      'Run a shell command in the workspace and return its combined stdout/stderr and exit code. Non-interactive; ' +
      'commands that wait for input will time out.',
    parameters: params,
    traits: TRAITS.serial,
    summarize: (a) => `terminal: ${oneLine(a.command, 100)}`,
    timeoutSeconds: (a) => a.timeout ?? settings.timeoutSeconds,
    maxResultChars: settings.maxOutputChars,
    async handler(args, ctx) {
      // Defence in depth: the workflow never lets a hardline command through, and neither does the tool.
      await loadCommandSafety();
      const verdict = classifyCommand(args.command);
      if (verdict.level === 'hardline') {
        const why = verdict.findings.find((f) => f.level === 'hardline')!;
        return {
          content: `BLOCKED: this command is never allowed (${GROUPS[why.group]}: ${why.reason}).`,
          isError: true,
        };
      }
      const timeoutSeconds = args.timeout ?? settings.timeoutSeconds;
      const prepared = await ctx.sandbox.prepare({
        command: args.command,
        workspace: ctx.cwd,
        ...(ctx.network ? { network: ctx.network } : {}),
      });
      if (!prepared.ok) return { content: prepared.error, isError: true };
      const proc = prepared.process;
      let r: CommandResult;
      try {
        r = await runCommand(proc, ctx.cwd, timeoutSeconds * 1000, ctx.signal, ctx.heartbeat);
      } catch (err) {
        await proc.finish(undefined);
        throw err;
      }
      const notes = await proc.finish(r);
      // Long output is not cut here: over maxOutputChars the runtime stores it whole in the
      // workspace and shows a preview (docs/tools.md), so nothing is lost.
      const output = r.output;
      const status = r.timedOut
        ? `killed after ${timeoutSeconds}s timeout`
        : r.signal
          ? `killed by ${r.signal}`
          : `exit code ${r.code}`;
      const head = proc.banner ? `${proc.banner}\n` : '';
      const tail = notes.length ? `\n${notes.join('\n')}` : '';
      return {
        content: `${head}${output}${output && !output.endsWith('\n') ? '\n' : ''}[${status}, ${(r.durationMs / 1000).toFixed(1)}s]${tail}`,
        isError: r.timedOut || r.code !== 0,
        display: {
          exitCode: r.timedOut || r.signal ? null : r.code,
          ...(r.timedOut ? { killedBy: 'timeout' } : r.signal ? { killedBy: r.signal } : {}),
          outputTail: outputTail(output),
        },
      };
    },
  });
}

export interface CommandResult {
  output: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  durationMs: number;
}

const OUTPUT_COLLECT_CAP = 4 * 1024 * 1024;
const PIPE_DRAIN_MS = 2000;

/** Start a prepared process in its own process group; abort or timeout kills the whole group. */
export function runCommand(
  proc: Pick<PreparedProcess, 'file' | 'args' | 'env' | 'fds' | 'started'>,
  cwd: string,
  timeoutMs: number,
  signal: AbortSignal,
  heartbeat: (progress?: { output?: string }) => void,
): Promise<CommandResult> {
  return new Promise((resolvePromise, reject) => {
    const started = Date.now();
    const child: ChildProcessByStdio<null, Readable, Readable> = spawn(proc.file, proc.args, {
      cwd,
      env: proc.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...proc.fds],
    }) as ChildProcessByStdio<null, Readable, Readable>;
    let output = '';
    let timedOut = false;
    const collect = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (output.length < OUTPUT_COLLECT_CAP) output += text;
      heartbeat({ output: text });
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is already gone
      }
    };
    proc.started?.(killGroup);
    const beat = setInterval(() => heartbeat(), 1000);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = () => killGroup();
    signal.addEventListener('abort', onAbort, { once: true });

    let exit: { code: number | null; sig: NodeJS.Signals | null } | undefined;
    let settled = false;
    const cleanup = () => {
      clearInterval(beat);
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const finish = () => {
      if (settled || !exit) return;
      settled = true;
      cleanup();
      if (signal.aborted) reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
      else resolvePromise({ output, code: exit.code, signal: exit.sig, timedOut, durationMs: Date.now() - started });
    };
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(err);
    });
    child.on('exit', (code, sig) => {
      exit = { code, sig };
      // Background processes the command left in its group go too; then give the pipes a moment
      // to drain. A process that escaped the group (setsid) must not hold the result hostage.
      killGroup();
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, PIPE_DRAIN_MS).unref();
    });
    child.on('close', finish);
  });
}
