/**
 * Result size limits (docs/tools.md): a result over its limit (100,000 characters by default) is
 * stored in full in the workspace and replaced by a 1,500-character preview that says how to read
 * the rest with `read_file` (offset/limit); all results of one assistant turn are capped at
 * 200,000 characters together (the workflow gives each call its share).
 */
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { truncateMiddle } from '../../common/text.js';
import { writeFileAtomic } from '../../workspace-files/safe-files.js';

export const RESULTS_DIR = '.herald-results';
export const PREVIEW_CHARS = 1500;
export const MAX_TURN_RESULT_CHARS = 200_000;

export interface LimitedResult {
  content: string;
  /** Workspace-relative path of the full text, when it was stored. */
  storedAt?: string;
}

/**
 * Keep `content` inline when it fits `limit`; otherwise store it under `<cwd>/.herald-results/`
 * (a workspace already confined by the caller) and return the preview. `read_file` results are never stored (reading the stored file would
 * produce another oversized result): they are cut, head and tail kept.
 */
export async function limitResult(
  content: string,
  limit: number,
  o: { cwd: string | undefined; toolName: string; fileStem: string },
): Promise<LimitedResult> {
  if (content.length <= limit) return { content };
  // No workspace (the call was refused its folder): nowhere to store it, so it is cut.
  if (o.toolName === 'read_file' || o.cwd === undefined)
    return {
      content: truncateMiddle(
        content,
        limit,
        (n) => `\n[… ${n} characters omitted: read a smaller range with offset/limit …]\n`,
      ),
    };
  const rel = join(RESULTS_DIR, `${o.fileStem.replace(/[^A-Za-z0-9._-]/g, '_')}.txt`);
  try {
    const root = await realpath(o.cwd);
    const dir = join(root, RESULTS_DIR);
    await mkdir(dir, { recursive: true });
    // Only a real folder of the workspace: a symlink planted under that name must not send results elsewhere.
    if (!(await lstat(dir)).isDirectory()) throw new Error(`${RESULTS_DIR} is not a folder`);
    await writeFileAtomic(root, join(root, rel), content);
  } catch {
    return { content: truncateMiddle(content, Math.min(limit, PREVIEW_CHARS * 4)) };
  }
  const lines = content.split('\n').length;
  return {
    storedAt: rel,
    content:
      `[The ${o.toolName} result is ${content.length.toLocaleString('en-US')} characters (${lines.toLocaleString('en-US')} lines), too large to show in full. ` +
      `It is saved in the workspace at ${rel}: read it with read_file, using offset and limit to page through it. ` +
      `Its beginning and end:]\n${truncateMiddle(content, PREVIEW_CHARS)}`,
  };
}
