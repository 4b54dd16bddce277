/**
 * What a SQL client runs besides SQL (group indirection): psql's `\!` and `\o |cmd`, mysql's
 * `system`, sqlite's `.shell`/`.system` (shell commands, classified in turn) and `.load` (a
 * library), and `COPY … TO PROGRAM` (a command on the database server). What the SQL itself does
 * is the database rows' (table/rows/databases.ts).
 */
import type { Rule } from '../invocation.js';
import { clientLines, sqlTexts } from '../table/sql-text.js';

export const sqlClientCommands: Rule = (inv, ctx) => {
  for (const { text, at } of sqlTexts(inv, ctx.written)) {
    if (text === null) continue;
    const word = { ...(at ?? inv.word) };
    const run = (cmd: string, why: string, elsewhere = false) => {
      ctx.add(inv, { group: 'indirection', rule: 'inline_interpreter', reason: why, at: [inv.word, at] });
      ctx.script(inv, { ...word, value: cmd }, why, elsewhere ? { elsewhere: true } : {});
    };
    for (const m of text.matchAll(/\bcopy\b[^;]*?\b(?:to|from)\s+program\s+'((?:[^']|'')*)'/gi))
      run(m[1]!.replace(/''/g, "'"), 'COPY … PROGRAM runs a command on the database server', true);
    for (const l of clientLines(text)) {
      const shell =
        /^\\!\s*(.*)$/s.exec(l) ??
        /^\\(?:o|out|g|gx|gexec)\s*\|\s*(.*)$/s.exec(l) ??
        (/^(mysql|mariadb|mysqlsh|mycli)$/.test(inv.name) ? /^system\s+(.*)$/is.exec(l) : null) ??
        /^\.(?:shell|system)\s+(.*)$/s.exec(l);
      if (shell) run(shell[1]!, `${inv.name} runs a shell command`);
      else if (/^\.load\b|^\\copy\b.*\bprogram\b/i.test(l))
        ctx.add(inv, {
          group: 'indirection',
          rule: 'inline_interpreter',
          reason: `${inv.name} loads a library or runs a program`,
          at: [inv.word, at],
        });
    }
  }
};
