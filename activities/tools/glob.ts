/**
 * Glob patterns and `.gitignore` rules for the file tools, as pure functions over `/`-separated
 * workspace-relative paths. `*` and `?` stay inside one path segment, `**` as a whole segment spans
 * any number of segments (elsewhere it acts like `*`, as in git), `[...]` is a character class, `\`
 * escapes. `{a,b}` alternatives belong to user globs only: a `.gitignore` reads braces literally,
 * as git does.
 */

export interface GlobOptions {
  /** Expand `{a,b}` alternatives (default true). */
  braces?: boolean;
  /** Default true. */
  caseSensitive?: boolean;
}

/** An anchored RegExp matching the whole path against `glob`. Throws SyntaxError for a bad class such as `[z-a]`. */
export function globToRegExp(glob: string, options: GlobOptions = {}): RegExp {
  const alternatives = options.braces === false ? [glob] : expandBraces(glob);
  return new RegExp(`^(?:${alternatives.map(globSource).join('|')})$`, options.caseSensitive === false ? 'i' : '');
}

const MAX_BRACE_EXPANSIONS = 1024;

/** `{a,b}` alternatives expanded (nested groups too); `{x}` without a comma and unbalanced braces stay literal. */
export function expandBraces(glob: string): string[] {
  const results: string[] = [];
  const expand = (g: string): void => {
    const group = findBraceGroup(g);
    if (!group) {
      results.push(g);
      if (results.length > MAX_BRACE_EXPANSIONS)
        throw new SyntaxError(`glob "${glob}" expands to more than ${MAX_BRACE_EXPANSIONS} alternatives`);
      return;
    }
    for (const alt of group.alternatives) expand(g.slice(0, group.start) + alt + g.slice(group.end));
  };
  expand(glob);
  return results;
}

function findBraceGroup(g: string): { start: number; end: number; alternatives: string[] } | undefined {
  for (let i = 0; i < g.length; i++) {
    if (g[i] === '\\') {
      i++;
      continue;
    }
    if (g[i] !== '{') continue;
    let depth = 0;
    let partStart = i + 1;
    const parts: string[] = [];
    for (let j = i; j < g.length; j++) {
      const c = g[j];
      if (c === '\\') j++;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        if (parts.length === 0) break; // `{x}`: no alternatives, a literal brace
        parts.push(g.slice(partStart, j));
        return { start: i, end: j + 1, alternatives: parts };
      } else if (c === ',' && depth === 1) {
        parts.push(g.slice(partStart, j));
        partStart = j + 1;
      }
    }
  }
  return undefined;
}

/** The RegExp source (unanchored) for one brace-free glob. */
export function globSource(glob: string): string {
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const c = glob[i]!;
    if (c === '*') {
      let j = i;
      while (glob[j] === '*') j++;
      const wholeSegment = j - i >= 2 && (i === 0 || glob[i - 1] === '/') && (j === glob.length || glob[j] === '/');
      if (!wholeSegment) out += '[^/]*';
      else if (j === glob.length)
        out += '.*'; // trailing `**`: everything below
      else {
        out += '(?:[^/]*/)*'; // `**/`: zero or more directories
        j++;
      }
      i = j;
    } else if (c === '?') {
      out += '[^/]';
      i++;
    } else if (c === '[') {
      const cls = charClass(glob, i);
      out += cls ? cls.source : '\\[';
      i = cls ? cls.end : i + 1;
    } else if (c === '\\' && i + 1 < glob.length) {
      out += escapeChar(glob[i + 1]!);
      i += 2;
    } else {
      out += escapeChar(c);
      i++;
    }
  }
  return out;
}

