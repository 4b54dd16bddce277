/**
 * `patch`: targeted edit of a workspace file by exact-string replacement. old_string must occur
 * exactly once unless replace_all is set, so an ambiguous edit is refused instead of landing in the
 * wrong place; when it does not occur, the error points at the closest text (usually an
 * indentation or whitespace difference). The file is rewritten atomically, like write_file, and
 * the result shows the changed lines with their line numbers so the model can check its edit.
 */
import { z } from 'zod';
import { protectedPathMessage } from '../../shared/protected-paths.js';
import { defineTool } from './registry.js';
import { readWorkspaceFile, writeFileAtomic } from '../../workspace-files/safe-files.js';
import { shortHash } from '../../shared/short-hash.js';
import { editDiff } from './tool-display.js';
import { workspaceRelative } from '../../workspace-files/confine.js';
import { diskRoomRefusal } from './disk-room.js';
import { isProtected, plural, resolveAllowingNotADirectory, statIfExists } from './write-file.js';
import { TRAITS } from '../../common/tool-batch.js';

const MAX_FILE_BYTES = 20 * 1024 * 1024;
const MAX_HUNKS = 3;
const CONTEXT_LINES = 2;
const MAX_HUNK_SIDE_LINES = 12;
const MAX_SNIPPET_LINE_CHARS = 200;
const MAX_LISTED_LINES = 10;

const params = z
  .object({
    path: z.string().min(1).describe('File path, relative to the workspace'),
    old_string: z
      .string()
      .describe('Exact text to replace, including whitespace and indentation; must be unique unless replace_all'),
    new_string: z.string().describe('Replacement text'),
    replace_all: z
      .boolean()
      .optional()
      .describe('Replace every occurrence instead of requiring exactly one (default false)'),
  })
  .strict();

export const patchTool = defineTool({
  name: 'patch',
  toolset: 'file',
  description:
    // The first sentence is the whole description in compact mode: it says when, because a small model
    // offered an edit tool edited the file it was only asked about (docs/decisions/small-models.md).
    'Change a file the user asked you to change, by replacing an exact string. old_string must match the file exactly (whitespace and indentation ' +
    'included) and occur once; add surrounding lines to make it unique, or set replace_all to change every occurrence.',
  parameters: params,
  traits: TRAITS.editsPaths,
  paths: (a) => [a.path],
  summarize: (a) => `patch: ${a.path}${a.replace_all ? ' (all)' : ''}`,
  async handler(args, ctx) {
    const { old_string: oldStr, new_string: newStr } = args;
    if (oldStr === '') return { content: 'old_string is empty; give the exact text to replace', isError: true };
    if (oldStr === newStr)
      return { content: 'old_string and new_string are identical; nothing to change', isError: true };
    const abs = await resolveAllowingNotADirectory(ctx.cwd, args.path);
    const info = abs === undefined ? undefined : await statIfExists(abs);
    if (!abs || !info) return { content: `File not found: ${args.path} (use write_file to create it)`, isError: true };
    if (isProtected(ctx, abs)) return { content: protectedPathMessage(args.path), isError: true };
    if (info.isDirectory()) return { content: `${args.path} is a directory, not a file`, isError: true };
    if (!info.isFile()) return { content: `${args.path} is not a regular file`, isError: true };
    if (info.size > MAX_FILE_BYTES)
      return { content: `${args.path} is ${info.size} bytes; too large to patch`, isError: true };
    const buf = await readWorkspaceFile(ctx.cwd, abs, args.path);
    if (buf.subarray(0, 8192).includes(0))
      return { content: `${args.path} looks like a binary file; patch edits text files only`, isError: true };
    const text = buf.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(buf))
      return { content: `${args.path} is not valid UTF-8; patching it would corrupt it`, isError: true };

    const positions = occurrences(text, oldStr);
    const rel = workspaceRelative(ctx.cwd, abs);
    if (positions.length === 0) {
      // A second run of the same call (a retry after a worker crash, or the model repeating itself)
      // finds the edit already made: say so rather than send the model hunting for a near miss.
      if (newStr !== '' && occurrences(text, newStr).length > 0)
        return {
          content: `${rel} already contains new_string and no longer contains old_string: the edit appears to be applied already. Read the file if in doubt.`,
        };
      return { content: notFound(rel, text, oldStr), isError: true };
    }
    if (positions.length > 1 && !args.replace_all) {
      const lines = positions.map((p) => lineNumberAt(text, p));
      const shown = lines.slice(0, MAX_LISTED_LINES).join(', ') + (lines.length > MAX_LISTED_LINES ? ', …' : '');
      return {
        content:
          `old_string occurs ${positions.length} times in ${rel} (at lines ${shown}). Include more surrounding ` +
          'context in old_string so it matches exactly one place, or set replace_all to replace every occurrence.',
        isError: true,
      };
    }

    let updated = '';
    let from = 0;
    for (const p of positions) {
      updated += text.slice(from, p) + newStr;
      from = p + oldStr.length;
    }
    updated += text.slice(from);
    const grows = Buffer.byteLength(updated, 'utf8') - buf.length;
    const refusal = await diskRoomRefusal(ctx, grows, `${plural(grows, 'more byte')} to ${rel}`);
    if (refusal) return { content: refusal, isError: true };
    await writeFileAtomic(ctx.cwd, abs, updated, info.mode);

    const delta = newStr.length - oldStr.length;
    const hunks = positions.slice(0, MAX_HUNKS).map((p, k) => hunk(text, updated, p, p + k * delta, oldStr, newStr));
    const more = positions.length > MAX_HUNKS ? `\n… and ${positions.length - MAX_HUNKS} more` : '';
    return {
      content: `Replaced ${plural(positions.length, 'occurrence')} in ${rel}\n${hunks.join('\n')}${more}`,
      fileState: shortHash(`${abs}\u0000${updated}`),
      ...diffOf(rel, text, updated),
    };
  },
});

