/**
 * What the pieces of `herald chat` share: the conversation and whether it can be resumed, what the
 * agent waits for the user to answer, the turns in flight, the renderer, the event watch and the
 * readline interface. One object, so each piece (client/chat-turns.ts, client/chat-input.ts) is a
 * function of it instead of a closure inside one long function.
 */
import type { Interface } from 'node:readline';
import pc from 'picocolors';
import type { Db } from '../store/db.js';
import type { HeraldConfig } from '../runtime/config.js';
import { chatStatus } from './chat-status.js';
import type { Conversation, HeraldClient, StartOptions } from './client.js';
import type { EventWatch } from './events.js';
import type { EventRenderer } from './render.js';

export interface ChatOptions {
  sessionId?: string | undefined;
  /** Resume an ended session anyway (a new run under its id). */
  reopen?: boolean;
  start: StartOptions;
  showReasoning: boolean;
}

export const PROMPT = pc.bold('› ');
export const MORE = pc.dim('… ');
export const APPROVE_PROMPT = pc.yellow('approve › ');
export const ANSWER_PROMPT = pc.cyan('answer › ');

export interface ChatState {
  readonly client: HeraldClient;
  readonly options: ChatOptions;
  readonly config: HeraldConfig;
  readonly db: Db | undefined;
  /** Standard input is a terminal: lines are typed, not piped. */
  readonly interactive: boolean;
  /** Standard output is a terminal: markdown is rendered. */
  readonly tty: boolean;
  conv: Conversation;
  /** Whether the session exists (something was sent, or it was resumed): only then is it resumable. */
  started: boolean;
  reopening: boolean;
  /** While the agent waits for an approval or an answer, the next line typed is the reply. */
  pendingApproval: { requestId: string } | undefined;
  pendingClarify: { requestId: string; choices: string[] } | undefined;
  /** Created after the event watch is attached (piped lines must not arrive before their handler). */
  rl: Interface;
  renderer: EventRenderer;
  watch: EventWatch | undefined;
  /** Our sends not yet answered. */
  inflight: number;
  /** Turns running (from their events). */
  readonly active: Set<string>;
  /** Message ids whose turn end has been rendered, and who waits for one. */
  readonly ended: Set<string>;
  readonly endWaiters: Map<string, () => void>;
  /** Output that must come out in order (a turn's footer, then the status line). */
  ui: Promise<void>;
  busyPolicy: string;
  /** Set once the REPL is leaving. */
  closing: Promise<void> | undefined;
  /** What runs when the agent goes idle: the prompt, or the next piped line. */
  onIdle: () => void;
  /** A turn ended since the last status line. */
  statusDue: boolean;
}

export function err(text: string): void {
  process.stderr.write(`${text}\n`);
}

export function fail(e: unknown): void {
  err(pc.red(`error: ${(e as Error).message}`));
}

export function busy(chat: ChatState): boolean {
  return chat.inflight > 0 || chat.active.size > 0;
}

/** Back to the ordinary prompt: nothing is waiting for an answer. */
export function restorePrompt(chat: ChatState): void {
  chat.pendingApproval = undefined;
  chat.pendingClarify = undefined;
  chat.rl.setPrompt(PROMPT);
}

export async function printStatus(chat: ChatState): Promise<void> {
  const s = await chatStatus(chat.conv, chat.db, chat.config).catch(() => undefined);
  if (!s) return;
  chat.busyPolicy = s.busyPolicy;
  err(s.line);
}

/** The prompt, once idle; after a turn, with the status line above it. */
export function showPrompt(chat: ChatState): void {
  if (busy(chat) || chat.closing !== undefined) return;
  if (!chat.statusDue) return chat.rl.prompt();
  chat.statusDue = false;
  chat.ui = chat.ui.then(async () => {
    await printStatus(chat);
    if (!busy(chat) && chat.closing === undefined) chat.rl.prompt();
  });
}
