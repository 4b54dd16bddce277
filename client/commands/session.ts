/**
 * The commands that act on a running conversation: `send`, `stop`, `end`, `steer`, `compress`,
 * `model`, and `watch` to follow it.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { API_MODES, PROVIDER_NAMES } from '../../common/providers.js';
import { describeResult, exitCodeOf, print, withClient, withConversation } from './shared.js';

export function registerSend(program: Command): void {
  program
    .command('send')
    .description('send a message to a conversation and wait for the turn result')
    .argument('<session>', 'session id')
    .argument('<text>', 'message')
    .option('--id <id>', 'message id (makes retries idempotent)')
    .option('--no-wait', 'only queue the message (signal userMessage)')
    .option('--json', 'print JSON')
    .action(async (session: string, text: string, o: { id?: string; wait: boolean; json?: boolean }) => {
      await withConversation(session, async (conv) => {
        if (!o.wait) {
          await conv.post(text, o.id);
          print(Boolean(o.json), { queued: true }, 'queued');
          return;
        }
        const r = await conv.send(text, o.id ? { id: o.id } : {});
        print(Boolean(o.json), r, describeResult(r));
        process.exitCode = exitCodeOf(r);
      });
    });
}

/** `herald stop` and `herald end`. */
export function registerStopAndEnd(program: Command): void {
  for (const [name, description] of [
    ['stop', 'interrupt the running turn (/stop)'],
    ['end', 'end the conversation (the workflow completes)'],
  ] as const) {
    program
      .command(name)
      .description(description)
      .argument('<session>', 'session id')
      .argument('[reason]', 'reason')
      .action(async (session: string, reason?: string) => {
        await withConversation(session, async (conv) => {
          await (name === 'stop' ? conv.stop(reason) : conv.end(reason));
          process.stderr.write(`${name} sent to ${conv.workflowId}\n`);
        });
      });
  }
}

export function registerCompress(program: Command): void {
  program
    .command('compress')
    .description('compress the conversation context now (between turns)')
    .argument('<session>', 'session id')
    .argument('[focus]', 'what the summary should keep in detail')
    .option('--json', 'print JSON')
    .action(async (session: string, focus: string | undefined, o: { json?: boolean }) => {
      await withConversation(session, async (conv) => {
        const r = await conv.compress(focus);
        print(Boolean(o.json), r, r.message);
      });
    });
}

export function registerModel(program: Command): void {
  program
    .command('model')
    .description("switch a conversation's model in place (same session; from the next turn if one runs)")
    .argument('<session>', 'session id')
    .argument('<model>', 'model name')
    .addOption(new Option('--provider <name>', 'provider (default: the current one)').choices([...PROVIDER_NAMES]))
    .addOption(new Option('--api-mode <mode>', 'API mode').choices([...API_MODES]))
    .option('--json', 'print JSON')
    .action(async (session: string, model: string, o: { provider?: string; apiMode?: string; json?: boolean }) => {
      await withClient(async (client) => {
        const r = await client.conversation(session).setModel({
          model,
          ...(o.provider ? { provider: o.provider as (typeof PROVIDER_NAMES)[number] } : {}),
          ...(o.apiMode ? { apiMode: o.apiMode as (typeof API_MODES)[number] } : {}),
        });
        const when = r.applies === 'now' ? '' : ' (from the next turn; the running turn keeps its model)';
        print(
          Boolean(o.json),
          r,
          `model: ${r.model} via ${r.provider}${when} (was ${r.previous.model} via ${r.previous.provider})`,
        );
      });
    });
}

export function registerSteer(program: Command): void {
  program
    .command('steer')
    .description('give the running turn extra guidance at its next model call')
    .argument('<session>', 'session id')
    .argument('<text>', 'guidance')
    .action(async (session: string, text: string) => {
      await withConversation(session, (conv) => conv.steer(text));
    });
}

export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description("follow a conversation's events live")
    .argument('<session>', 'session id')
    .option(
      '--from <seq>',
      'replay the events after this sequence number (0: the whole history; default: the current turn)',
    )
    .option('--json', 'print events as JSON lines')
    .action(async (session: string, o: { from?: string; json?: boolean }) => {
      const from = o.from === undefined ? undefined : Number(o.from);
      if (from !== undefined && !(Number.isInteger(from) && from >= 0))
        throw new Error(`--from takes an event sequence number (0 or more), not "${o.from}"`);
      const { runWatch } = await import('../watch.js');
      await withClient((client) => runWatch(client, session, { from, json: Boolean(o.json) }));
    });
}
