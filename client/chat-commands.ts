/**
 * The chat's slash commands (`/help` lists them): what each does with the session the chat holds,
 * reached through `ChatCommands` so that the REPL loop in chat.ts keeps its own state.
 */
import pc from 'picocolors';
import { describeMcpServers } from '../common/mcp-state.js';
import type { ReloadToolsResult } from '../workflows/definitions.js';
import type { Db } from '../store/db.js';
import type { ApprovalAnswer } from './approval-input.js';
import { parseApprovalAnswer } from './approval-input.js';
import { lastTurnDiffs } from './chat-diff.js';
import { resumeCommand } from './chat-session.js';
import type { Conversation, StartOptions } from './client.js';
import { switchModel } from './model-switch.js';
import { describeRewind } from './rewind-view.js';
import { readTurnDiff, renderTurnDiff } from './turn-diff.js';

/** Every command, one line each (`/help`). */
export const HELP_LINES: ReadonlyArray<[string, string]> = [
  ['/help', 'this list'],
  ['/stop', 'interrupt the running turn (also Ctrl-C while the agent works)'],
  ['/steer <text>', 'add guidance to the running turn without stopping it'],
  ['/approve <o|s|a|d|sr|ar>', 'answer the pending approval: once, session, always, deny, or for the whole rule'],
  ['/approve d <reason>', 'deny, and tell the model why (it reads the reason)'],
  ['/compress [focus]', 'summarise older context now, optionally focused on a topic'],
  ['/usage', 'tokens and cost of this session'],
  ['/status', 'session, model, context use and cost'],
  ['/model <name> [--provider p]', 'switch this conversation to another model in place (same session)'],
  ['/reload-mcp', "list the MCP servers' tools again (servers, status, tools)"],
  ['/diff', 'what the latest turn changed in the workspace (every tool, shell commands included)'],
  ['/undo [--force]', 'undo the last turn: its file changes and its place in the transcript'],
  ['/clear', 'clear the screen and start a new session (the old one keeps running: its resume line is shown)'],
  ['/new', 'start a new session'],
  ['/resume <id|title> [--reopen]', 'go on with another session (--reopen: one that has ended)'],
  ['/quit', 'leave (also /exit, Ctrl-D, or Ctrl-C twice); the session keeps running'],
  ['text \\', 'a trailing backslash continues the message on the next line'],
  ['"""', 'on its own line, starts or ends a multi-line block (pasted text, code)'],
];

export function helpText(): string {
  const width = Math.max(...HELP_LINES.map(([c]) => c.length));
  return HELP_LINES.map(([c, what]) => `  ${pc.bold(c.padEnd(width))}  ${what}`).join('\n');
}

/** What a slash command may read and do in the running chat. */
export interface ChatCommands {
  readonly conv: Conversation;
  /** Whether the session exists (something was sent, or it was resumed). */
  readonly started: boolean;
  readonly db: Db | undefined;
  readonly tty: boolean;
  readonly start: StartOptions;
  err(text: string): void;
  busy(): boolean;
  stopTurn(): void;
  pendingApproval(): boolean;
  decide(answer: ApprovalAnswer): Promise<void>;
  /** A fresh session (`/new`, `/clear`), its event watch attached. */
  newSession(): Promise<void>;
  /** Go on with another session, its event watch attached when it may. */
  resume(key: string, reopen: boolean): Promise<void>;
  printStatus(): Promise<void>;
}

/** Run one slash command; false when the chat should end (`/quit`). */
export async function slashCommand(line: string, c: ChatCommands): Promise<boolean> {
  const [cmd, ...rest] = line.split(' ');
  const arg = rest.join(' ').trim();
  switch (cmd) {
    case '/quit':
    case '/exit':
      return false;
    case '/help':
      c.err(helpText());
      break;
    case '/stop':
      if (c.busy()) c.stopTurn();
      else c.err('nothing is running');
      break;
    case '/approve': {
      const decision = parseApprovalAnswer(arg);
      if (!c.pendingApproval() || !decision)
        c.err(
          c.pendingApproval()
            ? 'usage: /approve once|session|always|deny [reason] (session rule|always rule: every command of the rule)'
            : 'no approval is pending',
        );
      else await c.decide(decision);
      break;
    }
    case '/compress': {
      c.err(pc.dim('compressing…'));
      const r = await c.conv.compress(arg || undefined);
      c.err(r.message);
      break;
    }
    case '/steer':
      if (arg) await c.conv.steer(arg);
      else c.err('usage: /steer <text>');
      break;
    case '/diff': {
      if (!c.started || !c.db) {
        c.err('no turn yet');
        break;
      }
      // The checkpoint's diff has every change; without checkpoints, the file tools' own diffs.
      const d = await readTurnDiff(c.db, c.conv.sessionId);
      c.err(d ? renderTurnDiff(d) : await lastTurnDiffs(c.db, c.conv.sessionId));
      break;
    }
    case '/undo': {
      if (c.busy()) {
        c.err('a turn is running: /stop it first');
        break;
      }
      const turn = c.started ? (await c.conv.state()).turn : 0;
      if (turn < 1) c.err('no turn to undo');
      else c.err(describeRewind(await c.conv.rewind({ toTurn: turn, conversation: true, force: arg === '--force' })));
      break;
    }
    case '/clear':
      // Like /new, on a clean screen: a fresh context for the model. The old session is not
      // ended (it may hold work the person returns to): its resume line is printed first.
      if (c.busy()) {
        c.err('a turn is running: /stop it first');
        break;
      }
      if (c.tty) process.stdout.write('\x1b[2J\x1b[3J\x1b[H');
      if (c.started) c.err(pc.dim(`previous session: ${resumeCommand(c.conv.sessionId)}`));
      await c.newSession();
      break;
    case '/new':
      await c.newSession();
      break;
    case '/resume': {
      const reopen = /(^|\s)--reopen(\s|$)/.test(arg);
      const key = arg.replace(/(^|\s)--reopen(\s|$)/, ' ').trim();
      if (!key) c.err('usage: /resume <session id or title> [--reopen]');
      else await c.resume(key, reopen);
      break;
    }
    case '/model':
      c.err(pc.dim(await switchModel(c.conv, arg, c.started, c.start)));
      break;
    case '/reload-mcp':
      if (!c.started) c.err('nothing to reload yet: send a message first');
      else c.err(await reloadMcp(c.conv));
      break;
    case '/status':
      if (!c.started) c.err(pc.dim(`session ${c.conv.sessionId} (nothing sent yet)`));
      else await c.printStatus();
      break;
    case '/usage': {
      const s = c.started ? await c.conv.state().catch(() => undefined) : undefined;
      if (!s) c.err('no usage yet');
      else
        c.err(
          `${s.turn} turns · ${s.usage.total_tokens} tokens (in ${s.usage.input_tokens}, out ${s.usage.output_tokens}, cache ${s.usage.cache_read_tokens}) · $${s.usage.cost_usd.toFixed(4)}`,
        );
      break;
    }
    default:
      c.err(`unknown command ${cmd}; /help lists them`);
  }
  return true;
}

/** `/reload-mcp`: what the servers offer now, one line each (the reason when one is unavailable). */
async function reloadMcp(conv: { reloadTools(): Promise<ReloadToolsResult> }): Promise<string> {
  try {
    const r = await conv.reloadTools();
    const lines = describeMcpServers(r.servers);
    return `${r.tools.length} MCP tool(s)${lines.length ? `\n  ${lines.join('\n  ')}` : ''}`;
  } catch (e) {
    return pc.red(`reload failed: ${(e as Error).message}`);
  }
}
