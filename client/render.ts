/**
 * Rendering a conversation's events in a terminal: streamed text on stdout, everything else
 * (spinner, tool progress, status) on stderr so piped output stays the reply itself.
 */
import pc from 'picocolors';
import { visibleCommand, visibleControls } from '../common/command-display.js';
import yoctoSpinner from 'yocto-spinner';
import type { TurnResult } from '../common/contract.js';
import type { StoredEvent } from './events.js';

/** Event payload fields are JSON: show strings and numbers, nothing else. */
const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

export interface RenderOptions {
  /** Show reasoning deltas (dimmed). */
  reasoning: boolean;
  /** Draw a spinner while waiting for the first token (TTY only). */
  spinner: boolean;
  /** Told when the agent waits for an approval or an answer (the REPL then reads the reply). */
  onApproval?: (request: { requestId: string; command: string }) => void;
  onClarify?: (request: { requestId: string; choices: string[] }) => void;
  /** Show each turn's user message (`herald watch`: the REPL's user typed it). */
  userMessages?: boolean;
  /** Write status and tool lines to stdout too, so a watched log reads in order when piped. */
  oneStream?: boolean;
}

export class EventRenderer {
  private spinner: ReturnType<typeof yoctoSpinner> | undefined;
  private atLineStart = true;
  private inReasoning = false;

  constructor(private readonly options: RenderOptions) {}

  render(e: StoredEvent): void {
    const p = e.payload;
    switch (e.kind) {
      case 'turn.started':
        if (this.options.userMessages) this.line(pc.bold(`› ${visibleControls(str(p.text))}`));
        break;
      case 'thinking':
        if (p.state === 'started')
          this.startSpinner(p.attempt && Number(p.attempt) > 1 ? `retrying (attempt ${str(p.attempt)})…` : 'thinking…');
        else this.stopSpinner();
        break;
      case 'text.delta':
        this.stopSpinner();
        this.endReasoning();
        this.write(visibleControls(str(p.text)));
        break;
      case 'reasoning.delta':
        if (!this.options.reasoning) break;
        this.stopSpinner();
        this.inReasoning = true;
        this.write(pc.dim(visibleControls(str(p.text))));
        break;
      case 'tool.generating':
        this.startSpinner(`preparing ${str(p.name)}…`);
        break;
      case 'tool.started':
        this.stopSpinner();
        this.line(pc.cyan(`⚙ ${str(p.summary ?? p.name)}${p.reExecuted ? ' (re-run after a worker restart)' : ''}`));
        this.startSpinner(`running ${str(p.name)}…`);
        break;
      case 'tool.completed':
        this.stopSpinner();
        if (p.cancelled) this.line(pc.yellow(`  ✗ ${str(p.name)} cancelled`));
        else
          this.line(
            `  ${p.isError ? pc.red('✗') : pc.green('✓')} ${pc.dim(`${str(p.name)} ${((Number(p.durationMs) || 0) / 1000).toFixed(1)}s`)}`,
          );
        break;
      case 'stream.reset':
        this.stopSpinner();
        this.line(pc.yellow('[the model call is being retried; the text above may repeat]'));
        break;
      case 'status':
        this.stopSpinner();
        this.line(pc.dim(`· ${str(p.message ?? p.kind)}`));
        break;
      case 'approval.requested': {
        this.stopSpinner();
        // The whole command, with escapes, invisible characters and long blank runs made visible:
        // what the human approves is exactly what runs.
        const command = visibleCommand(str(p.command));
        const rules = Array.isArray(p.rules) ? p.rules.map(str).join(', ') : '';
        this.line(pc.yellow(`⚠ approval needed (${visibleCommand(str(p.reason), 500)}):`));
        for (const l of command.split('\n')) this.line(`    ${l}`);
        this.line(
          pc.yellow(
            `  [o]nce · [s]ession · [a]lways · [d]eny · [sr]/[ar] session/always for every ${rules || 'such'} command   (no answer in ${str(p.timeoutSeconds)} s = deny; request ${str(p.requestId)})`,
          ),
        );
        this.options.onApproval?.({ requestId: str(p.requestId), command: str(p.command) });
        break;
      }
      case 'clarify.requested': {
        this.stopSpinner();
        const choices = Array.isArray(p.choices) ? p.choices.map(str) : [];
        this.line(pc.cyan(`? ${str(p.question)}`));
        choices.forEach((c, i) => this.line(pc.cyan(`  ${i + 1}) ${c}`)));
        this.options.onClarify?.({ requestId: str(p.requestId), choices });
        break;
      }
      case 'turn.ended':
        this.stopSpinner();
        this.endReasoning();
        this.finishTurn(p.result as TurnResult | undefined);
        break;
      default:
        break;
    }
  }

  stopSpinner(): void {
    this.spinner?.stop();
    this.spinner = undefined;
  }

  private finishTurn(r: TurnResult | undefined): void {
    if (!this.atLineStart) this.write('\n');
    if (!r) return;
    if (r.interrupted) this.line(pc.yellow(`(interrupted: ${r.turn_exit_reason})`));
    if (r.failed && r.error) this.line(pc.red(`error: ${r.error}`));
    if (r.turn_exit_reason === 'budget_exhausted') this.line(pc.yellow('(iteration budget exhausted)'));
    const u = r.usage.turn;
    this.line(
      pc.dim(
        `[${r.api_calls} call${r.api_calls === 1 ? '' : 's'}, ${u.total_tokens} tokens${u.cost_usd ? `, $${u.cost_usd.toFixed(4)}` : ''}]`,
      ),
    );
  }

  private endReasoning(): void {
    if (this.inReasoning) {
      this.inReasoning = false;
      if (!this.atLineStart) this.write('\n');
    }
  }

  private startSpinner(text: string): void {
    if (!this.options.spinner) return;
    if (this.spinner) {
      this.spinner.text = text;
      return;
    }
    if (!this.atLineStart) this.write('\n');
    this.spinner = yoctoSpinner({ text, stream: process.stderr }).start();
  }

  private write(text: string): void {
    if (!text) return;
    process.stdout.write(text);
    this.atLineStart = text.endsWith('\n');
  }

  private line(text: string): void {
    if (!this.atLineStart) process.stdout.write('\n');
    (this.options.oneStream ? process.stdout : process.stderr).write(`${text}\n`);
    this.atLineStart = true;
  }
}
