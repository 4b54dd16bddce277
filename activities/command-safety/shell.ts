/**
 * Reading a bash command the way bash would, for the approval gate (docs/command-safety.md). The syntax comes
 * from tree-sitter-bash (through web-tree-sitter: WASM, no native build, synchronous once loaded);
 * this module turns its tree into the simple commands that will run — wherever they sit: lists,
 * pipelines, `if`/`while`/`for`/`case`/`select`, functions, subshells, `$(…)`, backticks,
 * `<(…)`/`>(…)`, heredoc bodies, arithmetic — each with its words expanded as far as they can be
 * known without running anything.
 *
 * A word's value is known when it is literal after quote removal, backslash and `$'…'` decoding,
 * brace expansion, `~`, and variables assigned exactly one literal value in the same command line
 * (`a=rm; $a -rf /`). Anything else — a substitution, another variable, an arithmetic result — is
 * unknown (`value: null`), and the rules treat an unknown command word as "cannot tell what runs".
 * Unquoted `$IFS` splits words as bash does (`rm${IFS}-rf${IFS}/`).
 *
 * Why tree-sitter-bash: it is the maintained bash grammar behind GitHub's and Codex's readers of
 * shell, fast (about a millisecond for 2,000 characters), and reports what it cannot parse as
 * ERROR nodes — which the gate treats as dangerous. mvdan/sh (via `sh-syntax`) parses bash more
 * strictly, but its WASM build returns command nodes without their contents and is ~20× slower.
 */
import { createRequire } from 'node:module';
import type { Node as TsNode, Tree } from 'web-tree-sitter';
import { Language, Parser } from 'web-tree-sitter';

export interface Word {
  /** The value after static expansion, or null when it cannot be known without running anything. */
  value: string | null;
  /** The source text. */
  raw: string;
  start: number;
  end: number;
  /** Unquoted glob characters remain (`*.log`, `/bin/r?`): the value is a pattern. */
  glob: boolean;
  /**
   * When the value is unknown: its literal parts, with U+FFFC for each part only known at run
   * time (`/home/$USER` → `/home/\uFFFC`), so a rule can still see where it points.
   */
  shape?: string;
}

export interface Redirect {
  /** `>`, `>>`, `<`, `&>`, `>&`, `<>`, `>|`, `<&`, `&>>`, `<<`, `<<-`, `<<<`. */
  op: string;
  fd: number | null;
  target: Word | null;
}

/** What a command reads on standard input, when the command line says. */
export type Stdin =
  | { kind: 'text'; text: string | null } // heredoc or here-string (null: it has expansions)
  | { kind: 'file'; path: Word }
  | { kind: 'pipe'; from: SimpleCommand[] }
  | { kind: 'process'; commands: SimpleCommand[] }; // `< <(…)`

export interface SimpleCommand {
  /** argv after expansion (a word may expand to several, or to none). */
  words: Word[];
  /** `NAME=value` words before the command (its environment). */
  assignments: Array<{ name: string; value: Word }>;
  redirects: Redirect[];
  stdin: Stdin | undefined;
  /** The function whose body holds this command. */
  inFunction: string | undefined;
  /** Run with `&` (or as part of a backgrounded pipeline/list). */
  background: boolean;
  /** In a pipeline, writing into the next command. */
  pipedOut: boolean;
  /** The directory it runs in, as far as `cd` says: `.` (the workspace), `~`, an absolute path, or null (unknown). */
  cwd: string | null;
  start: number;
  end: number;
}

export interface ParsedScript {
  source: string;
  commands: SimpleCommand[];
  /** Spans tree-sitter could not parse (ERROR or MISSING nodes). */
  errors: Array<{ start: number; end: number }>;
  /** Functions defined in the script: name → the commands of their bodies. */
  functions: Map<string, SimpleCommand[]>;
  /** Every literal value each variable is assigned (null: a value only known at run time). */
  vars?: Map<string, Array<string | null>>;
  /**
   * Variables whose value the shell evaluates as code: in arithmetic (`(( a ))`, `$(( a ))`,
   * `let`, an array index — `a='x[$(cmd)]'` runs cmd) or by prompt expansion (`${a@P}`).
   */
  evaluated?: Array<{ name: string; how: 'arithmetic' | 'prompt'; start: number; end: number }>;
}

