/**
 * A long `a && b && c` chain read as `a; b; c`, because tree-sitter-bash reads the first in time
 * that grows faster than its length. Its grammar leaves two readings of every `&&`/`||` list (and
 * of newline-separated statements) open, and tree-sitter compares the whole list built so far each
 * time it drops one: a 2,000-character `&&` chain of pipelines parses in about three times what the
 * same commands joined by `;` take. For the gate the operators mean the same: the walk takes every
 * statement of a list in order whichever operator joins them (shell-walk.ts), so it finds the
 * same commands either way.
 *
 * Only the text handed to the parser changes, each `&&`/`||` (and newline) between top-level
 * statements becoming `; `/`;` of the same length: offsets stay true, and the walk reads words
 * from the original text. The scan below only proposes; the parse decides. The rewrite is kept
 * only when the tree has no error and every `;` it put in is a separator between top-level
 * statements of the program — a point where bash too is between whole statements, so the
 * operator there joined two of them. Anything else (the `;` landed in a string, a comment, a
 * heredoc, `[[ … ]]`, a group) and the original text is parsed instead.
 */

/** The text with top-level `&&`, `||` and statement-ending newlines made `;`, and where; null when there are none. */
export function chainsAsSequences(text: string): { text: string; at: number[] } | null {
  // Each edit with the and-or list it is in: `a && b &` runs the whole list in the background, so
  // the operators of a list that ends in `&` stay.
  const edits: Array<{ at: number; len: number; list: number }> = [];
  const backgrounded = new Set<number>();
  let list = 0;
  let depth = 0; // open `(`, `$(`, `${`, `[[`, backticks and `{ … }` groups
  let wordStart = true; // the next character starts a word
  let ended = false; // the text since the last separator ends a statement (a newline there may become `;`)
  const rewrite = (i: number, len: number) => edits.push({ at: i, len, list });
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '\\') {
      i++;
      wordStart = false;
      ended = true;
      continue;
    }
    if (c === "'" || c === '"' || (c === '$' && next === "'")) {
      // A quoted string: skip to its end (backslashes escape in `"…"` and `$'…'`).
      const close = c === '$' ? "'" : c;
      const escapes = c !== "'";
      let j = c === '$' ? i + 2 : i + 1;
      while (j < text.length && text[j] !== close) j += escapes && text[j] === '\\' ? 2 : 1;
      i = j;
      wordStart = false;
      ended = true;
      continue;
    }
    // A heredoc body, or a compound command whose keywords the scan does not follow: stop here.
    if (c === '<' && next === '<' && text[i + 2] !== '<') break;
    if (wordStart && /^(?:if|while|until|for|select|case|function|coproc)(?![\w-])/.test(text.slice(i, i + 9))) break;
    if (c === '#' && wordStart) {
      const nl = text.indexOf('\n', i);
      if (nl < 0) break;
      i = nl - 1;
      continue;
    }
    if ((c === '$' && (next === '(' || next === '{')) || (c === '[' && next === '[' && wordStart)) {
      depth++;
      i++;
      wordStart = c === '$' && next === '(';
      continue;
    }
    if (c === '(' || (c === '{' && wordStart && /\s/.test(next ?? ''))) {
      depth++;
      wordStart = true;
      continue;
    }
    if (c === ')' || (c === '}' && depth > 0) || (c === ']' && next === ']' && depth > 0)) {
      depth = Math.max(0, depth - 1);
      if (c === ']') i++;
      wordStart = false;
      ended = true;
      continue;
    }
    if (c === '`') {
      const close = text.indexOf('`', i + 1);
      if (close < 0) break;
      i = close;
      wordStart = false;
      ended = true;
      continue;
    }
    if (c === '>' || c === '<') {
      // `>&`, `<&`, `>|`, `>>`: one redirection operator, not a list operator.
      if (next === '&' || next === '|' || next === '>') i++;
      wordStart = true;
      ended = false;
      continue;
    }
    if (depth === 0 && (c === '&' || c === '|') && next === c) {
      if (ended) rewrite(i, 2);
      i++;
      wordStart = true;
      ended = false;
      continue;
    }
    if (depth === 0 && c === '\n' && ended) {
      rewrite(i, 1);
      list++;
      wordStart = true;
      ended = false;
      continue;
    }
    if (c === ';' || c === '&' || c === '|' || c === '\n') {
      if ((c === '&' || c === '|') && next === '>') i++;
      else if (depth === 0 && (c === ';' || c === '&')) {
        if (c === '&') backgrounded.add(list);
        list++;
      }
      wordStart = true;
      ended = false;
      continue;
    }
    if (c === ' ' || c === '\t') {
      wordStart = true;
      continue;
    }
    wordStart = false;
    ended = true;
  }
  const kept = edits.filter((e) => !backgrounded.has(e.list));
  if (!kept.length) return null;
  let out = '';
  let from = 0;
  for (const e of kept) {
    out += text.slice(from, e.at) + (e.len === 2 ? '; ' : ';');
    from = e.at + e.len;
  }
  return { text: out + text.slice(from), at: kept.map((e) => e.at) };
}

/** A node of the parsed program, as much of it as the check reads. */
interface Top {
  hasError: boolean;
  children: ReadonlyArray<{ type: string; startIndex: number }>;
}

/** Whether every rewritten offset is a `;` between the program's top-level statements. */
export function chainsHeld(program: Top, at: readonly number[]): boolean {
  if (program.hasError) return false;
  const separators = new Set<number>();
  for (const c of program.children) if (c.type === ';') separators.add(c.startIndex);
  return at.every((i) => separators.has(i));
}
