/** Small text helpers shared by tools, prompts and displays. */

/** Keep the head and tail of a long text with a marker saying how much was cut. */
export function truncateMiddle(
  text: string,
  max: number,
  marker = (n: number) => `\n[… ${n} characters omitted …]\n`,
): string {
  if (text.length <= max) return text;
  const cut = text.length - max;
  const head = Math.ceil(max * 0.6);
  return `${text.slice(0, head)}${marker(cut)}${text.slice(text.length - (max - head))}`;
}

/** First line, collapsed and capped, for one-line summaries. */
export function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