/** `[abc]`, `[a-z]`, `[!x]` / `[^x]`; undefined when unclosed or spanning a `/` (then `[` is literal). */
function charClass(glob: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  const negate = glob[i] === '!' || glob[i] === '^';
  if (negate) i++;
  let body = '';
  for (let first = true; i < glob.length; i++, first = false) {
    const c = glob[i]!;
    if (c === ']' && !first) return { source: negate ? `[^/${body}]` : `[${body}]`, end: i + 1 };
    if (c === '/') return undefined;
    if (c === '\\' && i + 1 < glob.length) {
      i++;
      body += escapeChar(glob[i]!);
    } else body += c === '[' || c === ']' || c === '^' ? `\\${c}` : c;
  }
  return undefined;
}

function escapeChar(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/**
 * A file filter from a user glob. An alternative without `/` matches the file name at any depth
 * (`*.ts`); one with `/` matches a whole relative path (`src/**\/*.ts`). The caller passes the
 * paths to try (e.g. relative to the workspace and to the search root); any match counts.
 */
export function fileGlobMatcher(glob: string, caseSensitive = true): (paths: readonly string[]) => boolean {
  const flags = caseSensitive ? '' : 'i';
  const byName: string[] = [];
  const byPath: string[] = [];
  for (const alt of expandBraces(glob)) {
    const g = alt.replace(/^(?:\.\/)+/, '').replace(/^\/+/, '');
    (g.includes('/') ? byPath : byName).push(globSource(g));
  }
  const nameRe = byName.length ? new RegExp(`^(?:${byName.join('|')})$`, flags) : undefined;
  const pathRe = byPath.length ? new RegExp(`^(?:${byPath.join('|')})$`, flags) : undefined;
  return (paths) =>
    paths.some((p) => (nameRe?.test(p.slice(p.lastIndexOf('/') + 1)) ?? false) || (pathRe?.test(p) ?? false));
}

/** One `.gitignore` line, compiled. */
export interface IgnoreRule {
  /** Tested against the path relative to the directory holding the `.gitignore`. */
  regex: RegExp;
  /** `!pattern`: re-include what an earlier rule excluded. */
  negate: boolean;
  /** `pattern/`: matches directories only. */
  dirOnly: boolean;
}

/** The rules of one `.gitignore`, with the workspace-relative directory it sits in (`''` for the root). */
export interface IgnoreFile {
  dir: string;
  rules: IgnoreRule[];
}

/**
 * Parse a `.gitignore`: blank lines and `#` comments are skipped, trailing spaces dropped unless
 * escaped, `!` negates, a trailing `/` limits the rule to directories, and a `/` at the start or in
 * the middle anchors the pattern to the file's directory (otherwise it matches at any depth).
 * A pattern git could not use (a bad character class) is skipped, as git does.
 */
export function parseGitignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = trimTrailingSpaces(raw);
    if (line === '' || line.startsWith('#')) continue;
    const negate = line.startsWith('!');
    if (negate) line = line.slice(1);
    const dirOnly = line.endsWith('/');
    line = line.replace(/\/+$/, '');
    const anchored = line.includes('/');
    line = line.replace(/^\/+/, '');
    if (line === '') continue;
    const body = globSource(line);
    try {
      rules.push({ regex: new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`), negate, dirOnly });
    } catch {
      // an invalid pattern ignores nothing
    }
  }
  return rules;
}

function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ' && line[end - 2] !== '\\') end--;
  return line.slice(0, end);
}

/**
 * Whether `path` (workspace-relative, `/`-separated) is ignored. `files` run from the root down, so
 * a deeper `.gitignore` overrides a shallower one; within and across files the last matching rule
 * wins. The caller does not descend into ignored directories, which is why a file inside an
 * excluded directory cannot be re-included (git's rule too).
 */
export function isIgnored(files: readonly IgnoreFile[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const file of files) {
    let rel: string;
    if (file.dir === '') rel = path;
    else if (path.startsWith(`${file.dir}/`)) rel = path.slice(file.dir.length + 1);
    else continue;
    for (const rule of file.rules) {
      if (rule.dirOnly && !isDir) continue;
      if (rule.regex.test(rel)) ignored = !rule.negate;
    }
  }
  return ignored;
}
