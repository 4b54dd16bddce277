/**
 * What a command line does with its variables, read before its commands are walked: every literal
 * value each variable is assigned (for static expansion), and the variables the shell evaluates as
 * code (arithmetic contexts, `let`, an array index, `${x@P}`).
 */
import type { SyntaxNode } from './shell-tree.js';
import type { ParsedScript } from './shell.js';
import type { Scope } from './shell-expand.js';
import { printfText } from './decoders.js';
import { expandWord } from './shell-expand.js';

/** A value that is the output of a network client: `$(curl -s …)`, `` `wget -qO- …` ``. */
const FETCHED = /^["']?(?:\$\(|`)\s*(?:\S*\/)?(?:curl|wget|nc|ncat|http|https|xh|fetch|aria2c|lynx|w3m)\b/;

/**
 * Commands that set a variable named by an operand (`read x`) or the positional parameters
 * (`set -- a b`); the walk looks for them only when the text names one.
 */
const READERS = /\b(?:read|mapfile|readarray|getopts|printf|set)\b/;

export function collectAssignments(root: SyntaxNode, scope: Scope): void {
  const readers = READERS.test(scope.source);
  const add = (name: string, value: string | null) => {
    const list = scope.vars.get(name) ?? [];
    list.push(value);
    scope.vars.set(name, list);
  };
  const visit = (n: SyntaxNode) => {
    // `declare -n ref=x`: ref is a name for x, whatever x holds at run time.
    if (n.type === 'declaration_command' && n.namedChildren.some((c) => c.type === 'word' && /^-\w*n/.test(c.text)))
      for (const c of n.namedChildren)
        if (c.type === 'variable_assignment') add(c.childForFieldName('name')?.text ?? '', null);
    if (n.type === 'variable_assignment') {
      const name = n.childForFieldName('name')?.text;
      const value = n.childForFieldName('value');
      if (name) {
        // `x+=…` appends, arrays and substitutions are not single literal values.
        const op = n.children.find((c) => !c.isNamed)?.text;
        if (value && FETCHED.test(value.text)) (scope.fetched ??= new Set()).add(name);
        if (!value) add(name, '');
        else if (op === '+=' || value.type === 'array') {
          add(name, null);
          // `a=(rm -rf /boot)`: `"${a[@]}"` is those words, one each.
          const items = value.type === 'array' && op !== '+=' ? arrayWords(value, scope) : null;
          add(`${name}[@]`, items === null ? null : items.join(' '));
        } else {
          const words = expandWord(value, { vars: new Map(), source: scope.source });
          add(name, words.length === 1 && words[0]!.value !== null ? words[0]!.value : null);
        }
      }
    } else if (n.type === 'for_statement') {
      const v = n.childForFieldName('variable')?.text;
      const values = n.childrenForFieldName('value');
      if (v) {
        if (!values.length) add(v, null);
        for (const val of values)
          for (const w of expandWord(val, { vars: new Map(), source: scope.source })) add(v, w.value);
      }
    } else if (n.type === 'command' && readers) {
      // `read x`, `mapfile`, `printf -v x`, `getopts`: a value the script cannot show.
      const name = n.childForFieldName('name')?.text;
      if (name === 'printf') printfAssignment(n, scope, add);
      else if (name === 'read' || name === 'mapfile' || name === 'readarray' || name === 'getopts') {
        for (const a of n.childrenForFieldName('argument'))
          if (a && /^[A-Za-z_][A-Za-z0-9_]*$/.test(a.text)) add(a.text, null);
      } else if (name === 'set') positionals(n, scope, add);
    } else if (n.type === 'unset_command') {
      // `unset D; rm -rf "$D"/*`: an unset variable expands to nothing (`unset -f` removes functions).
      const args = n.namedChildren.map((a) => a.text);
      if (!args.some((a) => /^-\w*f/.test(a))) for (const a of args) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(a)) add(a, '');
    }
    for (const c of n.namedChildren) if (!LEAVES.has(c.type)) visit(c);
  };
  visit(root);
}

/**
 * `printf -v c '%s' shut down`: c is what printf would print, when the format holds only `%s`
 * (used again for each group of arguments, as printf does) and every word is known.
 */
