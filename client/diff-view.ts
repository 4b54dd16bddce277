/** A unified diff coloured for the terminal: additions green, removals red, hunk headers cyan. */
import pc from 'picocolors';

export const DIFF_VIEW_LINES = 40;

/** `diff` coloured and indented; over `maxLines` lines the rest is counted, not shown. */
export function renderDiff(diff: string, maxLines = DIFF_VIEW_LINES, indent = '    '): string {
  const lines = diff.split('\n').filter((l) => !l.startsWith('--- ') && !l.startsWith('+++ '));
  const shown = lines.slice(0, maxLines).map((l) => indent + colourLine(l));
  if (lines.length > maxLines) shown.push(indent + pc.dim(`… ${lines.length - maxLines} more lines`));
  return shown.join('\n');
}

function colourLine(l: string): string {
  if (l.startsWith('@@')) return pc.cyan(l);
  if (l.startsWith('+')) return pc.green(l);
  if (l.startsWith('-')) return pc.red(l);
  if (l.startsWith('…')) return pc.dim(l);
  return pc.dim(l);
}
