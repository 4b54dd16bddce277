/**
 * Shapes tree-sitter-bash reads differently from bash, found by comparing its reading with bash's
 * own (bash prints a function body back as it parsed it), and how the reader gets bash's reading
 * back. Some are undone in the text before parsing (same length, so offsets stay true); others the
 * walk recognises in the tree (shell-walk.ts), reads again here, and reports as `unparseable`.
 */
import type { Word } from './shell.js';
import type { SyntaxNode } from './shell-tree.js';

/**
 * Unquoted `$IFS` / `${IFS}` replaced by spaces of the same length (offsets stay true): with the
 * default IFS that is what bash does, and tree-sitter mis-reads `$IFS-fr` glued to other text.
 */
export function spaceOutIfs(source: string): string {
  let out = '';
  // Open quotes and parentheses: a `$(…)` inside double quotes is unquoted again (`"$(rm$IFS-rf …)"`).
  const open: Array<"'" | '"' | '('> = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const inside = open.at(-1);
    if (c === '\\' && inside !== "'") {
      out += c + (source[i + 1] ?? '');
      i++;
      continue;
    }
    if (inside === "'" || inside === '"') {
      if (c === inside) open.pop();
      else if (inside === '"' && c === '$' && source[i + 1] === '(') {
        open.push('(');
        out += '$(';
        i++;
        continue;
      }
      out += c;
      continue;
    }
    if (c === "'" || c === '"' || c === '(') open.push(c);
    else if (c === ')' && inside === '(') open.pop();
    const m = /^\$(?:IFS(?![A-Za-z0-9_])|\{IFS\})/.exec(source.slice(i, i + 6));
    if (m) {
      out += ' '.repeat(m[0].length);
      i += m[0].length - 1;
      continue;
    }
    out += c;
  }
  return out;
}

/**
 * `time`, `!` and `coproc [NAME]` in front of a compound command (`time while …; done`, `! {
 * …; }`, `coproc { …; }`): tree-sitter-bash reads the compound's keywords as words of a command
 * named `time`. They only time, negate or background what follows, so they are blanked out.
 */
const PREFIX =
  /(^|[;&|(){}\n]|\b(?:then|do|else|elif|if|while|until)\b)([ \t]*)((?:time(?:[ \t]+-p)?|!|coproc(?:[ \t]+[A-Za-z_]\w*)?)[ \t]+)(?=(?:while|until|for|select|if|case|coproc)[ \t\n;]|[{(][ \t\n(]|\[\[[ \t])/g;

export function blankCompoundPrefixes(text: string): string {
  let out = text;
  // `! time while …`: each pass blanks one prefix of a chain.
  for (let pass = 0; pass < 3; pass++) {
    const next = out.replace(
      PREFIX,
      (_m, before: string, space: string, prefix: string) => before + space + ' '.repeat(prefix.length),
    );
    if (next === out) break;
    out = next;
  }
  return out;
}

/** Text where a compound-command prefix may need blanking (a cheap test before the regular expression). */
export const MAY_PREFIX = /\b(?:time|coproc)\b|!/;

/**
 * The statement that ends `n`, looking into the kinds given: a list's last statement, a pipeline's
 * last stage, a redirected statement's body. tree-sitter-bash binds `a && b >f` and `a && b <f | c`
 * as `(a && b) >f` and `(a && b <f) | c`; bash binds the redirection, and the pipe, to `b` alone.
 */
export function lastStatement(n: SyntaxNode, into: readonly string[]): SyntaxNode {
  let at = n;
  for (;;) {
    const next = !into.includes(at.type)
      ? null
      : at.type === 'redirected_statement'
        ? at.childForFieldName('body')
        : (at.namedChildren.filter((c) => c.type !== 'comment').at(-1) ?? null);
    if (!next) return at;
    at = next;
  }
}

/** Newlines (and the blanks around them) a word starts with: tree-sitter-bash's `⏎\rm` read as one word. */
const LEADING_NEWLINES = /^[ \t\n]*\n/;

/**
 * A command's words, one list per command bash would run. tree-sitter-bash sometimes runs two lines
 * into one command: `ls | head | cat⏎rm -rf ~ <x || y` comes out as `cat rm -rf ~`, and
 * `(ls⏎\rm -rf ~)` as `ls '⏎rm' -rf ~` (a word that starts with the newline). A command ends at
 * an unescaped newline, so the words after one are another command; each such gap goes into
 * `errors`, a span the gate cannot read.
 */
export function lineCommands(
  words: readonly Word[],
  source: string,
  errors: Array<{ start: number; end: number }>,
): Word[][] {
  const lines: Word[][] = [];
  let line: Word[] = [];
  for (let k = words.length - 1; k >= 0; k--) {
    let w = words[k]!;
    const lead = LEADING_NEWLINES.exec(w.raw)?.[0].length ?? 0;
    if (lead)
      w = {
        ...w,
        raw: w.raw.slice(lead),
        value: w.value?.replace(LEADING_NEWLINES, '') ?? null,
        start: w.start + lead,
      };
    line.unshift(w);
    if (k === 0 || !(lead || /(?:^|[^\\])\n/.test(source.slice(words[k - 1]!.end, w.start)))) continue;
    errors.push({ start: words[k - 1]!.end, end: w.start });
    lines.unshift(line);
    line = [];
  }
  lines.unshift(line);
  return lines;
}

/** A backtick substitution holding another backtick: two of them read as one (`` `ls` `rm -rf ~` ``). */
export function mergedBackticks(n: SyntaxNode): boolean {
  return n.type === 'command_substitution' && n.text.startsWith('`') && /(?:^|[^\\])`/.test(n.text.slice(1, -1));
}

/**
 * The command texts of the `$(…)` and backtick substitutions in a text, found by scanning it (for
 * what the tree missed: a `<<-` heredoc body whose tab-indented line starts with `$(`, backticks
 * read as one). Quotes inside a `$(…)` are skipped over; at most 32 are returned.
 */
export function substitutionsIn(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length && out.length < 32; i++) {
    const c = text[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== '`') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) break;
      out.push(text.slice(i + 1, j).replace(/\\([`$\\])/g, '$1'));
      i = j;
      continue;
    }
    if (c === '$' && text[i + 1] === '(' && text[i + 2] !== '(') {
      let depth = 0;
      let j = i + 1;
      let quote: string | undefined;
      for (; j < text.length; j++) {
        const d = text[j]!;
        if (d === '\\' && quote !== "'") j++;
        else if (quote) {
          if (d === quote) quote = undefined;
        } else if (d === "'" || d === '"') quote = d;
        else if (d === '(') depth++;
        else if (d === ')' && --depth === 0) break;
      }
      if (j >= text.length) break;
      out.push(text.slice(i + 2, j));
      i = j;
    }
  }
  return out;
}