let parser: Parser | undefined;
let loading: Promise<Parser> | undefined;

/** Load the bash grammar once per process (WASM); afterwards `parseShell` is synchronous. */
export function loadShellParser(): Promise<Parser> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const p = new Parser();
    p.setLanguage(bash);
    parser = p;
    return p;
  })();
  return loading;
}

export function shellParserReady(): boolean {
  return parser !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Static expansion

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
type Piece = { text: string; quoted: boolean } | { split: true } | { unknown: true };

export interface Scope {
  /** Literal values assigned to each variable anywhere in the script (null marks a non-literal assignment). */
  vars: Map<string, Array<string | null>>;
  /** The whole command line (string nodes are read from it between their children). */
  source: string;
}

/** The value a variable expands to, when the script gives it exactly one literal value. */
function variableValue(name: string, scope: Scope): string | null {
  // With IFS changed, how any unquoted expansion splits is a guess: nothing is known.
  if (scope.vars.has('IFS')) return null;
  if (name === 'HOME') return '~';
  if (name === 'PWD') return '.';
  if (name === 'IFS') return ' ';
  const values = scope.vars.get(name);
  if (!values || values.length === 0) return null;
  const distinct = new Set(values);
  if (distinct.has(null) || distinct.size !== 1) return null;
  return values[0]!;
}

function expansionName(node: TsNode): string | undefined {
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

/** Remove backslashes of an unquoted word (`\r\m` → `rm`; a backslash-newline disappears). */
function unescapeUnquoted(text: string): string {
  return text.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

function piecesOf(node: TsNode, scope: Scope, quoted: boolean, out: Piece[]): void {
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
      const src = scope.source;
      const literal = (a: number, b: number) => {
        if (b > a)
          out.push({
            text: src.slice(a, b).replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c)),
            quoted: true,
          });
      };
      for (const child of body.namedChildren) {
        if (!child) continue;
        if (child.type === 'string_content') continue;
        literal(pos, child.startIndex);
        piecesOf(child, scope, true, out);
        pos = child.endIndex;
      }
      literal(pos, end);
      return;
    }
    case 'simple_expansion':
    case 'expansion': {
      const name = expansionName(node);
      let value = name === undefined ? null : variableValue(name, scope);
      // `${x:-y}` with x empty is y: not known here.
      if (value === '' && /^\$\{[A-Za-z_][A-Za-z0-9_]*:?-/.test(node.text)) value = null;
      if (value === null) out.push({ unknown: true });
      else if (name === 'IFS' && !quoted) out.push({ split: true });
      else if (!quoted && /\s/.test(value)) {
        value
          .split(/\s+/)
          .filter(Boolean)
          .forEach((part, i) => {
            if (i > 0) out.push({ split: true });
            out.push({ text: part, quoted: true });
          });
      } else out.push({ text: value, quoted: true });
      return;
    }
    case 'concatenation':
      for (const c of node.children) if (c) piecesOf(c, scope, quoted, out);
      return;
    default:
      // Command and process substitutions, arithmetic, arrays: not knowable statically.
      if (node.isNamed) out.push({ unknown: true });
      else out.push({ text: node.text, quoted });
  }
}

