/**
 * `search_files`: search file contents with a JavaScript regular expression (`path:line: text`) or
 * find files by name with a glob. The tool walks the tree itself rather than shelling out to
 * ripgrep, so it works on any worker, honours the workspace's `.gitignore` files (root and nested),
 * always skips `.git/` and `node_modules/`, and never follows a symlink out of the workspace.
 * Results are capped; the walk heartbeats and stops as soon as the call is cancelled.
 *
 * Patterns come from the model, so they run on RE2 (re2js): matching takes time linear in the
 * input whatever the pattern, where a backtracking engine can spend hours on `(a+)+$` and stall
 * every conversation on the worker. RE2 has no lookarounds or backreferences; such a pattern gets
 * a clear error. The scan also hands the event loop back every few milliseconds and stops at a
 * time budget with what it found, so one search never starves the worker's other activities.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RE2JS } from 're2js';
import { z } from 'zod';
import { oneLine } from '../../common/text.js';
import type { IgnoreFile, IgnoreRules } from './glob.js';
import { fileGlobMatcher, isIgnored, parseGitignore } from './glob.js';
import type { ToolContext } from './registry.js';
import { defineTool } from './registry.js';
import { readWorkspaceFile } from '../../workspace-files/safe-files.js';
import { resolveInWorkspace, workspaceRelative } from '../../workspace-files/confine.js';
import { plural, resolveAllowingNotADirectory } from './write-file.js';
import { TRAITS } from '../../common/tool-batch.js';

const DEFAULT_MAX_RESULTS = 100;
const MAX_RESULTS = 1000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const BINARY_SNIFF_BYTES = 8192;
const MAX_LINE_CHARS = 300;
const HEARTBEAT_EVERY_FILES = 500;
const ALWAYS_SKIPPED = new Set(['.git', 'node_modules']);
const MAX_PATTERN_CHARS = 1000;
/** How long a search may scan before it answers with what it found. */
export const SEARCH_BUDGET_MS = 30_000;
/** The longest the scan keeps the event loop before yielding it. */
const SLICE_MS = 20;

const params = z
  .object({
    pattern: z
      .string()
      .min(1)
      .max(MAX_PATTERN_CHARS)
      .describe(
        "What to look for: a regular expression (RE2 syntax: no lookarounds or backreferences) when target is 'content', a file name glob " +
          "(e.g. '*.test.ts', 'src/**/index.{ts,js}') when target is 'files'",
      ),
    target: z
      .enum(['content', 'files'])
      .optional()
      .describe("'content' (default) searches inside files; 'files' lists the files whose names match pattern"),
    path: z.string().min(1).optional().describe("Directory or file to search, relative to the workspace (default '.')"),
    glob: z.string().min(1).optional().describe("Only search files matching this glob, e.g. '*.ts' or 'src/**/*.ts'"),
    case_sensitive: z.boolean().optional().describe('Match letter case exactly (default true)'),
    max_results: z
      .number()
      .int()
      .min(1)
      .max(MAX_RESULTS)
      .optional()
      .describe(`Stop after this many results (default ${DEFAULT_MAX_RESULTS}, at most ${MAX_RESULTS})`),
  })
  .strict();

