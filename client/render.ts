/**
 * Rendering a conversation's events in a terminal: streamed text on stdout, everything else
 * (spinner, tool progress, status) on stderr so piped output stays the reply itself.
 */
import pc from 'picocolors';
import { visibleCommand, visibleControls } from '../shared/command-display.js';
import yoctoSpinner from 'yocto-spinner';
import type { TurnResult } from '../common/contract.js';
import type { StoredEvent } from './events.js';
import { MarkdownStream, renderMarkdown } from './markdown.js';
import { toolCompletedLines } from './tool-line.js';
import { footerText } from './turn-footer.js';

/** Event payload fields are JSON: show strings and numbers, nothing else. */
const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

export interface RenderOptions {
  /** Show reasoning deltas (dimmed). */
  reasoning: boolean;
  /** Draw a spinner while waiting for the first token (TTY only). */
  spinner: boolean;
  /** Render replies as markdown, each block once complete (TTY only); `width` in columns. */
  markdown?: { width: () => number } | undefined;
  /** Told when the agent waits for an approval or an answer (the REPL then reads the reply). */
  onApproval?: (request: { requestId: string; command: string }) => void;
  onClarify?: (request: { requestId: string; choices: string[] }) => void;
  /** Show each turn's user message (`herald watch`: the REPL's user typed it). */
  userMessages?: boolean;
  /** Write status and tool lines to stdout too, so a watched log reads in order when piped. */
  oneStream?: boolean;
  /**
   * Told when a turn ends, instead of the renderer printing its own `[N calls, T tokens]` footer
   * (the REPL prints a fuller one). `muted`: the user stopped this turn.
   */
  onTurnEnded?: (turnId: string, result: TurnResult | undefined, muted: boolean) => void;
}

export class EventRenderer {
  private spinner: ReturnType<typeof yoctoSpinner> | undefined;
  private spinnerText = '';
  private spinnerSince = 0;
  /** When the running turn began (the spinner counts from it, not from its latest step). */
  private turnSince: number | undefined;
  /** A turn's `turn.started` came and its `turn.ended` not yet. */
  private turnOpen = false;
  /** The user stopped a turn that had not started: mute the next one to start. */
  private muteNext = false;
  private ticker: NodeJS.Timeout | undefined;
  private atLineStart = true;
  private inReasoning = false;
  private readonly md = new MarkdownStream();
  /** Turns the user stopped: nothing more of theirs is shown but their end. */
  private readonly muted = new Set<string>();
  private current: string | undefined;
  /** Markdown blocks written of the reply being streamed. */
  private blocks = 0;
  private holding = false;

  constructor(private readonly options: RenderOptions) {}

  /** The user is typing a line: no spinner until it is sent (it would draw over the typed text). */
  set typing(on: boolean) {
    this.holding = on;
    if (on) this.stopSpinner();
  }

  /** A turn begins now (the REPL sent a message): the spinner's seconds count from here. */
  beginTurn(at = Date.now()): void {
    this.turnSince = at;
    this.muteNext = false;
  }

  /** What the spinner shows now (undefined when it is not shown). */
  get spinnerStatus(): string | undefined {
    return this.spinner ? this.spinnerLabel() : undefined;
  }

  /** The turn whose events arrived last (undefined before any). */
  get currentTurn(): string | undefined {
    return this.current;
  }

  /**
   * Show nothing more of `turnId` (default: the current turn) but its end: after `/stop` a late
   * text fragment or tool line of the stopped turn would read as if it went on.
   */
  mute(turnId?: string): void {
    // Stopped before its turn started (no event of it yet): mute the turn that starts next, or
    // its first words would stream in after the stop notice and stay there, cut off.
    if (turnId === undefined && !this.turnOpen) this.muteNext = true;
    const target = turnId ?? (this.turnOpen ? this.current : undefined);
    if (target) this.muted.add(target);
    // What is held back of the stopped reply is dropped, not shown.
    this.md.reset();
    this.blocks = 0;
    this.stopSpinner();
  }

