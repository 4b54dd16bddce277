/**
 * Walking tree-sitter-bash's tree into the simple commands that will run, wherever they sit (lists,
 * pipelines, compound statements, functions, substitutions, heredoc bodies), each with its
 * redirections, what it reads on standard input, and the directory `cd` leaves it in.
 */
import type { SyntaxNode } from './shell-tree.js';
import type { ParsedScript, Redirect, SimpleCommand, Stdin, Word } from './shell.js';
import type { Scope } from './shell-expand.js';
import { WORD_NODES, expandWord } from './shell-expand.js';
import { collectAssignments, evaluatedNames } from './shell-vars.js';
import { lastStatement, lineCommands, mergedBackticks, substitutionsIn } from './shell-misreads.js';

interface Context {
  inFunction: string | undefined;
  background: boolean;
  cwd: { value: string | null };
}

/** A simple command found at node `n`: where it runs and how, from the walk's context (written out, not spread: see shell-expand.ts). */
function simpleCommand(
  n: SyntaxNode,
  ctx: Context,
  parts: Pick<SimpleCommand, 'words' | 'assignments' | 'redirects' | 'stdin'>,
): SimpleCommand {
  return {
    words: parts.words,
    assignments: parts.assignments,
    redirects: parts.redirects,
    stdin: parts.stdin,
    inFunction: ctx.inFunction,
    background: ctx.background,
    pipedOut: false,
    cwd: ctx.cwd.value,
    start: n.startIndex,
    end: n.endIndex,
  };
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

/** A loop condition that always holds (`while true`, `while :`, `until false`, `for ((;;))`). */
const ENDLESS_LOOP =
  /^(?:while\s+(?:true|:|\/bin\/true|\[\s*1\s*\]|\[\[\s*1\s*\]\]|\(\(\s*1\s*\)\))|until\s+(?:false|\/bin\/false)|for\s*\(\([^;]*;\s*;)\s*(?:;|\n|do\b|\))/;

/** Text that may hold a command or process substitution. */
const SUBSTITUTION = /\$\(|`|[<>]\(/;

export function walk(
  root: SyntaxNode,
  source: string,
  inherited?: ReadonlyMap<string, Array<string | null>>,
): ParsedScript {
  // A script run by the same shell (a trap, `eval`, `source`) sees the variables set before it.
  const scope: Scope = { vars: new Map([...(inherited ?? [])].map(([k, v]) => [k, [...v]])), source };
  collectAssignments(root, scope);
  const commands: SimpleCommand[] = [];
  const errors: Array<{ start: number; end: number }> = [];
  const functions = new Map<string, SimpleCommand[]>();
  const functionTexts = new Map<string, string>();
  const endlessLoops: NonNullable<ParsedScript['endlessLoops']> = [];
  const rereads: Array<{ text: string; start: number; end: number }> = [];
  /** A span tree-sitter-bash misread: reported, and its substitutions read again from the text. */
  const misread = (n: SyntaxNode, text: string) => {
    errors.push({ start: n.startIndex, end: n.endIndex });
    for (const t of substitutionsIn(text)) rereads.push({ text: t, start: n.startIndex, end: n.endIndex });
  };

  const findErrors = (n: SyntaxNode) => {
    if (n.type === 'ERROR' || n.isMissing) {
      errors.push({ start: n.startIndex, end: n.endIndex });
      // What an error spans is not read as commands: each of its lines is read on its own
      // (`(( x++ );⏎) ||⏎rm -rf ~` is all one error), so what it hides keeps its own level.
      const lines = n.type === 'ERROR' ? n.text.split('\n').filter((l) => l.trim()) : [];
      if (lines.length > 1)
        for (const t of lines.slice(0, 32)) rereads.push({ text: t, start: n.startIndex, end: n.endIndex });
    } else if (n.hasError) for (const c of n.children) findErrors(c);
  };
  findErrors(root);

  /** Commands nested anywhere inside a node (substitutions in words, arithmetic, test expressions). */
  const nested = (n: SyntaxNode, ctx: Context, found: SimpleCommand[] = []): SimpleCommand[] => {
    // Most words hold no `$(…)`, backtick, `<(…)` or `>(…)`: nothing to look for (nor children to fetch).
    if (!SUBSTITUTION.test(n.text)) return found;
    if (mergedBackticks(n)) misread(n, n.text);
    if (n.type === 'command_substitution' || n.type === 'process_substitution')
      found.push(...statements(n.namedChildren, { ...ctx, cwd: { value: ctx.cwd.value } }));
    else for (const c of n.namedChildren) nested(c, ctx, found);
    return found;
  };

  const redirectOf = (
    r: SyntaxNode,
    ctx: Context,
    out: SimpleCommand[],
  ): { redirect: Redirect; stdin?: Stdin; rest?: SyntaxNode[]; args?: SyntaxNode[] } => {
    const fdNode = r.namedChildren.find((c) => c.type === 'file_descriptor');
    const fd = fdNode ? Number(fdNode.text) : null;
    const op = r.children.find((c) => !c.isNamed && /[<>&|]/.test(c.text))?.text ?? '';
    if (r.type === 'heredoc_redirect') {
      const start = r.namedChildren.find((c) => c.type === 'heredoc_start');
      const body = r.namedChildren.find((c) => c.type === 'heredoc_body');
      const quoted = !!start && /['"\\]/.test(start.text);
      const expansions =
        !!body && body.namedChildren.some((c) => c.type !== 'heredoc_content' && c.type !== 'heredoc_end');
      const text = body ? source.slice(body.startIndex, body.endIndex) : '';
      if (body) {
        const inBody = nested(body, ctx);
        // `<<-EOF` with a tab-indented `$(…)` line: tree-sitter-bash leaves the substitution out.
        const seen = body.namedChildren.filter((c) => c.type === 'command_substitution').length;
        if (!quoted && substitutionsIn(text).length > seen) misread(body, text);
        out.push(...inBody);
      }
      // The rest of the line after `<<EOF` (`| psql`, `> file`, `&& next`) sits inside the redirect
      // node; so do the command's own words after it (`sudo <<EOF rm -rf ~`).
      const args = r.childrenForFieldName('argument');
      const rest = r.namedChildren.filter(
        (c) =>
          !args.includes(c) && !['heredoc_start', 'heredoc_body', 'heredoc_end', 'file_descriptor'].includes(c.type),
      );
      return {
        redirect: { op: op || '<<', fd, target: null },
        stdin: { kind: 'text', text: quoted || !expansions ? text : null },
        rest,
        args,
      };
    }
    if (r.type === 'herestring_redirect') {
      const value = r.namedChildren.find((c) => c.type !== 'file_descriptor');
      if (value) out.push(...nested(value, ctx));
      const words = value ? expandWord(value, scope) : [];
      const text = words.length && words.every((w) => w.value !== null) ? words.map((w) => w.value).join(' ') : null;
      return { redirect: { op: '<<<', fd, target: null }, stdin: { kind: 'text', text } };
    }
    // tree-sitter-bash hangs the command's words after a redirection on it as more destinations
    // (`env < f rm -rf ~`, `rm 2>&1 -rf ~`): the first is the target, the others are arguments.
    // `3>&-` closes a descriptor and takes no target: every word after it is an argument.
    const closes = op === '>&-' || op === '<&-';
    const dests = closes
      ? r.namedChildren.filter((c) => c.type !== 'file_descriptor')
      : r.childrenForFieldName('destination');
    const dest = closes ? undefined : (dests[0] ?? r.namedChildren.find((c) => c.type !== 'file_descriptor'));
    const args = closes ? dests : dests.slice(1);
    if (dest?.type === 'process_substitution') {
      const inner = statements(dest.namedChildren, { ...ctx, cwd: { value: ctx.cwd.value } });
      out.push(...inner);
      return {
        redirect: { op, fd, target: null },
        ...(op === '<' ? { stdin: { kind: 'process', commands: inner } } : {}),
        args,
      };
    }
    if (dest) out.push(...nested(dest, ctx));
    const target = dest ? (expandWord(dest, scope)[0] ?? null) : null;
    return {
      redirect: { op, fd, target },
      ...(op === '<' && target && (fd === null || fd === 0) ? { stdin: { kind: 'file', path: target } } : {}),
      args,
    };
  };

  /** `NAME=value` as the name and its value's one word (unknown when it is several). */
  const assignmentOf = (c: SyntaxNode): { name: string; value: Word } => {
    const value = c.childForFieldName('value');
    const w = value ? expandWord(value, scope) : [];
    return {
      name: c.childForFieldName('name')?.text ?? '',
      value:
        w.length === 1
          ? w[0]!
          : { value: w.length ? null : '', raw: value?.text ?? '', start: c.startIndex, end: c.endIndex, glob: false },
    };
  };

  /**
   * A word of a command: its value(s) into `words`, the commands in its substitutions into `extra`.
   * `0<f`, `2>x` and `{fd}>f` glued to a redirection are its file descriptor, which tree-sitter-bash
   * sometimes reads as a word of the command (`0<f rm -rf ~` as the command `0`).
   */
  const argument = (n: SyntaxNode, ctx: Context, words: Word[], extra: SimpleCommand[]): void => {
    if (/^(\d+|\{[A-Za-z_]\w*\})$/.test(n.text) && /^[<>]/.test(source.slice(n.endIndex, n.endIndex + 1))) return;
    extra.push(...nested(n, ctx));
    words.push(...expandWord(n, scope));
  };

  /** One `command` node (with the redirects of its redirected_statement). */
  const command = (n: SyntaxNode, redirects: SyntaxNode[], ctx: Context): SimpleCommand[] => {
    const extra: SimpleCommand[] = [];
    const words: Word[] = [];
    const assignments: Array<{ name: string; value: Word }> = [];
    const reds: Redirect[] = [];
    const continuations: SyntaxNode[] = [];
    let stdin: Stdin | undefined;
    for (const c of n.namedChildren) {
      if (c.type === 'variable_assignment') {
        const value = c.childForFieldName('value');
        if (value) extra.push(...nested(value, ctx));
        assignments.push(assignmentOf(c));
      } else if (c.type === 'file_redirect' || c.type === 'heredoc_redirect' || c.type === 'herestring_redirect') {
        const r = redirectOf(c, ctx, extra);
        reds.push(r.redirect);
        if (r.stdin) stdin = r.stdin;
        if (r.rest) continuations.push(...r.rest);
        for (const a of r.args ?? []) argument(a, ctx, words, extra);
      } else if (c.type === 'command_name') {
        const inner = c.namedChildren[0];
        if (inner) argument(inner, ctx, words, extra);
      } else argument(c, ctx, words, extra);
    }
    for (const r of redirects) {
      const x = redirectOf(r, ctx, extra);
      reds.push(x.redirect);
      if (x.stdin) stdin = x.stdin;
      if (x.rest) continuations.push(...x.rest);
      for (const a of x.args ?? []) argument(a, ctx, words, extra);
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
    // A command ends at an unescaped newline, whatever tree-sitter-bash made of it (shell-misreads.ts).
    const [own, ...later] = lineCommands(words, source, errors);
    words.splice(0, words.length, ...own!);
    extra.unshift(
      ...later.map((line) => simpleCommand(n, ctx, { words: line, assignments: [], redirects: [...reds], stdin })),
    );
    const cmd = simpleCommand(n, ctx, {
      words,
      assignments,
      redirects: reds,
      stdin,
    });
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
  const statements = (nodes: ReadonlyArray<SyntaxNode | null>, ctx: Context): SimpleCommand[] => {
    const out: SimpleCommand[] = [];
    for (const n of nodes) if (n) out.push(...statement(n, ctx));
    return out;
  };

  /** Redirections tree-sitter-bash put on a list or pipeline, by the statement they belong to. */
  const adopted = new Map<SyntaxNode, SyntaxNode[]>();

  /** A statement with redirections: a command's own, or those of a compound statement, which apply to every command inside. */
  const redirected = (body: SyntaxNode, reds: SyntaxNode[], ctx: Context): SimpleCommand[] => {
    if (body.type === 'command') return command(body, reds, ctx);
    const inner = statement(body, ctx);
    const extra: SimpleCommand[] = [];
    const red: Redirect[] = [];
    const words: Word[] = [];
    let stdin: Stdin | undefined;
    for (const r of reds) {
      const x = redirectOf(r, ctx, extra);
      red.push(x.redirect);
      if (x.stdin) stdin = x.stdin;
      for (const a of x.args ?? []) argument(a, ctx, words, extra);
    }
    // `ls | A=1 >f rm -rf ~`: the words after the redirection are the command the assignment was for.
    if (words.length)
      inner.push(
        simpleCommand(body, ctx, {
          words,
          assignments: body.type === 'variable_assignment' ? [assignmentOf(body)] : [],
          redirects: [],
          stdin: undefined,
        }),
      );
    for (const c of inner) {
      c.redirects.push(...red);
      if (stdin && !c.stdin) c.stdin = stdin;
    }
    return [...inner, ...extra];
  };

  const statement = (n: SyntaxNode, ctx: Context, redirects: SyntaxNode[] = []): SimpleCommand[] => {
    const reds = adopted.get(n);
    if (reds) {
      adopted.delete(n);
      return redirected(n, [...redirects, ...reds], ctx);
    }
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
          simpleCommand(n, ctx, {
            words: [],
            assignments: [],
            redirects: [r.redirect],
            stdin: r.stdin,
          }),
          ...extra,
        ];
      }
      case 'command':
        return command(n, redirects, ctx);
      case 'redirected_statement': {
        const body = n.childForFieldName('body');
        const reds = n.namedChildren.filter((c) => c !== body && /redirect$/.test(c.type));
        if (!body) {
          // A redirection alone (`> /dev/sda`): a command with no words.
          const fake: SimpleCommand[] = [];
          const red: Redirect[] = [];
          for (const r of reds) red.push(redirectOf(r, ctx, fake).redirect);
          return [
            simpleCommand(n, ctx, {
              words: [],
              assignments: [],
              redirects: red,
              stdin: undefined,
            }),
            ...fake,
          ];
        }
        // tree-sitter-bash hangs a redirection after the last command of a list or pipeline
        // (`a && b >f`, `a | b <f`) on the whole of it; bash gives it to that last command alone.
        // So does `! cmd >f args` (the negation is of no interest here).
        if (body.type === 'list' || body.type === 'pipeline' || body.type === 'negated_command') {
          adopted.set(lastStatement(body, ['list', 'pipeline', 'negated_command']), reds);
          return statement(body, ctx);
        }
        return redirected(body, reds, ctx);
      }
      case 'pipeline': {
        const parts = n.namedChildren.filter((c) => c.type !== 'comment');
        const out: SimpleCommand[] = [];
        let previous: SimpleCommand[] = [];
        for (const [i, p] of parts.entries()) {
          const cmds = statement(p, { ...ctx, cwd: { value: ctx.cwd.value } });
          // The first command of this stage reads what the stage before wrote.
          const head = cmds[0];
          if (head && i > 0 && !head.stdin) head.stdin = { kind: 'pipe', from: previous };
          // What writes into the next stage: all of it, but for tree-sitter-bash's `(a && b <f) | c`,
          // which bash reads as `a && (b <f | c)`.
          const tail = lastStatement(p, ['redirected_statement', 'list']).startIndex;
          const writers = cmds.filter((c) => c.start >= tail);
          if (i < parts.length - 1) for (const c of writers) c.pipedOut = true;
          previous = writers;
          out.push(...cmds);
        }
        return out;
      }
      case 'list': {
        // `a && b`, `a || b`, `a; b`, `a & b`: in order; a trailing `&` backgrounds what precedes it.
        const out: SimpleCommand[] = [];
        for (const c of n.children) {
          if (!c.isNamed) {
            if (c.type === '&') for (const x of out) x.background = true;
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
        if (body) functionTexts.set(name, body.text);
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
          // A loop's variable and values, a case's subject and patterns: words, not statements.
          if (WORD_NODES.has(c.type) || c.type === 'variable_name' || c.type === 'extglob_pattern') {
            out.push(...nested(c, ctx));
            continue;
          }
          out.push(...statement(c, inner));
        }
        if (inner.cwd.value !== before) ctx.cwd.value = null;
        if ((n.type === 'while_statement' || n.type === 'c_style_for_statement') && ENDLESS_LOOP.test(n.text))
          endlessLoops.push({ start: n.startIndex, end: n.endIndex, commands: out });
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
          // A bare name (`unset HISTFILE`, `export PATH`) is the literal word it is.
          const words = n.namedChildren.flatMap((c) =>
            c.type === 'variable_assignment'
              ? []
              : c.type === 'variable_name'
                ? [{ value: c.text, raw: c.text, start: c.startIndex, end: c.endIndex, glob: false }]
                : expandWord(c, scope),
          );
          const kw = n.children[0];
          out.unshift(
            simpleCommand(n, ctx, {
              words: kw
                ? [{ value: kw.text, raw: kw.text, start: kw.startIndex, end: kw.endIndex, glob: false }, ...words]
                : words,
              assignments: n.namedChildren.filter((c) => c.type === 'variable_assignment').map(assignmentOf),
              redirects: [],
              stdin: undefined,
            }),
          );
        } else if (n.type === 'variable_assignment' || n.type === 'variable_assignments') {
          // `PATH=.:$PATH`, `HISTFILE=/dev/null` on their own set the shell's own variables, which
          // every later command of the line runs with: judged as a command's environment is. IFS
          // on its own (`IFS=$'\n'` before a loop) is the everyday idiom and changes no program.
          const set = (n.type === 'variable_assignment' ? [n] : n.namedChildren)
            .filter((c) => c.type === 'variable_assignment')
            .map(assignmentOf)
            .filter((a) => a.name !== 'IFS');
          if (set.length)
            out.unshift(simpleCommand(n, ctx, { words: [], assignments: set, redirects: [], stdin: undefined }));
        }
        return out;
      }
      default:
        return n.namedChildren.length ? statements(n.namedChildren, ctx) : [];
    }
  };

  /** Children in order, each `&` backgrounding the statement before it. */
  const statementsWithBackground = (n: SyntaxNode, ctx: Context): SimpleCommand[] => {
    const out: SimpleCommand[] = [];
    let last: SimpleCommand[] = [];
    for (const c of n.children) {
      if (!c.isNamed) {
        if (c.type === '&') for (const x of last) x.background = true;
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
  return {
    source,
    commands,
    errors,
    functions,
    ...(functionTexts.size ? { functionTexts } : {}),
    vars: scope.vars,
    evaluated,
    ...(scope.fetched ? { fetched: scope.fetched } : {}),
    ...(endlessLoops.length ? { endlessLoops } : {}),
    ...(rereads.length ? { rereads } : {}),
  };
}