export const searchFilesTool = defineTool({
  name: 'search_files',
  untrusted: 'workspace',
  toolset: 'file',
  description:
    "Search the workspace. target 'content' (default): lines matching a regular expression (RE2 syntax), as " +
    "path:line: text. target 'files': files whose names match a glob. Honours .gitignore and skips .git, " +
    'node_modules, binary files and files over 2 MB. Narrow with path and glob.',
  parameters: params,
  traits: TRAITS.readsPaths,
  paths: (a) => [a.path ?? '.'],
  summarize: (a) =>
    `search_files: ${a.target === 'files' ? 'files ' : ''}${oneLine(a.pattern, 80)}${a.path && a.path !== '.' ? ` in ${a.path}` : ''}`,
  async handler(args, ctx) {
    const target = args.target ?? 'content';
    const where = args.path ?? '.';
    const max = args.max_results ?? DEFAULT_MAX_RESULTS;
    const caseSensitive = args.case_sensitive ?? true;

    let regex: RE2JS | undefined;
    let nameMatches: ((paths: readonly string[]) => boolean) | undefined;
    let globMatches: ((paths: readonly string[]) => boolean) | undefined;
    try {
      if (target === 'content') regex = compileRegex(args.pattern, caseSensitive);
      else nameMatches = fileGlobMatcher(args.pattern, caseSensitive);
    } catch (err) {
      const what = target === 'content' ? 'regular expression' : 'glob';
      return { content: `Invalid ${what} ${JSON.stringify(args.pattern)}: ${(err as Error).message}`, isError: true };
    }
    try {
      if (args.glob !== undefined) globMatches = fileGlobMatcher(args.glob, caseSensitive);
    } catch (err) {
      return { content: `Invalid glob ${JSON.stringify(args.glob)}: ${(err as Error).message}`, isError: true };
    }

    const root = await realpath(ctx.cwd);
    const start = await resolveAllowingNotADirectory(root, where);
    const info = start === undefined ? undefined : await stat(start).catch(() => undefined);
    if (!start || !info) return { content: `Path not found: ${where}`, isError: true };
    if (!info.isDirectory() && !info.isFile())
      return { content: `${where} is neither a file nor a directory`, isError: true };
    const startRel = posixRelative(root, start);

    const results: string[] = [];
    const deadline = Date.now() + SEARCH_BUDGET_MS;
    let sliceStart = Date.now();
    let outOfTime = false;
    let capped = false;
    let filesMatched = 0;
    let skippedBinary = 0;
    let skippedLarge = 0;
    // An explicitly named file is searched whatever .gitignore and glob say.
    const files: AsyncIterable<FoundFile> | FoundFile[] = info.isDirectory()
      ? walkFiles(root, start, startRel, ctx)
      : [{ abs: start, rel: startRel }];
    search: for await (const file of files) {
      throwIfAborted(ctx.signal);
      const fromStart =
        startRel && file.rel.startsWith(`${startRel}/`) ? file.rel.slice(startRel.length + 1) : file.rel;
      const candidates = [file.rel, fromStart];
      if (info.isDirectory() && globMatches && !globMatches(candidates)) continue;
      if (nameMatches) {
        if (!nameMatches(candidates)) continue;
        if (results.length === max) {
          capped = true;
          break;
        }
        results.push(file.rel);
        continue;
      }
      const size = (await stat(file.abs).catch(() => undefined))?.size;
      if (size === undefined) continue;
      if (size > MAX_FILE_BYTES) {
        skippedLarge++;
        continue;
      }
      const buf = await readWorkspaceFile(root, file.abs, file.rel).catch(() => undefined);
      if (!buf) continue;
      if (buf.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
        skippedBinary++;
        continue;
      }
      const lines = buf.toString('utf8').split('\n');
      let matchedHere = false;
      for (let i = 0; i < lines.length; i++) {
        if (i % 256 === 0 && Date.now() - sliceStart > SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          throwIfAborted(ctx.signal);
          sliceStart = Date.now();
          if (sliceStart > deadline) {
            outOfTime = true;
            break search;
          }
        }
        const line = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
        if (!regex!.test(line)) continue;
        if (results.length === max) {
          capped = true;
          break search;
        }
        if (!matchedHere) filesMatched++;
        matchedHere = true;
        results.push(
          `${file.rel}:${i + 1}: ${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line}`,
        );
      }
    }

    const skipped = [
      skippedBinary ? plural(skippedBinary, 'binary file') : '',
      skippedLarge ? `${plural(skippedLarge, 'file')} over 2 MB` : '',
    ].filter(Boolean);
    const skipNote =
      (skipped.length ? `; skipped ${skipped.join(' and ')}` : '') +
      (outOfTime
        ? `; stopped after ${SEARCH_BUDGET_MS / 1000} s, the rest was not searched: narrow with path or glob`
        : '');
    const scope = workspaceRelative(root, start);
    if (results.length === 0) {
      const none =
        target === 'content'
          ? `No matches for /${args.pattern}/ in ${scope}`
          : `No files matching ${JSON.stringify(args.pattern)} in ${scope}`;
      return { content: `${none}${args.glob ? ` (glob ${args.glob})` : ''}${skipNote}` };
    }
    const footer = capped
      ? `[results capped at ${max}; narrow the search with path or glob${max < MAX_RESULTS ? `, or raise max_results (at most ${MAX_RESULTS})` : ''}${skipNote}]`
      : target === 'content'
        ? `[${plural(results.length, 'match', 'matches')} in ${plural(filesMatched, 'file')}${skipNote}]`
        : `[${plural(results.length, 'file')}]`;
    return { content: `${results.join('\n')}\n${footer}` };
  },
});