function printfAssignment(n: SyntaxNode, scope: Scope, add: (name: string, value: string | null) => void): void {
  const args = n.childrenForFieldName('argument');
  const at = args.findIndex((a) => a.text === '-v');
  const name = args[at + 1]?.text;
  if (at < 0 || !name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return;
  const words = args
    .slice(at + 2)
    .flatMap((a) => expandWord(a, { vars: new Map(), source: scope.source }).map((w) => w.value));
  const [format, ...rest] = words;
  add(name, format == null || rest.includes(null) ? null : printfText(format, rest as string[]));
}

/** The words of an array literal, when each is known. */
function arrayWords(array: SyntaxNode, scope: Scope): string[] | null {
  const words = array.namedChildren.flatMap((c) =>
    expandWord(c, { vars: new Map(), source: scope.source }).map((w) => w.value),
  );
  return words.every((w): w is string => w !== null) ? words : null;
}

/**
 * `set -- rm -rf ~` (or `set a b` without options): the positional parameters `$1`…, `$@` and `$*`
 * take these words, so `"$@"` later runs them.
 */
function positionals(n: SyntaxNode, scope: Scope, add: (name: string, value: string | null) => void): void {
  const args = n.childrenForFieldName('argument');
  const dashes = args.findIndex((a) => a.text === '--');
  if (dashes < 0 && (!args.length || /^[-+]/.test(args[0]!.text))) return;
  const words = args
    .slice(dashes + 1)
    .flatMap((a) => expandWord(a, { vars: new Map(), source: scope.source }).map((w) => w.value));
  const known = words.every((w): w is string => w !== null);
  add('@', known ? words.join(' ') : null);
  add('*', known ? words.join(' ') : null);
  words.forEach((w, i) => add(String(i + 1), w));
}

/** Nodes that hold no assignment, loop or command: not descended into (each step asks the parser for children). */
const LEAVES = new Set([
  'word',
  'number',
  'raw_string',
  'ansi_c_string',
  'string_content',
  'variable_name',
  'special_variable_name',
  'file_descriptor',
  'comment',
  'heredoc_start',
  'heredoc_end',
  'heredoc_content',
  'regex',
  'test_operator',
  'extglob_pattern',
]);

const ARITHMETIC_TEST = /^-(eq|ne|lt|le|gt|ge)$/;

/** Variables the shell evaluates as code: arithmetic contexts and `${x@P}` (see ParsedScript.evaluated). */
export function evaluatedNames(root: SyntaxNode): NonNullable<ParsedScript['evaluated']> {
  const out: NonNullable<ParsedScript['evaluated']> = [];
  const names = (n: SyntaxNode, how: 'arithmetic' | 'prompt') => {
    const visit = (m: SyntaxNode) => {
      if (m.type === 'command_substitution') return;
      if (m.type === 'variable_name' || (m.type === 'word' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(m.text)))
        out.push({ name: m.text, how, start: m.startIndex, end: m.endIndex });
      for (const c of m.namedChildren) visit(c);
    };
    visit(n);
  };
  const visit = (n: SyntaxNode) => {
    if (n.type === 'arithmetic_expansion' || (n.type === 'compound_statement' && n.text.startsWith('((')))
      names(n, 'arithmetic');
    else if (n.type === 'subscript') {
      const index = n.childForFieldName('index');
      if (index) names(index, 'arithmetic');
    } else if (n.type === 'binary_expression' && ARITHMETIC_TEST.test(n.childForFieldName('operator')?.text ?? ''))
      names(n, 'arithmetic');
    else if (n.type === 'command' && n.childForFieldName('name')?.text === 'let')
      for (const a of n.childrenForFieldName('argument'))
        for (const m of a.text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g))
          out.push({ name: m[0], how: 'arithmetic', start: a.startIndex, end: a.endIndex });
    const prompt = n.type === 'expansion' ? /^\$\{([A-Za-z_][A-Za-z0-9_]*)@P\}$/.exec(n.text) : null;
    if (prompt) out.push({ name: prompt[1]!, how: 'prompt', start: n.startIndex, end: n.endIndex });
    for (const c of n.namedChildren) visit(c);
  };
  visit(root);
  return out;
}
