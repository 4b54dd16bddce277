/**
 * Glob patterns and `.gitignore` rules for the file tools, over `/`-separated workspace-relative
 * paths. Both are solved problems, so both are libraries (docs/architecture.md, "Libraries"):
 * - globs: minimatch, npm's own matcher (glob, eslint). `*` and `?` stay inside one path segment,
 *   `**` as a whole segment spans any number of segments, `[...]` and `[!...]` are character
 *   classes, `\` escapes, and `{a,b}` alternatives are expanded by its brace-expansion (bash's
 *   rules). It is configured as a plain glob: dot files match, and a leading `!`, `#` or extglob
 *   syntax such as `+(x)` is literal, so a model's glob means what it says.
 * - `.gitignore`: ignore, the implementation eslint uses, which follows git's documented rules
 *   (anchoring, trailing `/` for directories, `!` negation, escaped spaces and `#`).
 */
import type { MinimatchOptions } from 'minimatch';
import { Minimatch, braceExpand } from 'minimatch';
import type { Ignore } from 'ignore';
import ignore from 'ignore';

export interface GlobOptions {
  /** Expand `{a,b}` alternatives (default true). */
  braces?: boolean;
  /** Default true. */
  caseSensitive?: boolean;
}

const MATCH: MinimatchOptions = { dot: true, nonegate: true, nocomment: true, noext: true, platform: 'linux' };

const MAX_BRACE_EXPANSIONS = 1024;

/** Whether a whole path matches `glob`. Throws SyntaxError for a bad class such as `[z-a]`. */
export function globMatcher(glob: string, options: GlobOptions = {}): (path: string) => boolean {
  if (options.braces !== false) expandBraces(glob); // the expansion bound, checked
  const m = new Minimatch(glob, {
    ...MATCH,
    nobrace: options.braces === false,
    nocase: options.caseSensitive === false,
  });
  usable(m, glob);
  return (path) => m.match(path);
}

/**
 * minimatch compiles a character class no regex can hold (`[z-a]`) to `$.`, which matches nothing;
 * the model is told its glob is invalid instead of finding no files.
 */
function usable(m: Minimatch, glob: string): void {
  const re = m.makeRe();
  if (!re || /(?:^|[^\\])\$\./.test(re.source)) throw new SyntaxError(`"${glob}" has an invalid character class`);
}

/** `{a,b}` alternatives expanded (nested groups and `{1..3}` ranges too); `{x}` and unbalanced braces stay literal. */
export function expandBraces(glob: string): string[] {
  const alternatives = braceExpand(glob, { braceExpandMax: MAX_BRACE_EXPANSIONS + 1 });
  if (alternatives.length > MAX_BRACE_EXPANSIONS)
    throw new SyntaxError(`glob "${glob}" expands to more than ${MAX_BRACE_EXPANSIONS} alternatives`);
  return alternatives;
}

/**
 * A file filter from a user glob. An alternative without `/` matches the file name at any depth
 * (`*.ts`); one with `/` matches a whole relative path (`src/**\/*.ts`). The caller passes the
 * paths to try (e.g. relative to the workspace and to the search root); any match counts.
 */
export function fileGlobMatcher(glob: string, caseSensitive = true): (paths: readonly string[]) => boolean {
  const byName: Minimatch[] = [];
  const byPath: Minimatch[] = [];
  for (const alt of expandBraces(glob)) {
    const g = alt.replace(/^(?:\.\/)+/, '').replace(/^\/+/, '');
    const m = new Minimatch(g, { ...MATCH, nobrace: true, nocase: !caseSensitive });
    usable(m, glob);
    (g.includes('/') ? byPath : byName).push(m);
  }
  return (paths) =>
    paths.some((p) => {
      const name = p.slice(p.lastIndexOf('/') + 1);
      return byName.some((m) => m.match(name)) || byPath.some((m) => m.match(p));
    });
}

/** One `.gitignore`, compiled. */
export type IgnoreRules = Ignore;

/** The rules of one `.gitignore`, with the workspace-relative directory it sits in (`''` for the root). */
export interface IgnoreFile {
  dir: string;
  rules: IgnoreRules;
}

/** Parse a `.gitignore` (git's rules; a pattern git could not use ignores nothing). */
export function parseGitignore(text: string): IgnoreRules {
  return ignore().add(text);
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
    const verdict = file.rules.test(isDir ? `${rel}/` : rel);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}
