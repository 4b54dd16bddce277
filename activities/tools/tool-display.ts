/**
 * What a tool shows the human beside its result (the `tool.completed` event, docs/cli.md): a command's exit code
 * and the tail of its output, an edit's unified diff. It rides on the event side channel only, never
 * into the transcript or Temporal history, and every field has a size bound so an event row stays
 * small whatever the tool printed.
 */
import { createTwoFilesPatch } from 'diff';

export interface ToolDisplay {
  /** A command's exit code (null when a signal or the timeout killed it). */
  exitCode?: number | null;
  /** How a command ended when it did not exit on its own: `timeout` or the signal's name. */
  killedBy?: string;
  /** The last lines of a command's output. */
  outputTail?: string;
  /** A unified diff of an edit (write_file, patch). */
  diff?: string;
}

export const MAX_TAIL_LINES = 4;
export const MAX_TAIL_CHARS = 400;
export const MAX_DIFF_LINES = 80;
export const MAX_DIFF_CHARS = 6000;
/** Files larger than this get no diff (computing one would cost more than it shows). */
export const MAX_DIFF_INPUT_BYTES = 512 * 1024;

/** The last non-empty lines of `output`, at most MAX_TAIL_LINES lines and MAX_TAIL_CHARS characters. */
export function outputTail(output: string): string {
  const lines = output.replace(/\s+$/, '').split('\n').slice(-MAX_TAIL_LINES);
  let text = lines.map((l) => (l.length > 160 ? `${l.slice(0, 159)}…` : l)).join('\n');
  if (text.length > MAX_TAIL_CHARS) text = `…${text.slice(text.length - MAX_TAIL_CHARS + 1)}`;
  return text;
}

/**
 * A bounded unified diff of `before` → `after` for `path` (`before` undefined: a new file). Cut at
 * MAX_DIFF_LINES lines / MAX_DIFF_CHARS characters with a note saying how much was left out.
 */
export function editDiff(path: string, before: string | undefined, after: string): string | undefined {
  if ((before?.length ?? 0) > MAX_DIFF_INPUT_BYTES || after.length > MAX_DIFF_INPUT_BYTES) return undefined;
  if (before === after) return undefined;
  const patch = createTwoFilesPatch(
    before === undefined ? '/dev/null' : `a/${path}`,
    `b/${path}`,
    before ?? '',
    after,
    undefined,
    undefined,
    { context: 2 },
  );
  // The first line is `Index:`-free in createTwoFilesPatch but starts with a `===` separator.
  const lines = patch.split('\n').filter((l) => !/^={10,}$/.test(l) && l !== '\\ No newline at end of file');
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  const kept: string[] = [];
  let chars = 0;
  for (const l of lines) {
    const line = l.length > 300 ? `${l.slice(0, 299)}…` : l;
    if (kept.length >= MAX_DIFF_LINES || chars + line.length + 1 > MAX_DIFF_CHARS) {
      kept.push(`… ${lines.length - kept.length} more diff lines`);
      break;
    }
    kept.push(line);
    chars += line.length + 1;
  }
  return kept.join('\n');
}
