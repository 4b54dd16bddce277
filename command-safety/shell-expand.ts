/**
 * Static expansion of one bash word, as far as it can be known without running anything: quote
 * removal, backslash and `$'…'` decoding, brace expansion, `~`, unquoted `$IFS` splitting, and
 * variables the command line assigns exactly one literal value (see shell.ts for what the gate
 * makes of a word whose value stays unknown).
 */
import type { SyntaxNode } from './shell-tree.js';
import { decodeWith, printfText, unescaped } from './decoders.js';
import { globSource } from './paths.js';
import type { Word } from './shell.js';

const GLOB = /[*?[]/;

/** `$'…'` escapes, as bash decodes them. */
export function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3})|c(.)|(.))/gs,
    (_m, hex: string, u4: string, u8: string, oct: string, ctl: string, ch: string) => {
      if (hex) return String.fromCharCode(parseInt(hex, 16));
      if (u4 || u8) {
        const cp = parseInt(u4 || u8, 16);
        return cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
      }
      if (oct) return String.fromCharCode(parseInt(oct, 8) & 0xff);
      if (ctl) return String.fromCharCode(ctl.toUpperCase().charCodeAt(0) & 0x1f);
      const simple: Record<string, string> = {
        a: '\x07',
        b: '\b',
        e: '\x1b',
        E: '\x1b',
        f: '\f',
        n: '\n',
        r: '\r',
        t: '\t',
        v: '\v',
      };
      return simple[ch] ?? ch;
    },
  );
}

/** Brace expansion of an unquoted literal (`{a,b}`, `x{1..3}`); undefined when there is none or it is too big. */
export function expandBraces(text: string, limit = 64): string[] | undefined {
  const find = (s: string): [number, number] | undefined => {
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '\\') {
        i++;
        continue;
      }
      if (s[i] !== '{') continue;
      let depth = 0;
      for (let j = i; j < s.length; j++) {
        if (s[j] === '\\') {
          j++;
          continue;
        }
        if (s[j] === '{') depth++;
        else if (s[j] === '}' && --depth === 0) {
          const inner = s.slice(i + 1, j);
          if (/^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])$/.test(inner) || topLevelComma(inner)) return [i, j];
          break;
        }
      }
    }
    return undefined;
  };
  const topLevelComma = (s: string) => {
    let depth = 0;
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '\\') i++;
      else if (s[i] === '{') depth++;
      else if (s[i] === '}') depth--;
      else if (s[i] === ',' && depth === 0) return true;
    }
    return false;
  };
  const split = (s: string) => {
    const parts: string[] = [];
    let depth = 0;
    let cur = '';
    for (let i = 0; i < s.length; i++) {
      const c = s[i]!;
      if (c === '\\') {
        cur += c + (s[i + 1] ?? '');
        i++;
        continue;
      }
      if (c === '{') depth++;
      if (c === '}') depth--;
      if (c === ',' && depth === 0) {
        parts.push(cur);
        cur = '';
      } else cur += c;
    }
    parts.push(cur);
    return parts;
  };
  const at = find(text);
  if (!at) return undefined;
  const [i, j] = at;
  const inner = text.slice(i + 1, j);
  const range = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])$/.exec(inner);
  let options: string[];
  if (range) {
    const [a, b] = [range[1]!, range[2]!];
    const numeric = /\d/.test(a);
    const from = numeric ? Number(a) : a.charCodeAt(0);
    const to = numeric ? Number(b) : b.charCodeAt(0);
    if (Math.abs(to - from) > limit) return undefined;
    options = [];
    for (let k = from; from <= to ? k <= to : k >= to; k += from <= to ? 1 : -1)
      options.push(numeric ? String(k) : String.fromCharCode(k));
  } else options = split(inner);
  const out: string[] = [];
  for (const o of options) {
    const word = text.slice(0, i) + o + text.slice(j + 1);
    const more = expandBraces(word, limit) ?? [word];
    out.push(...more);
    if (out.length > limit) return undefined;
  }
  return out;
}

/** One piece of a word: literal text (with whether it was quoted), a split point, or something unknown. */
type Piece = { text: string; quoted: boolean } | { split: true } | { unknown: true; maybe?: string[] };

