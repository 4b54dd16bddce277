/**
 * `herald chat`: an interactive REPL on one conversation. Replies stream in from the event side
 * channel (markdown rendered block by block); typing while the agent works follows the busy
 * policy; Ctrl-C interrupts a running turn, and twice at an idle prompt exits. Every exit prints
 * the command that resumes the session.
 */
import { createInterface } from 'node:readline';
import type { Interface } from 'node:readline';
import pc from 'picocolors';
import type { TurnResult } from '../common/contract.js';
import { Redactor } from '../common/redaction.js';
import { lastEventSeq } from '../activities/store/events.js';
import type { Db } from '../activities/store/db.js';
import { createDb } from '../activities/store/db.js';
import { loadConfig } from '../runtime/config.js';
import { workerSecrets } from '../runtime/secrets.js';
import type { ApprovalAnswer } from './approval-input.js';
import { parseApprovalAnswer } from './approval-input.js';
import { slashCompleter } from './chat-completion.js';
import { HELP_LINES, slashCommand } from './chat-commands.js';
import type { ChatCommands } from './chat-commands.js';
import { decideResume, resumeCommand } from './chat-session.js';
import { chatStatus } from './chat-status.js';
import type { Conversation, HeraldClient, StartOptions } from './client.js';
import { newSessionId } from './client.js';
import type { EventWatch } from './events.js';
import { InputHistory } from './history.js';
import { MultilineInput } from './multiline.js';
import { EventRenderer, turnNotes } from './render.js';
import { renderExchanges } from './transcript-view.js';
import { footerText, turnLedger } from './turn-footer.js';

export interface ChatOptions {
  sessionId?: string | undefined;
  /** Resume an ended session anyway (a new run under its id). */
  reopen?: boolean;
  start: StartOptions;
  showReasoning: boolean;
}

/** Two Ctrl-C at an idle prompt within this long exit. */
export const EXIT_WINDOW_MS = 2000;
/** How long a finished send waits for its turn's end event before showing the prompt anyway. */
const TURN_END_WAIT_MS = 3000;

const PROMPT = pc.bold('› ');
const MORE = pc.dim('… ');

