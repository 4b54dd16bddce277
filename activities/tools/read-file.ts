/** `read_file`: read a text file of the workspace with line numbers, by line offset and limit. */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from './registry.js';
import { openForReading } from '../../workspace-files/safe-files.js';
import { resolveInWorkspace, workspaceRelative } from '../../workspace-files/confine.js';
import { TRAITS } from '../../common/tool-batch.js';

const MAX_LINE_CHARS = 2000;
const DEFAULT_LIMIT = 500;
const MAX_FILE_BYTES = 20 * 1024 * 1024;
/**
 * A file this small is read to its end whatever `limit` says: paging it costs more calls than it
 * saves tokens, and small models ask for one line and then guess the rest (Qwen2.5-Coder 1.5B sent
 * `offset: 1, limit: 1` on most first reads of an 8-line file, then answered with a made-up value).
 */
export const SMALL_FILE_BYTES = 4096;

const params = z
  .object({
    path: z.string().min(1).describe('File path, relative to the workspace'),
    offset: z.number().int().min(1).optional().describe('First line to read (1-based, default 1)'),
    limit: z.number().int().min(1).max(5000).optional().describe(`How many lines to read (default ${DEFAULT_LIMIT})`),
  })
  .strict();

export const readFileTool = defineTool({
  name: 'read_file',
  untrusted: 'workspace',
  toolset: 'file',
  description:
    'Read a text file from the workspace. Returns numbered lines; use offset and limit to page through long files (a file of up to 4 KB is read to its end).',
  parameters: params,
  traits: TRAITS.readsPaths,
  paths: (a) => [a.path],
  summarize: (a) => `read_file: ${a.path}${a.offset ? `:${a.offset}` : ''}`,
  async handler(args, ctx) {
    const abs = await resolveInWorkspace(ctx.cwd, args.path);
    const info = await stat(abs).catch(() => undefined);
    if (!info) return { content: `File not found: ${args.path}`, isError: true };
    if (info.isDirectory()) return { content: `${args.path} is a directory, not a file`, isError: true };
    if (!info.isFile())
      return { content: `${args.path} is not a regular file (a FIFO, socket or device); not read`, isError: true };
    if (info.size > MAX_FILE_BYTES)
      return { content: `${args.path} is ${info.size} bytes; too large to read`, isError: true };
    const handle = await openForReading(ctx.cwd, abs, args.path);
    let buf: Buffer;
    try {
      buf = await handle.readFile();
    } finally {
      await handle.close();
    }
    if (buf.subarray(0, 8192).includes(0))
      return { content: `${args.path} looks like a binary file (${info.size} bytes); not shown`, isError: true };
    if (buf.length === 0) return { content: `(empty file: ${args.path})` };
    const lines = buf.toString('utf8').split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const offset = args.offset ?? 1;
    const small = buf.length <= SMALL_FILE_BYTES;
    const limit = small ? lines.length : (args.limit ?? DEFAULT_LIMIT);
    const widened =
      small && args.limit !== undefined && offset - 1 + args.limit < lines.length
        ? `[read to the end: the file is small (${lines.length} lines)]\n`
        : '';
    if (offset > lines.length && lines.length > 0) {
      return { content: `${args.path} has ${lines.length} lines; offset ${offset} is past the end`, isError: true };
    }
    const slice = lines.slice(offset - 1, offset - 1 + limit);
    const width = String(offset + slice.length).length;
    const body = slice
      .map(
        (line, i) =>
          `${String(offset + i).padStart(width, ' ')}\t${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line truncated]` : line}`,
      )
      .join('\n');
    const end = offset + slice.length - 1;
    const more =
      end < lines.length
        ? `\n[${workspaceRelative(ctx.cwd, abs)}: lines ${offset}-${end} of ${lines.length}; read on with offset ${end + 1}]`
        : '';
    return { content: widened + body + more };
  },
});
