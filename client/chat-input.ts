/**
 * The input side of `herald chat`: lines typed or piped, each one an answer to a pending approval
 * or clarify, a slash command, a message for a busy agent (its busy policy decides), or a new turn;
 * Ctrl-C interrupts a running turn and twice exits; Ctrl-D or the end of piped input leaves. Every
 * exit prints the command that resumes the session.
 */
import pc from 'picocolors';
import { parseApprovalAnswer } from './approval-input.js';
import { resumeCommand } from './chat-session.js';
import type { ChatState } from './chat-state.js';
import {
  MORE,
  PROMPT,
  ANSWER_PROMPT,
  APPROVE_PROMPT,
  busy,
  err,
  fail,
  restorePrompt,
  showPrompt,
} from './chat-state.js';
import { decide, sendTurn, stopTurn } from './chat-turns.js';
import type { InputHistory } from './history.js';
import { MultilineInput } from './multiline.js';

/** Two Ctrl-C at an idle prompt within this long exit. */
export const EXIT_WINDOW_MS = 2000;

/** Read lines until the user leaves; resolves once everything is closed and the resume line printed. */
export async function readInput(
  chat: ChatState,
  history: InputHistory,
  command: (line: string) => Promise<boolean>,
): Promise<void> {
  const { rl, renderer, interactive } = chat;
  let stopListening = () => {};
  await new Promise<void>((resolve) => {
    const finish = () => {
      // `rl.close()` emits 'close' at once, whose handler calls finish again: `closing` must be set
      // before the body runs (assigned after it, a second body printed the resume line twice).
      chat.closing ??= Promise.resolve().then(async () => {
        renderer.stopSpinner();
        rl.close();
        await chat.ui.catch(() => {});
        await chat.watch?.stop();
        await chat.db?.end().catch(() => {});
        if (chat.started)
          err(
            `${pc.dim(chat.reopening ? 'session not reopened; reopen it with:' : 'resume this session with:')} ${resumeCommand(chat.conv.sessionId, chat.reopening)}`,
          );
        else err(pc.dim('nothing was sent; no session to resume'));
        resolve();
      });
    };
    // Piped input runs one line at a time, each after the previous turn ends; typed input while a
    // turn runs follows the conversation's busy policy.
    const backlog: string[] = [];
    const multiline = new MultilineInput();

    const handle = (text: string) => {
      const line = text.trim();
      if (!line) return showPrompt(chat);
      if (answerPending(chat, line)) return;
      if (line.startsWith('/') && !text.includes('\n')) {
        void command(line).then(
          (keepGoing) => (keepGoing ? next() : finish()),
          (e: unknown) => {
            fail(e);
            next();
          },
        );
        return;
      }
      if (busy(chat)) {
        if (interactive) echoWhileBusy(text, chat.busyPolicy);
        void chat.conv.post(text).catch(fail);
        return;
      }
      sendTurn(chat, text);
    };
    const next = () => {
      if (busy(chat)) return;
      const line = backlog.shift();
      if (line === undefined) return rl.terminal || !inputClosed ? showPrompt(chat) : finish();
      handle(line);
    };
    chat.onIdle = next;
    let inputClosed = false;

    rl.on('line', (raw) => {
      const step = multiline.feed(raw);
      if (step.kind === 'more') {
        rl.setPrompt(MORE);
        if (!busy(chat) || !interactive) rl.prompt();
        return;
      }
      rl.setPrompt(chat.pendingApproval ? APPROVE_PROMPT : chat.pendingClarify ? ANSWER_PROMPT : PROMPT);
      renderer.typing = false;
      // Single lines only: readline recalls lines, and a multi-line entry would come back as one.
      if (interactive && !chat.pendingApproval && !chat.pendingClarify && !step.text.includes('\n'))
        history.add(step.text);
      if (interactive) return handle(step.text);
      backlog.push(step.text);
      next();
    });
    const interrupt = ctrlC(chat, multiline, finish);
    rl.on('SIGINT', interrupt);
    if (!interactive) process.on('SIGINT', interrupt);
    stopListening = () => process.off('SIGINT', interrupt);
    // Typing while the agent works: the spinner would redraw over the typed characters.
    process.stdin.on('keypress', () => {
      if (busy(chat) && !chat.pendingApproval && !chat.pendingClarify && rl.line) renderer.typing = true;
    });
    rl.on('close', () => {
      // Ctrl-D, or the end of piped input: leave once the running turn and any piped lines are done.
      inputClosed = true;
      if (interactive) {
        if (chat.closing === undefined) process.stdout.write('\n');
        return finish();
      }
      next();
    });
    showPrompt(chat);
  });
  stopListening();
}

