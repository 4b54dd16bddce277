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

/** UTF-8 length of a string, without Buffer or TextEncoder (the workflow sandbox has neither for sure). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i += 1;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** UTF-8 bytes of a value as JSON (what a payload of it costs). */
export function jsonBytes(v: unknown): number {
  return utf8Bytes(JSON.stringify(v) ?? '');
}