/** The words a word node expands to (brace expansion and `$IFS` splitting may make several). */
export function expandWord(node: TsNode, scope: Scope): Word[] {
  const pieces: Piece[] = [];
  piecesOf(node, scope, false, pieces);
  const base = { raw: node.text, start: node.startIndex, end: node.endIndex };
  const words: Array<{ text: string; unknown: boolean; glob: boolean; unquoted: string; shape: string }> = [
    { text: '', unknown: false, glob: false, unquoted: '', shape: '' },
  ];
  for (const p of pieces) {
    const cur = words[words.length - 1]!;
    if ('split' in p) words.push({ text: '', unknown: false, glob: false, unquoted: '', shape: '' });
    else if ('unknown' in p) {
      cur.unknown = true;
      cur.shape += '\uFFFC';
    } else {
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
      out.push({ ...base, value: null, glob: w.glob, shape: w.shape });
      continue;
    }
    if (w.text === '' && words.length > 1) continue;
    // Brace expansion applies to unquoted braces only; a literal `{a,b}` written unquoted expands.
    const braces = w.unquoted.includes('{') && w.unquoted === w.text ? expandBraces(w.text) : undefined;
    if (braces) for (const b of braces) out.push({ ...base, value: b, glob: GLOB.test(b) });
    else out.push({ ...base, value: w.text, glob: w.glob });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Walking the tree

interface Context {
  inFunction: string | undefined;
  background: boolean;
  cwd: { value: string | null };
}

function collectAssignments(root: TsNode, scope: Scope): void {
  const add = (name: string, value: string | null) => {
    const list = scope.vars.get(name) ?? [];
    list.push(value);
    scope.vars.set(name, list);
  };
  const visit = (n: TsNode) => {
    // `declare -n ref=x`: ref is a name for x, whatever x holds at run time.
    if (n.type === 'declaration_command' && n.namedChildren.some((c) => c?.type === 'word' && /^-\w*n/.test(c.text)))
      for (const c of n.namedChildren)
        if (c?.type === 'variable_assignment') add(c.childForFieldName('name')?.text ?? '', null);
    if (n.type === 'variable_assignment') {
      const name = n.childForFieldName('name')?.text;
      const value = n.childForFieldName('value');
      if (name) {
        // `x+=…` appends, arrays and substitutions are not single literal values.
        const op = n.children.find((c) => c && !c.isNamed)?.text;
        if (!value) add(name, '');
        else if (op === '+=' || value.type === 'array') add(name, null);
        else {
          const words = expandWord(value, { vars: new Map(), source: scope.source });
          add(name, words.length === 1 && words[0]!.value !== null ? words[0]!.value : null);
        }
      }
    } else if (n.type === 'for_statement') {
      const v = n.childForFieldName('variable')?.text;
      const values = n.childrenForFieldName('value').filter((x): x is TsNode => !!x);
      if (v) {
        if (!values.length) add(v, null);
        for (const val of values)
          for (const w of expandWord(val, { vars: new Map(), source: scope.source })) add(v, w.value);
      }
    } else if (n.type === 'command') {
      // `read x`, `mapfile`, `printf -v x`, `getopts`: a value the script cannot show.
      const name = n.childForFieldName('name')?.text;
      if (name === 'read' || name === 'mapfile' || name === 'readarray' || name === 'getopts' || name === 'printf') {
        for (const a of n.childrenForFieldName('argument'))
          if (a && /^[A-Za-z_][A-Za-z0-9_]*$/.test(a.text)) add(a.text, null);
      }
    }
    for (const c of n.namedChildren) if (c) visit(c);
  };
  visit(root);
}

/** Where a literal `cd` leaves the shell, from where it was. */
function cdTarget(from: string | null, arg: string | null | undefined): string | null {
  if (arg === undefined || arg === '~' || arg === '') return '~';
  if (arg === null || arg === '-') return null;
  if (arg.startsWith('/')) return arg;
  if (arg === '~' || arg.startsWith('~/')) return arg;
  if (from === null) return null;
  if (arg === '.' || arg === './') return from;
  return from === '.' ? arg.replace(/\/+$/, '') || '.' : `${from.replace(/\/$/, '')}/${arg}`;
}

/**
 * Unquoted `$IFS` / `${IFS}` replaced by spaces of the same length (offsets stay true): with the
 * default IFS that is what bash does, and tree-sitter mis-reads `$IFS-fr` glued to other text.
 */
export function spaceOutIfs(source: string): string {
  let out = '';
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\' && quote !== "'") {
      out += c + (source[i + 1] ?? '');
      i++;
      continue;
    }
    if (quote) {
      if (c === quote) quote = undefined;
      out += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      out += c;
      continue;
    }
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

export function parseShell(source: string): ParsedScript {
  if (!parser) throw new Error('the shell parser is not loaded: await loadShellParser() first');
  const text = source.includes('IFS') ? spaceOutIfs(source) : source;
  const tree: Tree | null = parser.parse(text);
  if (!tree) return { source, commands: [], errors: [{ start: 0, end: source.length }], functions: new Map() };
  try {
    return walk(tree.rootNode, text);
  } finally {
    tree.delete();
  }
}

function walk(root: TsNode, source: string): ParsedScript {
  const scope: Scope = { vars: new Map(), source };
  collectAssignments(root, scope);
  const commands: SimpleCommand[] = [];
  const errors: Array<{ start: number; end: number }> = [];
  const functions = new Map<string, SimpleCommand[]>();

  const findErrors = (n: TsNode) => {
    if (n.type === 'ERROR' || n.isMissing) errors.push({ start: n.startIndex, end: n.endIndex });
    else if (n.hasError) for (const c of n.children) if (c) findErrors(c);
  };
  findErrors(root);

  /** Commands nested anywhere inside a node (substitutions in words, arithmetic, test expressions). */
  const nested = (n: TsNode, ctx: Context): SimpleCommand[] => {
    const found: SimpleCommand[] = [];
    const visit = (m: TsNode) => {
      if (m.type === 'command_substitution' || m.type === 'process_substitution') {
        found.push(...statements(m.namedChildren, { ...ctx, cwd: { value: ctx.cwd.value } }));
        return;
      }
      for (const c of m.namedChildren) if (c) visit(c);
    };
    visit(n);
    return found;
  };

  const redirectOf = (
    r: TsNode,
    ctx: Context,
    out: SimpleCommand[],
  ): { redirect: Redirect; stdin?: Stdin; rest?: TsNode[] } => {
    const fdNode = r.namedChildren.find((c) => c?.type === 'file_descriptor');
    const fd = fdNode ? Number(fdNode.text) : null;
    const op = r.children.find((c) => c && !c.isNamed && /[<>&|]/.test(c.text))?.text ?? '';
    if (r.type === 'heredoc_redirect') {
      const start = r.namedChildren.find((c) => c?.type === 'heredoc_start');
      const body = r.namedChildren.find((c) => c?.type === 'heredoc_body');
      const quoted = !!start && /['"\\]/.test(start.text);
      const expansions =
        !!body && body.namedChildren.some((c) => c && c.type !== 'heredoc_content' && c.type !== 'heredoc_end');
      if (body) out.push(...nested(body, ctx));
      const text = body ? source.slice(body.startIndex, body.endIndex) : '';
      // The rest of the line after `<<EOF` (`| psql`, `> file`, `&& next`) sits inside the redirect node.
      const rest = r.namedChildren.filter(
        (c): c is TsNode =>
          !!c && !['heredoc_start', 'heredoc_body', 'heredoc_end', 'file_descriptor'].includes(c.type),
      );
      return {
        redirect: { op: op || '<<', fd, target: null },
        stdin: { kind: 'text', text: quoted || !expansions ? text : null },
        rest,
      };
    }
    if (r.type === 'herestring_redirect') {
      const value = r.namedChildren.find((c) => c && c.type !== 'file_descriptor');
      if (value) out.push(...nested(value, ctx));
      const words = value ? expandWord(value, scope) : [];
      const text = words.length && words.every((w) => w.value !== null) ? words.map((w) => w.value).join(' ') : null;
      return { redirect: { op: '<<<', fd, target: null }, stdin: { kind: 'text', text } };
    }
    const dest = r.childForFieldName('destination') ?? r.namedChildren.find((c) => c && c.type !== 'file_descriptor');
    if (dest?.type === 'process_substitution') {
      const inner = statements(dest.namedChildren, { ...ctx, cwd: { value: ctx.cwd.value } });
      out.push(...inner);
      return {
        redirect: { op, fd, target: null },
        ...(op === '<' ? { stdin: { kind: 'process', commands: inner } } : {}),
      };
    }
    if (dest) out.push(...nested(dest, ctx));
    const target = dest ? (expandWord(dest, scope)[0] ?? null) : null;
    return {
      redirect: { op, fd, target },
      ...(op === '<' && target && (fd === null || fd === 0) ? { stdin: { kind: 'file', path: target } } : {}),
    };
  };

  /** One `command` node (with the redirects of its redirected_statement). */
  const command = (n: TsNode, redirects: TsNode[], ctx: Context): SimpleCommand[] => {
    const extra: SimpleCommand[] = [];
    const words: Word[] = [];
    const assignments: Array<{ name: string; value: Word }> = [];
    const reds: Redirect[] = [];
    const continuations: TsNode[] = [];
    let stdin: Stdin | undefined;
    for (const c of n.namedChildren) {
      if (!c) continue;
      if (c.type === 'variable_assignment') {
        const name = c.childForFieldName('name')?.text ?? '';
        const value = c.childForFieldName('value');
        if (value) extra.push(...nested(value, ctx));
        const w = value ? expandWord(value, scope) : [];
        assignments.push({
          name,
          value:
            w.length === 1
              ? w[0]!
              : {
                  value: w.length ? null : '',
                  raw: value?.text ?? '',
                  start: c.startIndex,
                  end: c.endIndex,
                  glob: false,
                },
        });
      } else if (c.type === 'file_redirect' || c.type === 'heredoc_redirect' || c.type === 'herestring_redirect') {
        const r = redirectOf(c, ctx, extra);
        reds.push(r.redirect);
        if (r.stdin) stdin = r.stdin;
        if (r.rest) continuations.push(...r.rest);
      } else if (c.type === 'command_name') {
        const inner = c.namedChildren[0];
        if (inner) {
          extra.push(...nested(inner, ctx));
          words.push(...expandWord(inner, scope));
        }
      } else {
        extra.push(...nested(c, ctx));
        words.push(...expandWord(c, scope));
      }
    }
    for (const r of redirects) {
      const x = redirectOf(r, ctx, extra);
      reds.push(x.redirect);
      if (x.stdin) stdin = x.stdin;
      if (x.rest) continuations.push(...x.rest);
    }
    // tree-sitter splits a word at a backslash-newline (`p\\<newline>oweroff`); bash joins it.
    for (let k = words.length - 1; k > 0; k--) {
      const a = words[k - 1]!;
      const b = words[k]!;
      if (source.slice(a.end, b.start) === '\\\n') {
        words.splice(k - 1, 2, {
          value: a.value === null || b.value === null ? null : a.value + b.value,
          raw: a.raw + b.raw,
          start: a.start,
          end: b.end,
          glob: a.glob || b.glob,
        });
      }
    }
    const cmd: SimpleCommand = {
      words,
      assignments,
      redirects: reds,
      stdin,
      inFunction: ctx.inFunction,
      background: ctx.background,
      pipedOut: false,
      cwd: ctx.cwd.value,
      start: n.startIndex,
      end: n.endIndex,
    };
    if (words[0]?.value === 'cd' || words[0]?.value === 'pushd') {
      ctx.cwd.value = cdTarget(ctx.cwd.value, words.length > 1 ? words[1]!.value : undefined);
    }
    const after: SimpleCommand[] = [];
    for (const c of continuations) {
      if (/redirect$/.test(c.type)) {
        const x = redirectOf(c, ctx, extra);
        cmd.redirects.push(x.redirect);
        continue;
      }
      const cmds = statement(c, ctx);
      // `cat <<EOF | psql`: the heredoc's command writes into the pipeline that follows it.
      if (c.type === 'pipeline' || /^\s*\|/.test(source.slice(n.endIndex, c.startIndex).split('\n')[0] ?? '')) {
        cmd.pipedOut = true;
        const head = cmds[0];
        if (head && !head.stdin) head.stdin = { kind: 'pipe', from: [cmd] };
      }
      after.push(...cmds);
    }
    return [cmd, ...extra, ...after];
  };

  /** Statements in order; `cd` moves the tracked directory for those after it. */
  const statements = (nodes: ReadonlyArray<TsNode | null>, ctx: Context): SimpleCommand[] => {
    const out: SimpleCommand[] = [];
    for (const n of nodes) if (n) out.push(...statement(n, ctx));
    return out;
  };

  const statement = (n: TsNode, ctx: Context, redirects: TsNode[] = []): SimpleCommand[] => {
    switch (n.type) {
      case 'comment':
      case 'heredoc_body':
        return [];
      case 'file_redirect':
      case 'heredoc_redirect':
      case 'herestring_redirect': {
        // A redirection on its own (`$(> file)`, `> /dev/sda`): a command with no words.
        const extra: SimpleCommand[] = [];
        const r = redirectOf(n, ctx, extra);
        return [
          {
            words: [],
            assignments: [],
            redirects: [r.redirect],
            stdin: r.stdin,
            inFunction: ctx.inFunction,
            background: ctx.background,
            pipedOut: false,
            cwd: ctx.cwd.value,
            start: n.startIndex,
            end: n.endIndex,
          },
          ...extra,
        ];
      }
      case 'command':
        return command(n, redirects, ctx);
      case 'redirected_statement': {
        const body = n.childForFieldName('body');
        const reds = n.namedChildren.filter((c): c is TsNode => !!c && c !== body && /redirect$/.test(c.type));
        if (!body) {
          // A redirection alone (`> /dev/sda`): a command with no words.
          const fake: SimpleCommand[] = [];
          const red: Redirect[] = [];
          for (const r of reds) red.push(redirectOf(r, ctx, fake).redirect);
          return [
            {
              words: [],
              assignments: [],
              redirects: red,
              stdin: undefined,
              inFunction: ctx.inFunction,
              background: ctx.background,
              pipedOut: false,
              cwd: ctx.cwd.value,
              start: n.startIndex,
              end: n.endIndex,
            },
            ...fake,
          ];
        }
        if (body.type === 'command') return command(body, reds, ctx);
        // Redirects of a compound statement apply to every command inside.
        const inner = statement(body, ctx);
        const extra: SimpleCommand[] = [];
        const red: Redirect[] = [];
        let stdin: Stdin | undefined;
        for (const r of reds) {
          const x = redirectOf(r, ctx, extra);
          red.push(x.redirect);
          if (x.stdin) stdin = x.stdin;
        }
        for (const c of inner) {
          c.redirects.push(...red);
          if (stdin && !c.stdin) c.stdin = stdin;
        }
        return [...inner, ...extra];
      }
      case 'pipeline': {
        const parts = n.namedChildren.filter((c): c is TsNode => !!c && c.type !== 'comment');
        const out: SimpleCommand[] = [];
        let previous: SimpleCommand[] = [];
        for (const [i, p] of parts.entries()) {
          const cmds = statement(p, { ...ctx, cwd: { value: ctx.cwd.value } });
          // The first command of this stage reads what the stage before wrote.
          const head = cmds[0];
          if (head && i > 0 && !head.stdin) head.stdin = { kind: 'pipe', from: previous };
          if (i < parts.length - 1) for (const c of cmds) c.pipedOut = true;
          previous = cmds;
          out.push(...cmds);
        }
        return out;
      }
      case 'list': {
        // `a && b`, `a || b`, `a; b`, `a & b`: in order; a trailing `&` backgrounds what precedes it.
        const out: SimpleCommand[] = [];
        for (const c of n.children) {
          if (!c) continue;
          if (!c.isNamed) {
            if (c.text === '&') for (const x of out) x.background = true;
            continue;
          }
          out.push(...statement(c, ctx));
        }
        return out;
      }
      case 'negated_command':
      case 'subshell':
      case 'compound_statement':
      case 'do_group':
      case 'else_clause':
      case 'program':
        return statementsWithBackground(n, n.type === 'subshell' ? { ...ctx, cwd: { value: ctx.cwd.value } } : ctx);
      case 'function_definition': {
        const name = n.childForFieldName('name')?.text ?? '';
        const body = n.childForFieldName('body');
        const inner = body ? statement(body, { ...ctx, inFunction: name, cwd: { value: ctx.cwd.value } }) : [];
        functions.set(name, inner);
        return inner;
      }
      case 'if_statement':
      case 'elif_clause':
      case 'while_statement':
      case 'for_statement':
      case 'c_style_for_statement':
      case 'case_statement':
      case 'case_item': {
        // Bodies may or may not run: a `cd` inside leaves the directory unknown afterwards.
        const before = ctx.cwd.value;
        const inner = { ...ctx, cwd: { value: before } };
        const out: SimpleCommand[] = [];
        for (const c of n.namedChildren) {
          if (!c) continue;
          if (
            [
              'word',
              'variable_name',
              'extglob_pattern',
              'string',
              'raw_string',
              'concatenation',
              'simple_expansion',
              'expansion',
              'number',
            ].includes(c.type)
          ) {
            out.push(...nested(c, ctx));
            continue;
          }
          out.push(...statement(c, inner));
        }
        if (inner.cwd.value !== before) ctx.cwd.value = null;
        return out;
      }
      case 'variable_assignment':
      case 'variable_assignments':
      case 'declaration_command':
      case 'unset_command':
      case 'test_command':
      case 'arithmetic_expansion':
      case 'parenthesized_expression':
      case 'binary_expression':
      case 'unary_expression':
      case 'ternary_expression':
      case 'postfix_expression': {
        const out = nested(n, ctx);
        if (n.type === 'declaration_command' || n.type === 'unset_command') {
          // `export FOO=…`, `declare -f`: treat as the builtin command it is.
          const words = n.namedChildren.flatMap((c) =>
            c && c.type !== 'variable_assignment' ? expandWord(c, scope) : [],
          );
          const kw = n.children[0];
          out.unshift({
            words: kw
              ? [{ value: kw.text, raw: kw.text, start: kw.startIndex, end: kw.endIndex, glob: false }, ...words]
              : words,
            assignments: n.namedChildren
              .filter((c): c is TsNode => c?.type === 'variable_assignment')
              .map((c) => ({
                name: c.childForFieldName('name')?.text ?? '',
                value: expandWord(c.childForFieldName('value') ?? c, scope)[0] ?? {
                  value: null,
                  raw: c.text,
                  start: c.startIndex,
                  end: c.endIndex,
                  glob: false,
                },
              })),
            redirects: [],
            stdin: undefined,
            inFunction: ctx.inFunction,
            background: ctx.background,
            pipedOut: false,
            cwd: ctx.cwd.value,
            start: n.startIndex,
            end: n.endIndex,
          });
        }
        return out;
      }
      default:
        return n.namedChildren.length ? statements(n.namedChildren, ctx) : [];
    }
  };

  /** Children in order, each `&` backgrounding the statement before it. */
  const statementsWithBackground = (n: TsNode, ctx: Context): SimpleCommand[] => {
    const out: SimpleCommand[] = [];
    let last: SimpleCommand[] = [];
    for (const c of n.children) {
      if (!c) continue;
      if (!c.isNamed) {
        if (c.text === '&') for (const x of last) x.background = true;
        continue;
      }
      last = statement(c, ctx);
      out.push(...last);
    }
    return out;
  };

  commands.push(...statementsWithBackground(root, { inFunction: undefined, background: false, cwd: { value: '.' } }));
  // Only command lines with arithmetic, an index, `let`, a numeric test or `@P` need the second walk.
  const evaluated = /\(\(|\$\[|\w\[|\blet\b|@P|-(eq|ne|lt|le|gt|ge)\b/.test(source) ? evaluatedNames(root) : [];
  return { source, commands, errors, functions, vars: scope.vars, evaluated };
}

const ARITHMETIC_TEST = /^-(eq|ne|lt|le|gt|ge)$/;

/** Variables the shell evaluates as code: arithmetic contexts and `${x@P}` (see ParsedScript.evaluated). */
function evaluatedNames(root: TsNode): NonNullable<ParsedScript['evaluated']> {
  const out: NonNullable<ParsedScript['evaluated']> = [];
  const names = (n: TsNode, how: 'arithmetic' | 'prompt') => {
    const visit = (m: TsNode) => {
      if (m.type === 'command_substitution') return;
      if (m.type === 'variable_name' || (m.type === 'word' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(m.text)))
        out.push({ name: m.text, how, start: m.startIndex, end: m.endIndex });
      for (const c of m.namedChildren) if (c) visit(c);
    };
    visit(n);
  };
  const visit = (n: TsNode) => {
    if (n.type === 'arithmetic_expansion' || (n.type === 'compound_statement' && n.text.startsWith('((')))
      names(n, 'arithmetic');
    else if (n.type === 'subscript') {
      const index = n.childForFieldName('index');
      if (index) names(index, 'arithmetic');
    } else if (n.type === 'binary_expression' && ARITHMETIC_TEST.test(n.childForFieldName('operator')?.text ?? ''))
      names(n, 'arithmetic');
    else if (n.type === 'command' && n.childForFieldName('name')?.text === 'let')
      for (const a of n.childrenForFieldName('argument'))
        for (const m of (a?.text ?? '').matchAll(/[A-Za-z_][A-Za-z0-9_]*/g))
          out.push({ name: m[0], how: 'arithmetic', start: a!.startIndex, end: a!.endIndex });
    const prompt = n.type === 'expansion' ? /^\$\{([A-Za-z_][A-Za-z0-9_]*)@P\}$/.exec(n.text) : null;
    if (prompt) out.push({ name: prompt[1]!, how: 'prompt', start: n.startIndex, end: n.endIndex });
    for (const c of n.namedChildren) if (c) visit(c);
  };
  visit(root);
  return out;
}
