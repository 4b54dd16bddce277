/**
 * `herald chat`: an interactive REPL on one conversation. Replies stream in from the event side
 * channel (markdown rendered block by block, client/chat-turns.ts); typing while the agent works
 * follows the busy policy; Ctrl-C interrupts a running turn, and twice at an idle prompt exits
 * (client/chat-input.ts). Every exit prints the command that resumes the session.
 */
import { createInterface } from 'node:readline';
import pc from 'picocolors';
import { Redactor } from '../shared/redaction.js';
import { lastEventSeq } from '../store/events.js';
import { createDb } from '../store/db.js';
import { loadConfig } from '../runtime/config.js';
import { workerSecrets } from '../runtime/secrets.js';
import { slashCompleter } from './chat-completion.js';
import { HELP_LINES, slashCommand } from './chat-commands.js';
import type { ChatCommands } from './chat-commands.js';
import { readInput } from './chat-input.js';
import { decideResume, resumeCommand } from './chat-session.js';
import type { ChatOptions, ChatState } from './chat-state.js';
import { PROMPT, busy, err, printStatus, showPrompt } from './chat-state.js';
import { chatRenderer, decide, stopTurn } from './chat-turns.js';
import type { HeraldClient } from './client.js';
import { newSessionId } from './client.js';
import { InputHistory } from './history.js';
import { renderExchanges } from './transcript-view.js';

export type { ChatOptions } from './chat-state.js';
export { EXIT_WINDOW_MS } from './chat-input.js';

export async function runChat(client: HeraldClient, options: ChatOptions): Promise<void> {
  const url = client.settings.databaseUrl;
  const chat = {
    client,
    options,
    config: loadConfig(),
    db: url ? createDb(url, 2) : undefined,
    interactive: Boolean(process.stdin.isTTY),
    tty: Boolean(process.stdout.isTTY),
    conv: client.conversation(options.sessionId ?? newSessionId()),
    started: false,
    reopening: false,
    pendingApproval: undefined,
    pendingClarify: undefined,
    watch: undefined,
    inflight: 0,
    active: new Set<string>(),
    ended: new Set<string>(),
    endWaiters: new Map<string, () => void>(),
    ui: Promise.resolve(),
    busyPolicy: options.start.busyPolicy ?? 'interrupt',
    closing: undefined,
    onIdle: () => {},
    statusDue: false,
  } as Omit<ChatState, 'rl' | 'renderer'> as ChatState;

  if (options.sessionId && !(await resume(chat, options.sessionId, Boolean(options.reopen)))) {
    await chat.db?.end();
    process.exitCode = 1;
    return;
  }

  // The renderer's callbacks use the readline interface, created after the event watch is attached
  // (piped lines must not arrive before their handler): they only run once it exists.
  chat.renderer = chatRenderer(chat);
  await attach(chat);
  err(
    pc.dim(
      `session ${chat.conv.sessionId}${client.settings.uiUrl ? ` · Web UI ${client.settings.uiUrl}` : ''} · /help for commands · Ctrl-C interrupts, twice to exit`,
    ),
  );

  const history = new InputHistory(chat.config.home, new Redactor(workerSecrets(process.env, chat.config.file)));
  chat.rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: PROMPT,
    terminal: chat.interactive,
    history: chat.interactive ? history.load().reverse() : [],
    historySize: 1000,
    removeHistoryDuplicates: true,
    completer: slashCompleter([...HELP_LINES.map(([c]) => c.split(' ')[0]!).filter((c) => c.startsWith('/')), '/exit']),
  });
  chat.onIdle = () => showPrompt(chat);

  const commands = slashCommands(chat);
  await readInput(chat, history, (line) => slashCommand(line, commands));
}

/** `--resume`/`/resume`: check the session may go on, and show where it stands. */
async function resume(chat: ChatState, key: string, reopen: boolean): Promise<boolean> {
  const { client, db } = chat;
  if (!db) {
    chat.conv = client.conversation(key);
    chat.started = true;
    return true;
  }
  const d = await decideResume(client, db, key, { reopen, command: resumeCommand });
  if (!d.ok) {
    err(pc.red(d.message));
    return false;
  }
  chat.conv = client.conversation(d.sessionId);
  chat.started = true;
  chat.reopening = d.reopened;
  const shown = renderExchanges(d.messages, { markdown: chat.tty, width: process.stdout.columns ?? 100 });
  const title = d.title ? ` “${d.title}”` : '';
  if (shown.length) {
    err(pc.dim(`── ${d.reopened ? 'reopening' : 'resuming'} ${d.sessionId}${title}: the last exchanges ──`));
    for (const l of shown) err(l);
    err(pc.dim('──'));
  } else err(pc.dim(`${d.reopened ? 'reopening' : 'resuming'} ${d.sessionId}${title} (no messages yet)`));
  if (d.reopened)
    err(pc.yellow('this session had ended: your next message starts it again (its earlier messages are kept)'));
  return true;
}

/** Watch the current session's events from now on (none without a database). */
async function attach(chat: ChatState): Promise<void> {
  await chat.watch?.stop();
  chat.watch = undefined;
  if (!chat.db) return;
  const from = await lastEventSeq(chat.db, chat.conv.sessionId);
  chat.watch = await chat.conv.watch((e) => {
    if (e.kind === 'turn.started' && e.turn_id) chat.active.add(e.turn_id);
    chat.renderer.render(e);
  }, from);
}

/** What the slash commands (client/chat-commands.ts) may see and do of the REPL. */
function slashCommands(chat: ChatState): ChatCommands {
  return {
    get conv() {
      return chat.conv;
    },
    get started() {
      return chat.started;
    },
    db: chat.db,
    tty: chat.tty,
    start: chat.options.start,
    err,
    busy: () => busy(chat),
    stopTurn: () => stopTurn(chat),
    pendingApproval: () => chat.pendingApproval !== undefined,
    decide: (answer) => decide(chat, answer),
    newSession: async () => {
      chat.conv = chat.client.conversation(newSessionId());
      chat.started = false;
      await attach(chat);
      err(pc.dim(`new session ${chat.conv.sessionId}`));
    },
    resume: async (key, reopen) => {
      if (await resume(chat, key, reopen)) await attach(chat);
    },
    printStatus: () => printStatus(chat),
  };
}
