/**
 * Files the command line writes before it uses them (`echo 'rm -rf ~' > x.sh && sh x.sh`,
 * `echo 'DELETE FROM users;' > fix.sql && sqlite3 app.db < fix.sql`): their text, when the
 * command line shows it, is what a later shell, interpreter or SQL client runs.
 */
import type { RuleContext } from '../invocation.js';
import { absolute } from '../paths.js';

/** Remember a file this command line writes, with its text when that is literal. */
export function noteWritten(
  ctx: RuleContext,
  path: string,
  cwd: string | null,
  text: string | null,
  append = false,
): void {
  const keys = [path, absolute(path, cwd)].filter((k): k is string => !!k);
  for (const k of keys) {
    const before = ctx.written.get(k);
    ctx.written.set(
      k,
      append && before !== undefined ? (before === null || text === null ? null : before + text) : text,
    );
  }
}

/** A file an earlier command of the line wrote: its text (null: not literal), or undefined when none did. */
export function writtenText(
  ctx: { readonly written: ReadonlyMap<string, string | null> },
  path: string | null,
  cwd: string | null,
): string | null | undefined {
  if (path === null || !ctx.written.size) return undefined;
  if (ctx.written.has(path)) return ctx.written.get(path);
  const abs = absolute(path, cwd);
  return abs !== undefined && ctx.written.has(abs) ? ctx.written.get(abs) : undefined;
}
