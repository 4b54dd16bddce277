/** Small helpers over the normalised text shared by the rule files and guards. */

/** How far a "line" reaches either side of a match: commands and sentences are shorter than this. */
export const REACH = 600;

/** Start of the line holding `index`, looking back at most `reach` characters (never the whole text). */
export function lineStartNear(text: string, index: number, reach = REACH): number {
  const floor = Math.max(0, index - reach);
  for (let i = index - 1; i >= floor; i -= 1) if (text.charCodeAt(i) === 10) return i + 1;
  return floor;
}

/** End of the line holding `index`, looking ahead at most `reach` characters. */
export function lineEndNear(text: string, index: number, reach = REACH): number {
  const ceil = Math.min(text.length, index + reach);
  for (let i = index; i < ceil; i += 1) if (text.charCodeAt(i) === 10) return i;
  return ceil;
}

/** Start and end of `lineAt(text, index)` in `text`. */
export function lineBounds(text: string, index: number): [number, number] {
  return [lineStartNear(text, index), lineEndNear(text, index)];
}

/**
 * The line of `text` that holds `index`, clipped to REACH characters either side (a 100 KB
 * minified line must not be re-read for every match on it).
 */
export function lineAt(text: string, index: number): string {
  const [start, end] = lineBounds(text, index);
  return text.slice(start, end);
}
