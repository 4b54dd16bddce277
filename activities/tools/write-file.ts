/**
 * `write_file`: create a file in the workspace or replace its whole content, creating missing parent
 * directories. The content goes to a temporary file beside the target that is then renamed over it,
 * so a crash, a cancelled activity or a concurrent reader never sees a half-written file.
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { defineTool } from './registry.js';
import { resolveInWorkspace, workspaceRelative } from './workspace.js';

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
    'Create a file or replace its entire content (parent directories are created). To change part of an ' +
    'existing file, use patch instead.',
  parameters: params,
  traits: { readOnly: false, pathScoped: true, serial: false },
  paths: (a) => [a.path],
  summarize: (a) => `write_file: ${a.path}`,
  async handler(args, ctx) {
    const notADirectory = {
      content: `Cannot create ${args.path}: part of its parent path is a file, not a directory`,
      isError: true,
    };
    const abs = await resolveAllowingNotADirectory(ctx.cwd, args.path);
    if (!abs) return notADirectory;
    const existing = await statIfExists(abs);
    if (existing?.isDirectory()) return { content: `${args.path} is a directory, not a file`, isError: true };
    if (existing && !existing.isFile()) return { content: `${args.path} is not a regular file`, isError: true };
    try {
      await mkdir(dirname(abs), { recursive: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR' || code === 'EEXIST') return notADirectory;
      throw err;
    }
    await writeFileAtomic(abs, args.content, existing?.mode);
    const bytes = Buffer.byteLength(args.content, 'utf8');
    const what = existing ? `replaced the existing file (was ${plural(existing.size, 'byte')})` : 'created a new file';
    return {
      content: `Wrote ${plural(bytes, 'byte')} (${plural(countLines(args.content), 'line')}) to ${workspaceRelative(ctx.cwd, abs)}; ${what}`,
    };
  },
});

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

/**
 * Write `data` to `target` atomically: a temporary file in the same directory (same filesystem, so
 * the rename is atomic) is written, given `mode` (the replaced file's permissions) and renamed over
 * the target. On any failure the temporary file is removed and the target is untouched.
 */
export async function writeFileAtomic(target: string, data: string, mode?: number): Promise<void> {
  // Keep the name under NAME_MAX even for long file names.
  const tmp = join(dirname(target), `.${basename(target).slice(0, 100)}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx' never follows or reuses something already at the temporary name.
  const handle = await open(tmp, 'wx');
  try {
    try {
      await handle.writeFile(data, 'utf8');
      if (mode !== undefined) await handle.chmod(mode & 0o7777);
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => {});
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