export interface Scope {
  /** Literal values assigned to each variable anywhere in the script (null marks a non-literal assignment). */
  vars: Map<string, Array<string | null>>;
  /** The whole command line (string nodes are read from it between their children). */
  source: string;
  /** Variables assigned the output of a network fetch (`x=$(curl …)`): text from elsewhere. */
  fetched?: Set<string>;
}

/** The value a variable expands to, when the script gives it exactly one literal value. */
function variableValue(name: string, scope: Scope): string | null {
  // With IFS given several values or one only known at run time, how any unquoted expansion
  // splits is a guess: nothing is known.
  const ifs = separators(scope);
  if (ifs === null) return null;
  if (name === 'HOME') return '~';
  if (name === 'PWD') return '.';
  if (name === 'IFS') return ifs;
  const values = scope.vars.get(name);
  if (!values || values.length === 0) return null;
  const distinct = new Set(values);
  if (distinct.has(null) || distinct.size !== 1) return null;
  return values[0]!;
}

function expansionName(node: SyntaxNode): string | undefined {
  // `$x`, `${x}`: a bare name; `${x:?msg}` is x or an error, and `${x:-y}` is x when x is set
  // (known values are never empty); anything more (`${x[@]}`, `${#x}`, `${x/a/b}`) is not a plain value.
  if (node.type === 'simple_expansion') {
    const v = node.namedChildren[0];
    return v && (v.type === 'variable_name' || v.type === 'special_variable_name') ? v.text : undefined;
  }
  if (node.type === 'expansion') {
    const inner = node.text.slice(2, -1);
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?::?[?-].*)?$/s.exec(inner);
    return m ? m[1] : undefined;
  }
  return undefined;
}

/**
 * `${x:2}`, `${x:0:4}`, `${x#prefix}`, `${x%.*}`, `${x/a/b}` of a variable with one known value, worked
 * out as bash does; null when the value or the operand is not known; undefined for other forms.
 */
