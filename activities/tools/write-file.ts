/**
 * `write_file`: create a file in the workspace or replace its whole content, creating missing parent
 * directories. The content goes to a temporary file beside the target that is then renamed over it,
 * so a crash, a cancelled activity or a concurrent reader never sees a half-written file.
 */
import type { Stats } from 'node:fs';
import { lstat, mkdir, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { z } from 'zod';
import { isProtectedPath, protectedPathMessage } from '../../shared/protected-paths.js';
import { DEFAULT_PROTECTED_PATHS } from '../../common/sandbox-policy.js';
import { defineTool } from './registry.js';
import { shortHash } from '../../shared/short-hash.js';
import type { ToolContext } from './registry.js';
import { readWorkspaceFile, writeFileAtomic } from '../../workspace-files/safe-files.js';
import type { ToolDisplay } from './tool-display.js';
import { MAX_DIFF_INPUT_BYTES, editDiff } from './tool-display.js';
import { resolveInWorkspace, workspaceRelative } from '../../workspace-files/confine.js';
import { diskRoomRefusal } from './disk-room.js';
import { TRAITS } from '../../common/tool-batch.js';

const params = z
  .object({
    path: z.string().min(1).describe('File path, relative to the workspace; missing parent directories are created'),
    content: z.string().describe('The complete new content of the file'),
  })
  .strict();

export const writeFileTool = defineTool({
  name: 'write_file',
  toolset: 'file',
  description:
    // The first sentence is the whole description in compact mode: it says when (see patch.ts).
    'Create a file, or replace the content of one the user asked you to change (parent directories are created). ' +
    'To change part of an existing file, use patch instead.',
  parameters: params,
  traits: TRAITS.editsPaths,
  paths: (a) => [a.path],
  summarize: (a) => `write_file: ${a.path}`,
  async handler(args, ctx) {
    const notADirectory = {
      content: `Cannot create ${args.path}: part of its parent path is a file, not a directory`,
      isError: true,
    };
    const abs = await resolveAllowingNotADirectory(ctx.cwd, args.path);
    if (!abs) return notADirectory;
    if (isProtected(ctx, abs)) return { content: protectedPathMessage(args.path), isError: true };
    const existing = await statIfExists(abs);
    if (existing?.isDirectory()) return { content: `${args.path} is a directory, not a file`, isError: true };
    if (existing && !existing.isFile()) return { content: `${args.path} is not a regular file`, isError: true };
    const refusal = await diskRoomRefusal(
      ctx,
      Buffer.byteLength(args.content, 'utf8') - (existing?.size ?? 0),
      plural(Buffer.byteLength(args.content, 'utf8'), 'byte'),
    );
    if (refusal) return { content: refusal, isError: true };
    try {
      await mkdirParents(ctx.cwd, dirname(abs));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR' || code === 'EEXIST') return notADirectory;
      throw err;
    }
    // mkdir followed the path again: resolve once more, so a directory swapped for a link is caught.
    if ((await resolveAllowingNotADirectory(ctx.cwd, args.path)) !== abs) return notADirectory;
    const before = existing ? await previousText(ctx.cwd, abs, args.path, existing.size) : undefined;
    await writeFileAtomic(ctx.cwd, abs, args.content, existing?.mode);
    const bytes = Buffer.byteLength(args.content, 'utf8');
    const what = existing ? `replaced the existing file (was ${plural(existing.size, 'byte')})` : 'created a new file';
    return {
      fileState: shortHash(`${abs}\u0000${args.content}`),
      content: `Wrote ${plural(bytes, 'byte')} (${plural(countLines(args.content), 'line')}) to ${workspaceRelative(ctx.cwd, abs)}; ${what}`,
      // A new file diffs against nothing; a replaced one too large or not text gets no diff.
      ...(before === null ? {} : diffDisplay(workspaceRelative(ctx.cwd, abs), before, args.content)),
    };
  },
});

/**
 * The replaced file's text for the diff shown to the human: null when it is too large or not text
 * (no diff then); reading it never fails the write.
 */
async function previousText(root: string, abs: string, shown: string, size: number): Promise<string | null> {
  if (size > MAX_DIFF_INPUT_BYTES) return null;
  try {
    const buf = await readWorkspaceFile(root, abs, shown);
    if (buf.subarray(0, 8192).includes(0)) return null;
    return buf.toString('utf8');
  } catch {
    return null;
  }
}

function diffDisplay(path: string, before: string | undefined, after: string): { display?: ToolDisplay } {
  const diff = editDiff(path, before, after);
  return diff ? { display: { diff } } : {};
}

/** Whether the resolved path is one no tool may write (symlink aliases included: `abs` is the real path). */
export function isProtected(ctx: ToolContext, abs: string): boolean {
  return isProtectedPath(workspaceRelative(ctx.cwd, abs), ctx.protectedPaths ?? DEFAULT_PROTECTED_PATHS);
}

/**
 * Create `dir` and its missing parents below the workspace, one level at a time: a bounded loop (one
 * step a path component), never a recursive mkdir, which loops forever where a filesystem answers
 * ENOENT for a folder whose parent exists (procfs does).
 */
export async function mkdirParents(root: string, dir: string): Promise<void> {
  const parts = relative(root, dir)
    .split(sep)
    .filter((p) => p && p !== '.');
  let at = root;
  for (const part of parts) {
    at = join(at, part);
    try {
      await mkdir(at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!(await lstat(at)).isDirectory())
        throw Object.assign(new Error(`${at} is not a directory`), { code: 'ENOTDIR' });
    }
  }
}

/** `stat`, or undefined when nothing is there. */
export async function statIfExists(abs: string): Promise<Stats | undefined> {
  try {
    return await stat(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * `resolveInWorkspace`, or undefined when a component of the path is a file (`a.txt/b`): nothing
 * can exist there. Escapes still throw.
 */
export async function resolveAllowingNotADirectory(root: string, path: string): Promise<string | undefined> {
  try {
    return await resolveInWorkspace(root, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** Lines as an editor counts them: a final newline does not start another line. */
export function countLines(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** `1 line`, `2 lines`; `many` for an irregular plural. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