/**
 * Ctrl-C: with a turn running, stop it (a second one soon after leaves even when the stop got no
 * answer); at an idle prompt, clear what was typed, and a second one soon after exits.
 */
function ctrlC(chat: ChatState, multiline: MultilineInput, finish: () => void): () => void {
  const { rl, renderer } = chat;
  let lastInterrupt = 0;
  return () => {
    if (multiline.pending) {
      multiline.cancel();
      rl.setPrompt(PROMPT);
    }
    const now = Date.now();
    if (busy(chat)) {
      // The spinner first: a newline under it would leave its frame drawn on the line above.
      renderer.stopSpinner();
      renderer.endLine();
      if (rl.line) {
        rl.write(null, { ctrl: true, name: 'e' });
        rl.write(null, { ctrl: true, name: 'u' });
      }
      renderer.typing = false;
      // A second Ctrl-C soon after the first leaves even when the stop got no answer (no worker
      // polls the queue, the server is gone): the turn goes on or stops without this terminal.
      if (now - lastInterrupt < EXIT_WINDOW_MS) return finish();
      lastInterrupt = now;
      stopTurn(chat);
      err(pc.dim('(press Ctrl-C again to leave)'));
      return;
    }
    if (now - lastInterrupt < EXIT_WINDOW_MS) {
      process.stdout.write('\n');
      return finish();
    }
    lastInterrupt = now;
    // Clear what was typed (end of line, then delete to its start).
    rl.write(null, { ctrl: true, name: 'e' });
    rl.write(null, { ctrl: true, name: 'u' });
    process.stdout.write('\n');
    err(pc.dim('(press Ctrl-C again to exit, or Ctrl-D)'));
    rl.setPrompt(PROMPT);
    rl.prompt();
  };
}

/** A line that answers the pending approval or clarify question (a slash command never does); false when none is pending. */
function answerPending(chat: ChatState, line: string): boolean {
  if (line.startsWith('/')) return false;
  if (chat.pendingApproval) {
    const decision = parseApprovalAnswer(line);
    if (!decision) {
      err(
        'answer o (once), s (session), a (always), d (deny; `d <reason>` tells the model why), or sr/ar (session/always for every command of the rule)',
      );
      chat.rl.prompt();
      return true;
    }
    void decide(chat, decision);
    return true;
  }
  if (chat.pendingClarify) {
    const n = Number(line);
    const answer =
      Number.isInteger(n) && n >= 1 && n <= chat.pendingClarify.choices.length
        ? chat.pendingClarify.choices[n - 1]!
        : line;
    const id = chat.pendingClarify.requestId;
    restorePrompt(chat);
    void chat.conv.answer(answer, id).catch(fail);
    return true;
  }
  return false;
}

/**
 * A line typed while the agent works was echoed by the terminal without a prompt: redraw it as
 * `› text`, with what the busy policy does with it.
 */
function echoWhileBusy(text: string, policy: string): void {
  const cols = process.stdout.columns ?? 80;
  const rows = text.split('\n').reduce((n, l) => n + Math.max(1, Math.ceil((l.length || 1) / cols)), 0);
  for (let i = 0; i < rows; i++) process.stdout.write('\x1b[1A\r\x1b[2K');
  const what =
    policy === 'queue'
      ? 'queued: runs after this turn'
      : policy === 'steer'
        ? 'steers the running turn'
        : 'interrupts the running turn and runs next';
  process.stderr.write(`${PROMPT}${text.replace(/\n/g, '\n  ')}  ${pc.dim(`(${what})`)}\n`);
}