/**
 * An RE2 pattern. JavaScript's `\uXXXX` and `\u{…}` escapes, which models write out of habit,
 * become RE2's `\x{…}`.
 */
function compileRegex(pattern: string, caseSensitive: boolean): RE2JS {
  const source = pattern.replace(/(?<!\\)((?:\\\\)*)\\u(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4}))/g, '$1\\x{$2$3}');
  try {
    return RE2JS.compile(source, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    const message = (err as Error).message.replace(/^error parsing regexp: /, '');
    throw new Error(
      `${message} (patterns use RE2 syntax, which runs in linear time: no lookarounds or backreferences)`,
    );
  }
}

interface FoundFile {
  /** Real path to read. */
  abs: string;
  /** Workspace-relative path to show (the link's own path for a symlink). */
  rel: string;
}

function posixRelative(root: string, abs: string): string {
  const rel = workspaceRelative(root, abs);
  return rel === '.' ? '' : rel.split('\\').join('/');
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('search cancelled');
}

/**
 * Files under `start` in name order, depth first. Ignored entries and `.git`/`node_modules` are not
 * entered; a symlink is followed only to a file inside the workspace (links to directories are
 * never followed: no loops, no duplicates).
 */
async function* walkFiles(root: string, start: string, startRel: string, ctx: ToolContext): AsyncGenerator<FoundFile> {
  let seen = 0;
  async function* walk(abs: string, rel: string, ignores: IgnoreFile[]): AsyncGenerator<FoundFile> {
    throwIfAborted(ctx.signal);
    let entries: Dirent[];
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch {
      return; // unreadable directory: nothing to report from it
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const here = entries.some((e) => e.name === '.gitignore' && e.isFile())
      ? [...ignores, { dir: rel, rules: await readGitignore(root, join(abs, '.gitignore')) }]
      : ignores;
    for (const entry of entries) {
      throwIfAborted(ctx.signal);
      if (ALWAYS_SKIPPED.has(entry.name)) continue;
      const childAbs = join(abs, entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!isIgnored(here, childRel, true)) yield* walk(childAbs, childRel, here);
        continue;
      }
      if (++seen % HEARTBEAT_EVERY_FILES === 0) ctx.heartbeat();
      let readPath = childAbs;
      if (entry.isSymbolicLink()) {
        const real = await resolveInWorkspace(root, childRel).catch(() => undefined);
        if (!real || !(await stat(real).catch(() => undefined))?.isFile()) continue;
        readPath = real;
      } else if (!entry.isFile()) continue;
      if (!isIgnored(here, childRel, false)) yield { abs: readPath, rel: childRel };
    }
  }
  yield* walk(start, startRel, await ancestorIgnores(root, startRel));
}

/** The `.gitignore` files of the directories above the search root, from the workspace root down. */
async function ancestorIgnores(root: string, startRel: string): Promise<IgnoreFile[]> {
  const out: IgnoreFile[] = [];
  if (startRel === '') return out;
  const parts = startRel.split('/');
  for (let i = 0; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    const file = join(root, dir, '.gitignore');
    if (!(await lstat(file).catch(() => undefined))?.isFile()) continue;
    out.push({ dir, rules: await readGitignore(root, file) });
  }
  return out;
}

async function readGitignore(root: string, file: string): Promise<IgnoreRules> {
  const text = await readWorkspaceFile(root, file, '.gitignore').then(
    (b) => b.toString('utf8'),
    () => '',
  );
  return parseGitignore(text);
}