  render(e: StoredEvent): void {
    const p = e.payload;
    if (e.turn_id) this.current = e.turn_id;
    if (e.kind === 'turn.started') {
      this.turnOpen = true;
      if (this.muteNext && e.turn_id) this.muted.add(e.turn_id);
      this.muteNext = false;
    }
    if (e.kind === 'turn.ended') this.turnOpen = false;
    if (e.turn_id && this.muted.has(e.turn_id) && e.kind !== 'turn.ended') return;
    switch (e.kind) {
      case 'turn.started':
        // `herald watch` joins turns already running: count from when the turn began.
        this.turnSince ??= startOf(e);
        if (this.options.userMessages) this.line(pc.bold(`› ${visibleControls(str(p.text))}`));
        break;
      case 'thinking':
        if (p.state === 'started')
          this.startSpinner(p.attempt && Number(p.attempt) > 1 ? `retrying (attempt ${str(p.attempt)})` : 'thinking');
        else {
          this.flushMarkdown();
          this.stopSpinner();
        }
        break;
      case 'text.delta':
        this.endReasoning();
        this.text(visibleControls(str(p.text)));
        break;
      case 'reasoning.delta':
        if (!this.options.reasoning) break;
        this.stopSpinner();
        this.flushMarkdown();
        this.inReasoning = true;
        this.write(pc.dim(visibleControls(str(p.text))));
        break;
      case 'tool.generating':
        this.flushMarkdown();
        this.startSpinner(`preparing ${str(p.name)}`);
        break;
      case 'tool.started':
        this.flushMarkdown();
        this.stopSpinner();
        this.line(pc.cyan(`⚙ ${str(p.summary ?? p.name)}${p.reExecuted ? ' (re-run after a worker restart)' : ''}`));
        this.startSpinner(`running ${str(p.name)}`);
        break;
      case 'tool.completed':
        // A call that did not run had no `tool.started` to end the reply's text first.
        if (p.notRun) this.flushMarkdown();
        this.stopSpinner();
        for (const l of toolCompletedLines(p)) this.line(l);
        break;
      case 'stream.reset':
        this.stopSpinner();
        this.md.reset();
        this.line(pc.yellow('[the model call is being retried; the text above may repeat]'));
        break;
      case 'status':
        this.flushMarkdown();
        this.stopSpinner();
        this.line(pc.dim(`· ${str(p.message ?? p.kind)}`));
        break;
      case 'approval.requested': {
        this.flushMarkdown();
        this.stopSpinner();
        // The whole command, with escapes, invisible characters and long blank runs made visible:
        // what the human approves is exactly what runs.
        const command = visibleCommand(str(p.command));
        const rules = Array.isArray(p.rules) ? p.rules.map(str).join(', ') : '';
        // A child agent's request (`delegation.askPerson`), answered here like our own.
        const by = p.child ? ` by child agent ${visibleCommand(str(p.child), 200)}` : '';
        this.line(pc.yellow(`⚠ approval needed${by} (${visibleCommand(str(p.reason), 500)}):`));
        for (const l of command.split('\n')) this.line(`    ${l}`);
        this.line(
          pc.yellow(
            `  [o]nce · [s]ession · [a]lways · [d]eny [reason] · [sr]/[ar] session/always for every ${rules || 'such'} command   (no answer in ${str(p.timeoutSeconds)} s = deny; request ${str(p.requestId)})`,
          ),
        );
        this.options.onApproval?.({ requestId: str(p.requestId), command: str(p.command) });
        break;
      }
      case 'clarify.requested': {
        this.flushMarkdown();
        this.stopSpinner();
        const choices = Array.isArray(p.choices) ? p.choices.map(str) : [];
        this.line(pc.cyan(`? ${str(p.question)}`));
        choices.forEach((c, i) => this.line(pc.cyan(`  ${i + 1}) ${c}`)));
        this.options.onClarify?.({ requestId: str(p.requestId), choices });
        break;
      }
      case 'turn.ended': {
        const muted = Boolean(e.turn_id && this.muted.has(e.turn_id));
        if (!muted) this.flushMarkdown();
        this.md.reset();
        this.stopSpinner();
        this.endReasoning();
        if (e.turn_id) this.muted.delete(e.turn_id);
        this.turnSince = undefined;
        const result = p.result as TurnResult | undefined;
        if (this.options.onTurnEnded) {
          if (!this.atLineStart) this.write('\n');
          this.options.onTurnEnded(e.turn_id ?? '', result, muted);
        } else this.finishTurn(result);
        break;
      }
      default:
        break;
    }
  }

