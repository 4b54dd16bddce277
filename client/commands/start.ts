/** `herald start` and `herald chat`: the commands that begin (or resume) a conversation, with the model options. */
import type { Command } from 'commander';
import { Option } from 'commander';
import pc from 'picocolors';
import { BUSY_POLICIES } from '../../common/contract.js';
import { API_MODES, PROVIDER_NAMES } from '../../common/providers.js';
import type { StartOptions } from '../client.js';
import { describeResult, exitCodeOf, print, withClient } from './shared.js';

export function startOptions(o: Record<string, unknown>): StartOptions {
  const s: StartOptions = {};
  if (typeof o.model === 'string') s.model = o.model;
  if (typeof o.provider === 'string') s.provider = o.provider as StartOptions['provider'];
  if (typeof o.apiMode === 'string') s.apiMode = o.apiMode as StartOptions['apiMode'];
  if (typeof o.baseUrl === 'string') s.baseUrl = o.baseUrl;
  if (typeof o.system === 'string') s.systemMessage = o.system;
  if (typeof o.cwd === 'string') s.cwd = o.cwd;
  if (typeof o.maxIterations === 'string') s.maxIterations = Number(o.maxIterations);
  if (typeof o.busyPolicy === 'string') s.busyPolicy = o.busyPolicy as StartOptions['busyPolicy'];
  return s;
}

export function withModelOptions(cmd: Command): Command {
  return cmd
    .option('--model <name>', 'model name')
    .addOption(new Option('--provider <name>', 'provider').choices([...PROVIDER_NAMES]))
    .addOption(new Option('--api-mode <mode>', 'API mode').choices([...API_MODES]))
    .option('--base-url <url>', 'OpenAI-compatible base URL (provider custom)')
    .option('--system <text>', 'extra system message')
    .option('--cwd <dir>', 'workspace directory (on the worker, inside its workspace roots)')
    .option('--max-iterations <n>', 'model calls per turn')
    .addOption(
      new Option('--busy-policy <policy>', 'what a message does while a turn runs').choices([...BUSY_POLICIES]),
    );
}

export function registerStart(program: Command): void {
  withModelOptions(
    program
      .command('start')
      .description('start a conversation (optionally with a first message)')
      .argument('[message]', 'first user message')
      .option('--session <id>', 'session id (default: a new one)')
      .option('--wait', 'wait for the first turn and print its result')
      .option('--json', 'print JSON'),
  ).action(async (message: string | undefined, o: Record<string, unknown>) => {
    await withClient(async (client) => {
      const start = startOptions(o);
      if (typeof o.session === 'string') start.sessionId = o.session;
      if (message && o.wait) {
        const conv = client.conversation(start.sessionId ?? (await import('../client.js')).newSessionId());
        const r = await conv.send(message, { start: { ...start, source: 'cli' } });
        print(
          Boolean(o.json),
          { sessionId: conv.sessionId, workflowId: conv.workflowId, result: r },
          `session ${conv.sessionId}\n${describeResult(r)}`,
        );
        process.exitCode = exitCodeOf(r);
        return;
      }
      const conv = await client.start({ ...start, ...(message ? { message } : {}), source: 'cli' });
      // A run the worker refuses at its start (no such cwd there, …) fails here, naming the cause.
      const phase = await conv.whenStarted();
      print(
        Boolean(o.json),
        { sessionId: conv.sessionId, workflowId: conv.workflowId, started: phase.state },
        `started session ${conv.sessionId} (workflow ${conv.workflowId})`,
      );
      if (phase.state === 'pending')
        process.stderr.write(
          pc.yellow(
            `no worker has taken it up yet: is \`herald dev\` or \`herald worker\` running for task queue ${client.settings.taskQueue}?\n`,
          ),
        );
    });
  });
}

export function registerChat(program: Command): void {
  withModelOptions(
    program
      .command('chat')
      .description('interactive chat (streamed replies; Ctrl-C or /stop interrupts)')
      .option('--resume <id>', 'continue an existing session (its id or title)')
      .option('--reopen', 'with --resume: go on with a session that has ended')
      .option('--no-reasoning', "hide the model's reasoning (shown dimmed by default)"),
  ).action(async (o: Record<string, unknown>) => {
    const { runChat } = await import('../chat.js');
    await withClient(async (client) => {
      await runChat(client, {
        sessionId: typeof o.resume === 'string' ? o.resume : undefined,
        reopen: Boolean(o.reopen),
        start: startOptions(o),
        showReasoning: Boolean(o.reasoning),
      });
    });
  });
}