function operatedValue(text: string, scope: Scope): string | null | undefined {
  const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(:(?![-=?+])|##?|%%?|\/\/?)(.*)\}$/s.exec(text);
  if (!m) return undefined;
  const value = variableValue(m[1]!, scope);
  const [op, arg] = [m[2]!, m[3]!];
  if (value === null || value.length > 1000 || /[$`\\'"]/.test(arg)) return null;
  if (op === ':') {
    const n = /^\s*\(?\s*(-?\d+)\s*\)?\s*(?::\s*\(?\s*(-?\d+)\s*\)?\s*)?$/.exec(arg);
    if (!n) return null;
    const from = Number(n[1]) < 0 ? Math.max(0, value.length + Number(n[1])) : Number(n[1]);
    const len = n[2] === undefined ? undefined : Number(n[2]);
    const to = len === undefined ? value.length : len < 0 ? value.length + len : from + len;
    return to < from ? null : value.slice(from, to);
  }
  if (op.startsWith('/')) {
    const slash = arg.indexOf('/');
    const [pat, rep] = slash < 0 ? [arg, ''] : [arg.slice(0, slash), arg.slice(slash + 1)];
    const anchor = pat.startsWith('#') ? '^' : pat.startsWith('%') ? '$' : '';
    const body = globSource(anchor ? pat.slice(1) : pat);
    if (!body) return value;
    const re = new RegExp(anchor === '^' ? `^${body}` : anchor === '$' ? `${body}$` : body, op === '//' ? 'g' : '');
    return value.replace(re, () => rep);
  }
  // `#`/`##` strip the shortest/longest matching prefix, `%`/`%%` the shortest/longest suffix.
  const whole = new RegExp(`^${globSource(arg)}$`);
  const longest = op.length === 2;
  for (let k = 0; k <= value.length; k++) {
    const i = longest ? value.length - k : k;
    if (op[0] === '#' && whole.test(value.slice(0, i))) return value.slice(i);
    if (op[0] === '%' && whole.test(value.slice(value.length - i))) return value.slice(0, value.length - i);
  }
  return value;
}

/** Remove backslashes of an unquoted word (`\r\m` → `rm`; a backslash-newline disappears). */
function unescapeUnquoted(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

/** The literal text of a double-quoted string between `a` and `b`, its backslash escapes removed. */
function quotedLiteral(source: string, a: number, b: number, out: Piece[]): void {
  if (b > a)
    out.push({
      text: source.slice(a, b).replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c)),
      quoted: true,
    });
}

function piecesOf(node: SyntaxNode, scope: Scope, quoted: boolean, out: Piece[]): void {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'extglob_pattern':
    case 'regex':
    case 'test_operator':
      out.push({ text: quoted ? node.text : unescapeUnquoted(node.text), quoted });
      return;
    case 'raw_string':
      out.push({ text: node.text.slice(1, -1), quoted: true });
      return;
    case 'ansi_c_string':
      out.push({ text: decodeAnsiC(node.text.slice(2, -1)), quoted: true });
      return;
    case 'string':
    case 'translated_string': {
      const body = node.type === 'translated_string' ? node.namedChildren[0] : node;
      if (!body) return;
      // Text between the named children is literal string content too.
      let pos = body.startIndex + 1;
      const end = body.endIndex - 1;
      for (const child of body.namedChildren) {
        if (!child) continue;
        if (child.type === 'string_content') continue;
        quotedLiteral(scope.source, pos, child.startIndex, out);
        piecesOf(child, scope, true, out);
        pos = child.endIndex;
      }
      quotedLiteral(scope.source, pos, end, out);
      return;
    }
    case 'simple_expansion':
    case 'expansion': {
      // `"${a[@]}"`: each element of an array assigned literal words, one word each.
      const all = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\[([@*])\]\}$/.exec(node.text);
      const elements = all ? variableValue(`${all[1]}[@]`, scope) : null;
      if (all && elements !== null) return expanded(elements, quoted && all[2] === '*', out, scope);
      const name = expansionName(node);
      const operated = operatedValue(node.text, scope);
      let value = operated !== undefined ? operated : name === undefined ? null : variableValue(name, scope);
      // `${x:-y}`: y when x is empty or unset (from the environment, so it may be): one of what runs.
      const fallback = /^\$\{[A-Za-z_][A-Za-z0-9_]*(:?)[-=]([^$`\\'"]*)\}$/.exec(node.text);
      if (value === '' && fallback) value = fallback[2]!;
      if (value === null) {
        // Assigned several values (`x=$(…)` and `x=/`): any literal one may be what runs.
        const maybe = name === undefined ? [] : (scope.vars.get(name) ?? []).filter((v): v is string => v !== null);
        if (fallback?.[2]) maybe.push(fallback[2]);
        out.push(maybe.length ? { unknown: true, maybe: maybe.slice(0, 8) } : { unknown: true });
      } else if (name === 'IFS' && !quoted) out.push({ split: true });
      // `"$@"` is one word per positional parameter, quoted or not.
      else expanded(value, quoted && name !== '@', out, scope);
      return;
    }
    case 'command_substitution': {
      // `$(echo ~)`, `` `printf %s /` ``: a substitution that only prints literal words is those words.
      const value = printedText(node, scope);
      if (value === null) out.push({ unknown: true });
      else expanded(value, quoted, out, scope);
      return;
    }
    case 'concatenation':
      for (const c of node.children) piecesOf(c, scope, quoted, out);
      return;
    default:
      // Command and process substitutions, arithmetic, arrays: not knowable statically.
      if (node.isNamed) out.push({ unknown: true });
      else out.push({ text: node.text, quoted });
  }
}

/** What IFS holds when nothing sets it, and the split it makes. */
const BLANKS = ' \t\n';
const SPLIT_AT_BLANKS = /[ \t\n]+/;

/** The characters unquoted expansions split at: IFS as the script sets it (one literal value), or blanks; null when unknown. */
function separators(scope: Scope): string | null {
  const values = scope.vars.get('IFS');
  if (!values) return BLANKS;
  return new Set(values).size === 1 ? values[0]! : null;
}

/**
 * A known value as an expansion yields it: split at IFS's characters unless quoted (`IFS=,;
 * c=rm,-rf,/; $c` runs `rm -rf /`); no globbing: it is read literally. Empty fields are dropped,
 * which only matters to arguments that are empty strings.
 */
function expanded(value: string, quoted: boolean, out: Piece[], scope: Scope): void {
  const ifs = separators(scope) ?? BLANKS;
  // Every known expansion comes here: the usual blanks need no pattern of their own.
  const at =
    ifs === BLANKS ? SPLIT_AT_BLANKS : ifs === '' ? null : new RegExp(`[${ifs.replace(/[\\\]^-]/g, '\\$&')}]+`);
  if (quoted || !at || !at.test(value)) {
    out.push({ text: value, quoted: true });
    return;
  }
  value
    .split(at)
    .filter(Boolean)
    .forEach((part, i) => {
      if (i > 0) out.push({ split: true });
      out.push({ text: part, quoted: true });
    });
}

/**
 * What a command substitution prints when its whole body is `echo` (no options but `-n`, no
 * backslashes) or `printf` of a plain format or `%s`, with literal words; null otherwise. The
 * trailing newlines a substitution drops are not there to drop.
 */
function printedText(node: SyntaxNode, scope: Scope): string | null {
  const body = node.namedChildren;
  if (body.length !== 1) return null;
  const only = body[0]!;
  // `$(echo cm0g… | base64 -d)`, `$(base64 -d <<< cm0g…)`: literal text through decoders.
  const here = only.type === 'command' ? only.namedChildren.find((c) => c.type === 'herestring_redirect') : undefined;
  if (only.type === 'pipeline' || here) {
    const text = decodedText(only, scope);
    return text === null ? null : text.replace(/\n+$/, '');
  }
  return only.type === 'command' ? printedBy(only, scope) : null;
}

/** A command's name and arguments when each is one literal word after expansion; null otherwise. */
function literalArgv(cmd: SyntaxNode, scope: Scope): string[] | null {
  const parts = cmd.namedChildren.filter((c) => c.type !== 'herestring_redirect');
  if (parts.some((c) => c.type !== 'command_name' && !WORD_NODES.has(c.type))) return null;
  const argv = parts.map((c) => {
    const words = expandWord(c.type === 'command_name' ? (c.namedChildren[0] ?? c) : c, scope);
    return words.length === 1 ? words[0]!.value : null;
  });
  return argv.includes(null) || !argv.length ? null : (argv as string[]);
}

/**
 * What `echo` or `printf` of literal words prints (no trailing newline), backslash escapes read
 * where they print as something else (`printf '\x72\x6d'`, `echo -e`, `%b`); null for anything else.
 */
function printedBy(cmd: SyntaxNode, scope: Scope): string | null {
  const argv = literalArgv(cmd, scope);
  if (!argv) return null;
  const [name, ...words] = argv;
  if (name === 'echo') {
    let escapes = false;
    let i = 0;
    for (; /^-[neE]+$/.test(words[i] ?? ''); i++) escapes = /e[^E]*$/.test(words[i]!);
    const text = words.slice(i);
    if (text.some((w) => w.startsWith('-'))) return null;
    // Without -e, bash prints a backslash as it is and sh's echo reads it: which one runs is unknown.
    return escapes ? unescaped(text.join(' ')) : text.some((w) => w.includes('\\')) ? null : text.join(' ');
  }
  if (name === 'printf' && words.length) {
    const [format, ...rest] = words;
    if (format === '%b') return rest.length ? unescaped(rest.join('')) : '';
    // `%s` with any words, or a format without directives and without words.
    const plain = !rest.length && !format!.replace(/%%/g, '').includes('%');
    return format === '%s' || plain ? printfText(format!, rest) : null;
  }
  if (name === 'mktemp') return mktempPath(words);
  return null;
}

/**
 * Where `mktemp` makes its file or folder, with the random letters left as the template's `X`s:
 * `mktemp /tmp/cov.XXXXXX` is under /tmp, `mktemp -d` and `mktemp -t x.XXXX` are under /tmp (the
 * gate reads TMPDIR as /tmp), `mktemp -p DIR` under DIR, and a bare template beside the cwd.
 */
function mktempPath(words: readonly string[]): string | null {
  let dir: string | undefined;
  let template: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '-p' || w === '--tmpdir') dir = words[++i] ?? '/tmp';
    else if (w.startsWith('--tmpdir=')) dir = w.slice(9);
    else if (w === '-t') dir ??= '/tmp';
    else if (/^-[dqu]+$|^--(directory|quiet|dry-run)$/.test(w)) continue;
    else if (w.startsWith('-') || template !== undefined) return null;
    else template = w;
  }
  const path =
    template === undefined
      ? `${dir ?? '/tmp'}/tmp.XXXXXXXXXX`
      : dir === undefined || template.startsWith('/')
        ? template
        : `${dir.replace(/\/+$/, '')}/${template}`;
  // The random letters are marked, so a rule can tell the fresh name this line made (rules/files.ts).
  return path.replace(/X{3,}$/, (xs) => MKTEMP_MARK.repeat(xs.length));
}

/** Stands for each random letter of a name `mktemp` made on this line (a private-use character). */
export const MKTEMP_MARK = '\uE000';

/** What a pipeline of `echo`/`printf` into decoders, or a decoder fed a literal here-string, prints. */
function decodedText(node: SyntaxNode, scope: Scope): string | null {
  if (node.type === 'command') {
    const here = node.namedChildren.filter((c) => c.type === 'herestring_redirect');
    const word = here.length === 1 ? here[0]!.namedChildren[0] : undefined;
    const input = word ? expandWord(word, scope) : [];
    if (input.length !== 1 || input[0]!.value === null) return null;
    const argv = literalArgv(node, scope);
    return argv ? decodeWith(argv[0]!, argv.slice(1), `${input[0]!.value}\n`) : null;
  }
  const [first, ...rest] = node.namedChildren;
  if (first?.type !== 'command' || !rest.length || rest.some((c) => c.type !== 'command')) return null;
  let text = printedBy(first, scope);
  // `echo` ends what it prints with a newline (printedBy leaves it out, as a substitution drops it).
  const argv = literalArgv(first, scope);
  if (text !== null && argv![0] === 'echo' && argv![1] !== '-n') text += '\n';
  for (const cmd of rest) {
    const argv = text === null ? null : literalArgv(cmd, scope);
    text = argv ? decodeWith(argv[0]!, argv.slice(1), text!) : null;
  }
  return text;
}

/** Nodes that are words: a word expansion can know their value. */
export const WORD_NODES = new Set([
  'word',
  'string',
  'raw_string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'number',
]);

/** The words a word node expands to (brace expansion and `$IFS` splitting may make several). */
export function expandWord(node: SyntaxNode, scope: Scope): Word[] {
  const pieces: Piece[] = [];
  piecesOf(node, scope, false, pieces);
  // Each word is written out in full rather than as `{ ...base, value }`: on Node 20's V8 a spread
  // followed by new properties gives every word a hidden class of its own, and every rule that
  // reads words then runs on its slow path (see classify.ts).
  const raw = node.text;
  const { startIndex: start, endIndex: end } = node;
  type Building = {
    text: string;
    unknown: boolean;
    glob: boolean;
    unquoted: string;
    shape: string;
    maybe?: string[] | undefined;
  };
  const words: Building[] = [{ text: '', unknown: false, glob: false, unquoted: '', shape: '' }];
  for (const p of pieces) {
    const cur = words[words.length - 1]!;
    if ('split' in p) words.push({ text: '', unknown: false, glob: false, unquoted: '', shape: '' });
    else if ('unknown' in p) {
      // Only a word that is the one expansion and nothing else takes its possible values.
      cur.maybe = cur.shape === '' && !cur.unknown ? p.maybe : undefined;
      cur.unknown = true;
      cur.shape += '\uFFFC';
    } else {
      cur.maybe = undefined;
      cur.text += p.text;
      cur.shape += p.text;
      if (!p.quoted) {
        cur.unquoted += p.text;
        if (GLOB.test(p.text)) cur.glob = true;
      }
    }
  }
  const out: Word[] = [];
  for (const w of words) {
    if (w.unknown) {
      out.push(
        w.maybe
          ? { raw, start, end, value: null, glob: w.glob, shape: w.shape, maybe: w.maybe }
          : { raw, start, end, value: null, glob: w.glob, shape: w.shape },
      );
      continue;
    }
    if (w.text === '' && words.length > 1) continue;
    // Brace expansion applies to unquoted braces only; a literal `{a,b}` written unquoted expands.
    const braces = w.unquoted.includes('{') && w.unquoted === w.text ? expandBraces(w.text) : undefined;
    if (braces) for (const b of braces) out.push({ raw, start, end, value: b, glob: GLOB.test(b) });
    else out.push({ raw, start, end, value: w.text, glob: w.glob });
  }
  return out;
}