export async function runChat(client: HeraldClient, options: ChatOptions): Promise<void> {
  const interactive = Boolean(process.stdin.isTTY);
  const tty = Boolean(process.stdout.isTTY);
  const config = loadConfig();
  const url = client.settings.databaseUrl;
  const db: Db | undefined = url ? createDb(url, 2) : undefined;
  const err = (text: string) => process.stderr.write(`${text}\n`);
  const fail = (e: unknown) => err(pc.red(`error: ${(e as Error).message}`));

  let conv: Conversation = client.conversation(options.sessionId ?? newSessionId());
  /** Whether the session exists (something was sent, or it was resumed): only then is it resumable. */
  let started = false;
  let reopening = false;

  /** `--resume`/`/resume`: check the session may go on, and show where it stands. */
  const resume = async (key: string, reopen: boolean): Promise<boolean> => {
    if (!db) {
      conv = client.conversation(key);
      started = true;
      return true;
    }
    const d = await decideResume(client, db, key, { reopen, command: resumeCommand });
    if (!d.ok) {
      err(pc.red(d.message));
      return false;
    }
    conv = client.conversation(d.sessionId);
    started = true;
    reopening = d.reopened;
    const shown = renderExchanges(d.messages, { markdown: tty, width: process.stdout.columns ?? 100 });
    const title = d.title ? ` “${d.title}”` : '';
    if (shown.length) {
      err(pc.dim(`── ${d.reopened ? 'reopening' : 'resuming'} ${d.sessionId}${title}: the last exchanges ──`));
      for (const l of shown) err(l);
      err(pc.dim('──'));
    } else err(pc.dim(`${d.reopened ? 'reopening' : 'resuming'} ${d.sessionId}${title} (no messages yet)`));
    if (d.reopened)
      err(pc.yellow('this session had ended: your next message starts it again (its earlier messages are kept)'));
    return true;
  };

  if (options.sessionId && !(await resume(options.sessionId, Boolean(options.reopen)))) {
    await db?.end();
    process.exitCode = 1;
    return;
  }

  // While the agent waits for an approval or an answer, the next line typed is the reply.
  let pendingApproval: { requestId: string } | undefined;
  let pendingClarify: { requestId: string; choices: string[] } | undefined;
  // Created after the event watch is attached (piped lines must not arrive before their handler);
  // the callbacks below only run once it exists.
  // eslint-disable-next-line prefer-const
  let rl: Interface;
  /** Our sends not yet answered, and turns running (from their events). */
  let inflight = 0;
  const active = new Set<string>();
  const busy = () => inflight > 0 || active.size > 0;
  /** Message ids whose turn end has been rendered, and who waits for one. */
  const ended = new Set<string>();
  const endWaiters = new Map<string, () => void>();
  let ui: Promise<void> = Promise.resolve();
  let busyPolicy: string = options.start.busyPolicy ?? 'interrupt';
  let closing: Promise<void> | undefined;
  let onIdle: () => void = () => {};
  let stopListening = () => {};
  /** A turn ended since the last status line. */
  let statusDue = false;

  const restorePrompt = () => {
    pendingApproval = undefined;
    pendingClarify = undefined;
    rl.setPrompt(PROMPT);
  };

  const printStatus = async () => {
    const s = await chatStatus(conv, db, config).catch(() => undefined);
    if (!s) return;
    busyPolicy = s.busyPolicy;
    err(s.line);
  };

  const renderer = new EventRenderer({
    reasoning: options.showReasoning,
    spinner: Boolean(process.stderr.isTTY),
    markdown: tty ? { width: () => process.stdout.columns ?? 100 } : undefined,
    onApproval: (r) => {
      pendingApproval = r;
      renderer.stopSpinner();
      rl.setPrompt(pc.yellow('approve › '));
      rl.prompt();
    },
    onClarify: (r) => {
      pendingClarify = r;
      renderer.stopSpinner();
      rl.setPrompt(pc.cyan('answer › '));
      rl.prompt();
    },
    onTurnEnded: (turnId, result, muted) => {
      active.delete(turnId);
      restorePrompt();
      ui = ui.then(async () => {
        const stopped = muted || Boolean(result?.interrupted);
        // "stopping the turn…" already said it for a turn the user stopped.
        if (result)
          for (const l of turnNotes(result)) if (!muted || !result.interrupted || !l.includes('interrupted')) err(l);
        let ledger = db && turnId ? await turnLedger(db, conv.sessionId, turnId).catch(() => undefined) : undefined;
        // A cancelled call's ledger row can land just after the turn's end.
        if (db && stopped && ledger && ledger.calls === 0) {
          await new Promise((r) => setTimeout(r, 300));
          ledger = await turnLedger(db, conv.sessionId, turnId).catch(() => ledger);
        }
        err(footerText(result, ledger, stopped));
        statusDue = true;
        if (result?.message_id) {
          ended.add(result.message_id);
          endWaiters.get(result.message_id)?.();
        }
        onIdle();
      });
    },
  });

  let watch: EventWatch | undefined;
  const attach = async () => {
    await watch?.stop();
    watch = undefined;
    if (!db) return;
    const from = await lastEventSeq(db, conv.sessionId);
    watch = await conv.watch((e) => {
      if (e.kind === 'turn.started' && e.turn_id) active.add(e.turn_id);
      renderer.render(e);
    }, from);
  };
  await attach();
  err(
    pc.dim(
      `session ${conv.sessionId}${client.settings.uiUrl ? ` · Web UI ${client.settings.uiUrl}` : ''} · /help for commands · Ctrl-C interrupts, twice to exit`,
    ),
  );

  const history = new InputHistory(config.home, new Redactor(workerSecrets(process.env, config.file)));
  rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: PROMPT,
    terminal: interactive,
    history: interactive ? history.load().reverse() : [],
    historySize: 1000,
    removeHistoryDuplicates: true,
    completer: slashCompleter([...HELP_LINES.map(([c]) => c.split(' ')[0]!).filter((c) => c.startsWith('/')), '/exit']),
  });
  /** The prompt, once idle; after a turn, with the status line above it. */
  const prompt = () => {
    if (busy() || closing !== undefined) return;
    if (!statusDue) return rl.prompt();
    statusDue = false;
    ui = ui.then(async () => {
      await printStatus();
      if (!busy() && closing === undefined) rl.prompt();
    });
  };
  onIdle = prompt;

  const decide = async ({ decision, scope, reason }: ApprovalAnswer) => {
    const id = pendingApproval!.requestId;
    restorePrompt();
    await conv.approve(id, decision, scope, reason, { via: 'chat' }).catch(fail);
  };

  /** Wait until the turn of message `id` has been rendered to its end (or a short while). */
  const turnRendered = (id: string) =>
    new Promise<void>((resolve) => {
      if (ended.has(id) || !watch) return resolve();
      const timer = setTimeout(resolve, TURN_END_WAIT_MS);
      endWaiters.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
    }).finally(() => {
      endWaiters.delete(id);
      ended.delete(id);
    });

  const send = (text: string) => {
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
    inflight += 1;
    started = true;
    reopening = false;
    renderer.beginTurn();
    renderer.startSpinner('thinking');
    conv
      .send(text, { start: { source: 'cli', ...options.start }, id })
      .then(async (r: TurnResult) => {
        if (!watch) {
          renderer.stopSpinner();
          if (r.final_response) process.stdout.write(`${r.final_response}\n`);
          if (r.failed) err(pc.red(`error: ${r.error ?? 'the turn failed'}`));
          if (r.interrupted) err(pc.yellow('(interrupted)'));
          return;
        }
        await turnRendered(id);
        await ui;
      })
      .catch((e: unknown) => {
        renderer.stopSpinner();
        fail(e);
      })
      .finally(() => {
        inflight -= 1;
        if (closing === undefined) onIdle();
      });
  };

  /** Interrupt the running turn: nothing more of it is shown but its end. */
  const stopTurn = () => {
    renderer.mute();
    restorePrompt();
    err(pc.yellow('⏹ stopping the turn…'));
    // The turn that started last is the running one: a late stop notice cannot reach a newer turn.
    void conv.stop('user', { turnId: [...active].at(-1) }).catch(fail);
  };

  const commands: ChatCommands = {
    get conv() {
      return conv;
    },
    get started() {
      return started;
    },
    db,
    tty,
    start: options.start,
    err,
    busy,
    stopTurn,
    pendingApproval: () => pendingApproval !== undefined,
    decide,
    newSession: async () => {
      conv = client.conversation(newSessionId());
      started = false;
      await attach();
      err(pc.dim(`new session ${conv.sessionId}`));
    },
    resume: async (key, reopen) => {
      if (await resume(key, reopen)) await attach();
    },
    printStatus,
  };
  const command = (line: string) => slashCommand(line, commands);

  await new Promise<void>((resolve) => {
    const finish = () => {
      // `rl.close()` emits 'close' at once, whose handler calls finish again: `closing` must be set
      // before the body runs (assigned after it, a second body printed the resume line twice).
      closing ??= Promise.resolve().then(async () => {
        renderer.stopSpinner();
        rl.close();
        await ui.catch(() => {});
        await watch?.stop();
        await db?.end().catch(() => {});
        if (started)
          err(
            `${pc.dim(reopening ? 'session not reopened; reopen it with:' : 'resume this session with:')} ${resumeCommand(conv.sessionId, reopening)}`,
          );
        else err(pc.dim('nothing was sent; no session to resume'));
        resolve();
      });
    };
    // Piped input runs one line at a time, each after the previous turn ends; typed input while a
    // turn runs follows the conversation's busy policy.
    const backlog: string[] = [];
    const multiline = new MultilineInput();
    let lastInterrupt = 0;

    const handle = (text: string) => {
      const line = text.trim();
      if (!line) return prompt();
      if (pendingApproval && !line.startsWith('/')) {
        const decision = parseApprovalAnswer(line);
        if (!decision) {
          err(
            'answer o (once), s (session), a (always), d (deny; `d <reason>` tells the model why), or sr/ar (session/always for every command of the rule)',
          );
          return rl.prompt();
        }
        void decide(decision);
        return;
      }
      if (pendingClarify && !line.startsWith('/')) {
        const n = Number(line);
        const answer =
          Number.isInteger(n) && n >= 1 && n <= pendingClarify.choices.length ? pendingClarify.choices[n - 1]! : line;
        const id = pendingClarify.requestId;
        restorePrompt();
        void conv.answer(answer, id).catch(fail);
        return;
      }
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
      if (busy()) {
        if (interactive) echoWhileBusy(text, busyPolicy);
        void conv.post(text).catch(fail);
        return;
      }
      send(text);
    };
    const next = () => {
      if (busy()) return;
      const line = backlog.shift();
      if (line === undefined) return rl.terminal || !inputClosed ? prompt() : finish();
      handle(line);
    };
    onIdle = next;
    let inputClosed = false;

    rl.on('line', (raw) => {
      const step = multiline.feed(raw);
      if (step.kind === 'more') {
        rl.setPrompt(MORE);
        if (!busy() || !interactive) rl.prompt();
        return;
      }
      rl.setPrompt(pendingApproval ? pc.yellow('approve › ') : pendingClarify ? pc.cyan('answer › ') : PROMPT);
      renderer.typing = false;
      // Single lines only: readline recalls lines, and a multi-line entry would come back as one.
      if (interactive && !pendingApproval && !pendingClarify && !step.text.includes('\n')) history.add(step.text);
      if (interactive) return handle(step.text);
      backlog.push(step.text);
      next();
    });
    const interrupt = () => {
      if (multiline.pending) {
        multiline.cancel();
        rl.setPrompt(PROMPT);
      }
      const now = Date.now();
      if (busy()) {
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
        stopTurn();
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
    rl.on('SIGINT', interrupt);
    if (!interactive) process.on('SIGINT', interrupt);
    stopListening = () => process.off('SIGINT', interrupt);
    // Typing while the agent works: the spinner would redraw over the typed characters.
    process.stdin.on('keypress', () => {
      if (busy() && !pendingApproval && !pendingClarify && rl.line) renderer.typing = true;
    });
    rl.on('close', () => {
      // Ctrl-D, or the end of piped input: leave once the running turn and any piped lines are done.
      inputClosed = true;
      if (interactive) {
        if (closing === undefined) process.stdout.write('\n');
        return finish();
      }
      next();
    });
    prompt();
  });
  stopListening();
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
