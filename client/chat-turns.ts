/**
 * A turn of `herald chat` as the terminal sees it: a line sent, the spinner, the events rendered
 * from the side channel, the approval and clarify prompts, the footer and status line at its end,
 * and stopping it.
 */
import pc from 'picocolors';
import type { TurnResult } from '../common/contract.js';
import type { ApprovalAnswer } from './approval-input.js';
import type { ChatState } from './chat-state.js';
import { ANSWER_PROMPT, APPROVE_PROMPT, err, fail, restorePrompt } from './chat-state.js';
import { EventRenderer, turnNotes } from './render.js';
import { footerText, turnLedger } from './turn-footer.js';

/** How long a finished send waits for its turn's end event before showing the prompt anyway. */
const TURN_END_WAIT_MS = 3000;

/** The renderer of the session's events; its callbacks only run once the readline interface exists. */
export function chatRenderer(chat: ChatState): EventRenderer {
  const renderer = new EventRenderer({
    reasoning: chat.options.showReasoning,
    spinner: Boolean(process.stderr.isTTY),
    markdown: chat.tty ? { width: () => process.stdout.columns ?? 100 } : undefined,
    onApproval: (r) => {
      chat.pendingApproval = r;
      renderer.stopSpinner();
      chat.rl.setPrompt(APPROVE_PROMPT);
      chat.rl.prompt();
    },
    onClarify: (r) => {
      chat.pendingClarify = r;
      renderer.stopSpinner();
      chat.rl.setPrompt(ANSWER_PROMPT);
      chat.rl.prompt();
    },
    onTurnEnded: (turnId, result, muted) => turnEnded(chat, turnId, result, muted),
  });
  return renderer;
}

/** A turn's end: its notes, the footer with what it cost, then whoever waits for it. */
function turnEnded(chat: ChatState, turnId: string, result: TurnResult | undefined, muted: boolean): void {
  const db = chat.db;
  chat.active.delete(turnId);
  restorePrompt(chat);
  chat.ui = chat.ui.then(async () => {
    const stopped = muted || Boolean(result?.interrupted);
    // "stopping the turn…" already said it for a turn the user stopped.
    if (result)
      for (const l of turnNotes(result)) if (!muted || !result.interrupted || !l.includes('interrupted')) err(l);
    let ledger = db && turnId ? await turnLedger(db, chat.conv.sessionId, turnId).catch(() => undefined) : undefined;
    // A cancelled call's ledger row can land just after the turn's end.
    if (db && stopped && ledger && ledger.calls === 0) {
      await new Promise((r) => setTimeout(r, 300));
      ledger = await turnLedger(db, chat.conv.sessionId, turnId).catch(() => ledger);
    }
    err(footerText(result, ledger, stopped));
    chat.statusDue = true;
    if (result?.message_id) {
      chat.ended.add(result.message_id);
      chat.endWaiters.get(result.message_id)?.();
    }
    chat.onIdle();
  });
}

/** Wait until the turn of message `id` has been rendered to its end (or a short while). */
function turnRendered(chat: ChatState, id: string): Promise<void> {
  return new Promise<void>((resolve) => {
    if (chat.ended.has(id) || !chat.watch) return resolve();
    const timer = setTimeout(resolve, TURN_END_WAIT_MS);
    chat.endWaiters.set(id, () => {
      clearTimeout(timer);
      resolve();
    });
  }).finally(() => {
    chat.endWaiters.delete(id);
    chat.ended.delete(id);
  });
}

/** Send a line as a new turn; without an event watch (no database) the result is printed whole. */
export function sendTurn(chat: ChatState, text: string): void {
  const { renderer } = chat;
  const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  chat.inflight += 1;
  chat.started = true;
  chat.reopening = false;
  renderer.beginTurn();
  renderer.startSpinner('thinking');
  chat.conv
    .send(text, { start: { source: 'cli', ...chat.options.start }, id })
    .then(async (r: TurnResult) => {
      if (!chat.watch) {
        renderer.stopSpinner();
        if (r.final_response) process.stdout.write(`${r.final_response}\n`);
        if (r.failed) err(pc.red(`error: ${r.error ?? 'the turn failed'}`));
        if (r.interrupted) err(pc.yellow('(interrupted)'));
        return;
      }
      await turnRendered(chat, id);
      await chat.ui;
    })
    .catch((e: unknown) => {
      renderer.stopSpinner();
      fail(e);
    })
    .finally(() => {
      chat.inflight -= 1;
      if (chat.closing === undefined) chat.onIdle();
    });
}

/** Interrupt the running turn: nothing more of it is shown but its end. */
export function stopTurn(chat: ChatState): void {
  chat.renderer.mute();
  restorePrompt(chat);
  err(pc.yellow('⏹ stopping the turn…'));
  // The turn that started last is the running one: a late stop notice cannot reach a newer turn.
  void chat.conv.stop('user', { turnId: [...chat.active].at(-1) }).catch(fail);
}

/** The user's answer to the pending approval. */
export async function decide(chat: ChatState, { decision, scope, reason }: ApprovalAnswer): Promise<void> {
  const id = chat.pendingApproval!.requestId;
  restorePrompt(chat);
  await chat.conv.approve(id, decision, scope, reason, { via: 'chat' }).catch(fail);
}