  stopSpinner(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
    this.spinner?.stop();
    this.spinner = undefined;
  }

  /** Show a spinner (TTY only) with `text` and the seconds since the turn began (else since now). */
  startSpinner(text: string): void {
    if (!this.options.spinner || this.holding) return;
    this.spinnerText = text;
    if (this.spinner) {
      this.spinner.text = this.spinnerLabel();
      return;
    }
    if (!this.atLineStart) this.write('\n');
    this.spinnerSince = this.turnSince ?? Date.now();
    this.spinner = yoctoSpinner({ text: this.spinnerLabel(), stream: process.stderr }).start();
    this.ticker = setInterval(() => {
      if (this.spinner) this.spinner.text = this.spinnerLabel();
    }, 1000);
    this.ticker.unref();
  }

  private spinnerLabel(): string {
    const secs = Math.floor((Date.now() - this.spinnerSince) / 1000);
    return `${this.spinnerText}… ${pc.dim(`${secs}s · Ctrl-C to interrupt`)}`;
  }

  private finishTurn(r: TurnResult | undefined): void {
    if (!this.atLineStart) this.write('\n');
    if (!r) return;
    for (const l of turnNotes(r)) this.line(l);
    this.line(footerText(r, undefined, r.interrupted));
  }

  /** Reply text: raw when not rendering markdown, else each completed block rendered. */
  private text(piece: string): void {
    if (!this.options.markdown) {
      this.stopSpinner();
      return this.write(piece);
    }
    const done = this.md.push(piece);
    if (done) {
      this.stopSpinner();
      this.block(done);
    }
    // While a block is held back, say the model is writing.
    if (this.md.held) this.startSpinner('writing');
  }

  private flushMarkdown(): void {
    if (!this.options.markdown) return;
    const rest = this.md.end();
    if (!rest.trim()) return;
    this.stopSpinner();
    this.block(rest);
    this.blocks = 0;
  }

  /** One rendered markdown block, a blank line apart from the block before it. */
  private block(text: string): void {
    const rendered = renderMarkdown(text, { width: this.options.markdown?.width() ?? 80 });
    if (!rendered) return;
    this.write(`${this.blocks > 0 ? '\n' : ''}${rendered}`);
    this.blocks += 1;
  }

  private endReasoning(): void {
    if (this.inReasoning) {
      this.inReasoning = false;
      if (!this.atLineStart) this.write('\n');
    }
  }

  private write(text: string): void {
    if (!text) return;
    process.stdout.write(text);
    this.atLineStart = text.endsWith('\n');
  }

  /** End a partial line of reply text (before the REPL writes its own line). */
  endLine(): void {
    if (!this.atLineStart) this.write('\n');
  }

  /** A line on stderr (after ending any partial line of reply text). */
  line(text: string): void {
    if (!this.atLineStart) process.stdout.write('\n');
    (this.options.oneStream ? process.stdout : process.stderr).write(`${text}\n`);
    this.atLineStart = true;
  }
}

/** When an event was stored (not later than now: a clock ahead must not count negative seconds). */
function startOf(e: StoredEvent): number {
  const at = new Date(e.created_at).getTime();
  return Number.isFinite(at) ? Math.min(Date.now(), at) : Date.now();
}

/** What a turn's end says besides its numbers: interrupted, failed, out of budget. */
export function turnNotes(r: TurnResult): string[] {
  const out: string[] = [];
  if (r.interrupted) out.push(pc.yellow(`(interrupted: ${r.turn_exit_reason})`));
  if (r.failed && r.error) out.push(pc.red(`error: ${r.error}`));
  if (r.turn_exit_reason === 'budget_exhausted') out.push(pc.yellow('(iteration budget exhausted)'));
  if (r.turn_exit_reason === 'guardrail_halt') out.push(pc.yellow('(stopped: repeated tool calls, no progress)'));
  if (r.turn_exit_reason === 'approvals_denied') out.push(pc.yellow('(stopped: too many commands denied in a row)'));
  return out;
}
