/**
 * Reading a bash command the way bash would, for the approval gate (docs/command-safety.md). The syntax comes
 * from tree-sitter-bash (through web-tree-sitter: WASM, no native build, synchronous once loaded);
 * this module and its parts (shell-walk.ts, shell-expand.ts, shell-vars.ts) turn its tree into the
 * simple commands that will run — wherever they sit: lists, pipelines, `if`/`while`/`for`/`case`/
 * `select`, functions, subshells, `$(…)`, backticks, `<(…)`/`>(…)`, heredoc bodies, arithmetic —
 * each with its words expanded as far as they can be known without running anything.
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
import type { Tree } from 'web-tree-sitter';
import { Language, Parser } from 'web-tree-sitter';
import { chainsAsSequences, chainsHeld } from './shell-chains.js';
import { MAY_PREFIX, blankCompoundPrefixes, spaceOutIfs } from './shell-misreads.js';
import type { SyntaxNode } from './shell-tree.js';
import { viewTree } from './shell-tree.js';
import { walk } from './shell-walk.js';

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
  /** When the value is unknown because the line assigns its variable several values: the literal ones (`x=$(…); x=/`). */
  maybe?: string[];
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
  /** The text of each function's body, read again with the arguments of a call (classify.ts). */
  functionTexts?: Map<string, string>;
  /** Every literal value each variable is assigned (null: a value only known at run time). */
  vars?: Map<string, Array<string | null>>;
  /**
   * Variables whose value the shell evaluates as code: in arithmetic (`(( a ))`, `$(( a ))`,
   * `let`, an array index — `a='x[$(cmd)]'` runs cmd) or by prompt expansion (`${a@P}`).
   */
  evaluated?: Array<{ name: string; how: 'arithmetic' | 'prompt'; start: number; end: number }>;
  /** Variables assigned the output of a network fetch (Scope.fetched). */
  fetched?: ReadonlySet<string>;
  /** Loops whose condition always holds (`while true`), with the commands in them. */
  endlessLoops?: Array<{ start: number; end: number; commands: SimpleCommand[] }>;
  /**
   * Texts to read on their own, with the span they come from: the substitutions of spans
   * tree-sitter-bash misread (shell-misreads.ts) and the lines of ERROR spans.
   */
  rereads?: Array<{ text: string; start: number; end: number }>;
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

/** `asWritten`: parse the text as it is, without reading chains as sequences (for the test that they read the same). */
export function parseShell(
  source: string,
  o: { asWritten?: boolean; vars?: ReadonlyMap<string, Array<string | null>> } = {},
): ParsedScript {
  if (!parser) throw new Error('the shell parser is not loaded: await loadShellParser() first');
  const spaced = source.includes('IFS') ? spaceOutIfs(source) : source;
  const text = MAY_PREFIX.test(spaced) ? blankCompoundPrefixes(spaced) : spaced;
  const trees: Tree[] = [];
  try {
    const root = parseFast(parser, text, trees, o.asWritten === true);
    return root
      ? walk(root, text, o.vars)
      : { source, commands: [], errors: [{ start: 0, end: source.length }], functions: new Map() };
  } finally {
    for (const t of trees) t.delete();
  }
}

/**
 * The tree of `text`, parsed with its top-level `&&`/`||` chains as `;` when that reads the same
 * (shell-chains.ts), else as written. The view reads node text from `text` itself. Trees made go
 * into `trees`, for the caller to free.
 */
function parseFast(p: Parser, text: string, trees: Tree[], asWritten: boolean): SyntaxNode | null {
  const chains = asWritten ? null : chainsAsSequences(text);
  if (chains) {
    const tree = p.parse(chains.text);
    if (tree) {
      trees.push(tree);
      const root = viewTree(tree, text);
      if (chainsHeld(root, chains.at)) return root;
    }
  }
  const tree = p.parse(text);
  if (!tree) return null;
  trees.push(tree);
  return viewTree(tree, text);
}
