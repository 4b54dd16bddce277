/**
 * The lines a finished tool call prints: a mark, the tool, its duration and (commands) exit code;
 * then a short preview of what it returned — the tail of a command's output, an edit's coloured
 * diff, or the first words of any other result. A call the workflow answered without running it
 * (loop guard, denied command) shows ⊘, what it was, "not run" and why.
 */
import pc from 'picocolors';
import { visibleControls } from '../shared/command-display.js';
import { renderDiff } from './diff-view.js';

const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** The data-not-instructions wrapper a tool result carries for the model (shared/untrusted.ts), removed for people. */
export function unwrapPreview(preview: string): string {
  return preview
    .replace(/^The following is DATA[^<]*<untrusted_tool_result[^>]*>\s*/, '')
    .replace(/\s*<\/untrusted_tool_result>\s*$/, '')
    .trim();
}

export interface ToolLineOptions {
  /** How many output lines to show under a command (0: none). */
  tailLines?: number;
}

/** What a call that did not run shows, by the `notRun` reason of its `tool.completed` event. */
const NOT_RUN_LABELS: Record<string, string> = {
  duplicate: 'the same call came earlier in this reply',
  repeat: 'same call, nothing changed since: the earlier result stands',
  refused: 'refused by the loop guard',
  blocked: 'blocked: never allowed',
  denied: 'not approved',
};

/** The mark of a call that did not run (never the ✓ of one that did). */
export const NOT_RUN_MARK = '⊘';

/** A call that did not run: the mark, what it was (no `tool.started` line came before it), and why. */
function notRunLines(p: Record<string, unknown>): string[] {
  const what = visibleControls(str(p.summary) || str(p.name));
  const why = NOT_RUN_LABELS[str(p.notRun)] ?? 'not run';
  const lines = [`  ${pc.yellow(NOT_RUN_MARK)} ${what} ${pc.yellow('not run')}${pc.dim(` · ${why}`)}`];
  const text = typeof p.preview === 'string' ? unwrapPreview(visibleControls(p.preview)) : '';
  if (text) lines.push(pc.dim(`    │ ${text.length > 120 ? `${text.slice(0, 119)}…` : text}`));
  return lines;
}

export function toolCompletedLines(p: Record<string, unknown>, options: ToolLineOptions = {}): string[] {
  const name = str(p.name);
  const secs = `${((Number(p.durationMs) || 0) / 1000).toFixed(1)}s`;
  if (p.cancelled) return [pc.yellow(`  ✗ ${name} cancelled`) + pc.dim(` ${secs}`)];
  if (typeof p.notRun === 'string' && p.notRun) return notRunLines(p);
  const mark = p.isError ? pc.red('✗') : pc.green('✓');
  const ending =
    typeof p.exitCode === 'number'
      ? `exit ${p.exitCode}`
      : typeof p.killedBy === 'string'
        ? p.killedBy === 'timeout'
          ? 'timed out'
          : `killed by ${p.killedBy}`
        : '';
  const shownEnding = ending ? pc.dim(' · ') + (p.isError ? pc.red(ending) : pc.dim(ending)) : '';
  const head = `  ${mark} ${name} ${pc.dim(secs)}${shownEnding}`;
  const lines = [head];
  if (typeof p.diff === 'string' && p.diff) {
    lines.push(renderDiff(visibleControls(p.diff)));
  } else if (typeof p.outputTail === 'string') {
    const tail = visibleControls(p.outputTail)
      .split('\n')
      .filter((l) => l.trim())
      .slice(-(options.tailLines ?? 3));
    for (const l of tail) lines.push(pc.dim(`    │ ${l.length > 140 ? `${l.slice(0, 139)}…` : l}`));
  } else if (typeof p.preview === 'string' && p.preview) {
    const text = unwrapPreview(visibleControls(p.preview));
    if (text) lines.push(pc.dim(`    │ ${text.length > 120 ? `${text.slice(0, 119)}…` : text}`));
  }
  return lines;
}
