/**
 * Showing a command to the human who approves it (docs/command-safety.md): all of it, with nothing that can
 * hide part of it. Control characters and escape sequences (which could redraw the terminal),
 * bidirectional overrides and invisible characters are shown as visible markers; a long run of
 * spaces, which could push a dangerous tail out of view, is shown as its length. Pure.
 */

/** Invisible or direction-changing code points outside the ranges tested below. */
const INVISIBLE = new Set([0xfeff, 0x00ad, 0x034f, 0x061c, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180e, 0x3164, 0xffa0]);

const NAMED: Record<string, string> = {
  '\r': '␍',
  '\x1b': '␛',
  '\x07': '␇',
  '\b': '␈',
  '\f': '␌',
  '\v': '␋',
  '\0': '␀',
};

/**
 * Text with every control and invisible character shown as a marker (newlines and tabs kept), so
 * printing it cannot move the cursor, clear the screen or reorder what is shown. For streamed
 * model text in a terminal, where indentation must stay as written.
 */
export function visibleControls(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\n' || ch === '\t') out += ch;
    else if (NAMED[ch]) out += NAMED[ch];
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) out += `⟨\\x${cp.toString(16).padStart(2, '0')}⟩`;
    else if (
      INVISIBLE.has(cp) ||
      (cp >= 0x200b && cp <= 0x200f) ||
      (cp >= 0x202a && cp <= 0x202e) ||
      (cp >= 0x2060 && cp <= 0x2069) ||
      (cp >= 0xe0000 && cp <= 0xe007f)
    )
      out += `⟨U+${cp.toString(16).toUpperCase().padStart(4, '0')}⟩`;
    else out += ch;
  }
  return out;
}

/** The command as a human should see it; over `max` characters, its head and tail with the count between. */
export function visibleCommand(text: string, max = Number.POSITIVE_INFINITY): string {
  let out = visibleControls(text);
  // Runs of blanks long enough to scroll text out of sight are counted, not drawn.
  out = out.replace(/[ \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]{9,}/gu, (run) => ` ⟨${run.length} spaces⟩ `);
  out = out.replace(/\t{4,}/g, (run) => ` ⟨${run.length} tabs⟩ `);
  out = out.replace(/\n{4,}/g, (run) => `\n⟨${run.length - 1} blank lines⟩\n`);
  if (out.length <= max) return out;
  const tail = Math.floor(max / 4);
  const head = max - tail;
  return `${out.slice(0, head)} ⟨… ${out.length - head - tail} more characters …⟩ ${out.slice(-tail)}`;
}