function diffOf(rel: string, before: string, after: string): { display?: { diff: string } } {
  const diff = editDiff(rel, before, after);
  return diff ? { display: { diff } } : {};
}

/** Start offsets of the non-overlapping occurrences of `needle`, left to right. */
function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) out.push(i);
  return out;
}

function lineNumberAt(text: string, index: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function lineStart(text: string, index: number): number {
  return index === 0 ? 0 : text.lastIndexOf('\n', index - 1) + 1;
}

function lineEnd(text: string, index: number): number {
  const e = text.indexOf('\n', index);
  return e === -1 ? text.length : e;
}

/** The lines of `text` from `start` up to `end` (exclusive), without a final newline. */
function linesBetween(text: string, start: number, end: number): string[] {
  if (end <= start) return [];
  return text.slice(start, text[end - 1] === '\n' ? end - 1 : end).split('\n');
}

/**
 * A unified-diff-style hunk for one replacement: `-` lines numbered in the old file, `+` and
 * context lines in the new one.
 */
function hunk(before: string, after: string, oldPos: number, newPos: number, oldStr: string, newStr: string): string {
  const oldFrom = lineStart(before, oldPos);
  const oldTo = oldStr.endsWith('\n') ? oldPos + oldStr.length : lineEnd(before, oldPos + oldStr.length);
  const removed = linesBetween(before, oldFrom, oldTo);

  const newFrom = lineStart(after, newPos);
  const newEnd = newPos + newStr.length;
  // When old_string ended a line and the replacement does too (or removed whole lines), the next
  // line is untouched; otherwise the rest of the old line now follows the replacement.
  const cleanEnd = oldStr.endsWith('\n') && (newEnd === 0 || after[newEnd - 1] === '\n');
  const added = linesBetween(after, newFrom, cleanEnd ? newEnd : lineEnd(after, newEnd));
  if (!cleanEnd && added.length === 0) added.push('');

  const oldFirst = lineNumberAt(before, oldFrom);
  const newFirst = lineNumberAt(after, newFrom);
  const afterLines = after.split('\n');
  const total = after.endsWith('\n') ? afterLines.length - 1 : afterLines.length;
  const width = String(Math.max(oldFirst + removed.length, newFirst + added.length + CONTEXT_LINES)).length;
  const row = (mark: string, n: number, line: string) =>
    `${mark}${String(n).padStart(width)}  ${line.length > MAX_SNIPPET_LINE_CHARS ? `${line.slice(0, MAX_SNIPPET_LINE_CHARS)}…` : line}`;
  const side = (mark: string, first: number, lines: string[]) => {
    const shown = lines.length > MAX_HUNK_SIDE_LINES ? lines.slice(0, MAX_HUNK_SIDE_LINES - 2) : lines;
    const rows = shown.map((l, i) => row(mark, first + i, l));
    if (shown.length < lines.length)
      rows.push(`${mark}${' '.repeat(width)}  … (${lines.length - shown.length} more lines)`);
    return rows;
  };

  const out = [`@@ -${oldFirst},${removed.length} +${newFirst},${added.length} @@`];
  for (let n = Math.max(1, newFirst - CONTEXT_LINES); n < newFirst; n++) out.push(row(' ', n, afterLines[n - 1] ?? ''));
  out.push(...side('-', oldFirst, removed), ...side('+', newFirst, added));
  const next = newFirst + added.length;
  for (let n = next; n < next + CONTEXT_LINES && n <= total; n++) out.push(row(' ', n, afterLines[n - 1] ?? ''));
  return out.join('\n');
}

const squash = (s: string) => s.trim().replace(/\s+/g, ' ');

/** The "not found" error, with a hint at the closest text when whitespace is the likely difference. */
function notFound(rel: string, text: string, oldStr: string): string {
  const crlf = text.includes('\r\n') && oldStr.includes('\n') && !oldStr.includes('\r\n');
  const head = `old_string was not found in ${rel}.${crlf ? ' The file uses CRLF (\\r\\n) line endings; old_string has plain \\n.' : ''}`;
  const tail = 'Re-read the file with read_file and copy the text exactly, including indentation.';
  const fileLines = text.split('\n');
  const normFile = fileLines.map(squash);
  const wanted = oldStr.split('\n').map(squash);
  while (wanted.length > 1 && wanted[0] === '') wanted.shift();
  while (wanted.length > 1 && wanted[wanted.length - 1] === '') wanted.pop();
  const show = (from: number, count: number) =>
    fileLines
      .slice(from, from + Math.min(count, 6))
      .map(
        (l, i) =>
          `${from + i + 1}\t${l.length > MAX_SNIPPET_LINE_CHARS ? `${l.slice(0, MAX_SNIPPET_LINE_CHARS)}…` : l}`,
      )
      .join('\n');

  const m = wanted.length;
  if (wanted.some((w) => w !== '')) {
    for (let i = 0; i + m <= normFile.length; i++) {
      const fits =
        m === 1
          ? normFile[i]!.includes(wanted[0]!)
          : normFile[i]!.endsWith(wanted[0]!) &&
            normFile[i + m - 1]!.startsWith(wanted[m - 1]!) &&
            wanted.slice(1, m - 1).every((w, k) => normFile[i + 1 + k] === w);
      if (fits) {
        const where = m === 1 ? `line ${i + 1}` : `lines ${i + 1}-${i + m}`;
        return `${head} It matches ${where} if whitespace is ignored, so the indentation or spacing differs:\n${show(i, m)}\n${tail}`;
      }
    }
  }
  const first = wanted.find((w) => w !== '');
  if (first !== undefined && m > 1) {
    const i = normFile.findIndex((l) => l.endsWith(first) && first.length >= 3);
    if (i !== -1)
      return `${head} Its first line matches line ${i + 1} (ignoring whitespace), but the lines after it differ:\n${show(i, m)}\n${tail}`;
  }
  return `${head} ${tail}`;
}
