/**
 * Reading SQL out of a database client's command line, for the database rows (rows/databases.ts):
 * where the statements are (an option's value, a positional statement, a here-string, a pipe, a
 * file fed with `-f` or `<` that an earlier command of the line wrote), comments stripped, and
 * what in them destroys data. Pure: it reads words and the line's written files, nothing else.
 */
import type { Invocation } from '../invocation.js';
import { operands } from '../options.js';
import type { Word } from '../shell.js';
import { writtenText } from '../rules/written.js';

/** SQL with comments removed and whitespace collapsed, lower case (`DROP/**\/TABLE` reads as `drop table`). */
export function normaliseSql(sql: string): string {
  return sql
    .replace(/\/\*[\s\S]*?(\*\/|$)/g, ' ')
    .replace(/--[^\n]*/g, ' ')
    .replace(/#[^\n]*/g, ' ')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

/** A WHERE that selects everything (`WHERE 1=1`, `WHERE true`, `WHERE 'a'='a'`) is no WHERE. */
const TRIVIAL_WHERE =
  /\bwhere\s+(?:\(?\s*(?:1\s*=\s*1|true|1|'([^']*)'\s*=\s*'\1'|(\w+)\s*=\s*\2|not\s+false|1\s*<>\s*0|\d+\s*>\s*0)\s*\)?\s*(?:;|$|\)|or\b))/;

const DROPS =
  /\b(drop\s+(?:table|database|schema|view|index|user|role|materialized|sequence|function|procedure|trigger|owned|extension|keyspace|collection|type|domain|tablespace)\b|truncate\b|alter\s+table\s+\S+\s+drop\b)/;

/** What in a SQL text destroys data (`DROP TABLE`, `DELETE without a real WHERE`), or undefined. */
export function destructiveSql(sql: string): string | undefined {
  const s = normaliseSql(sql);
  const m = DROPS.exec(s);
  if (m) return m[1]!.replace(/\s+/g, ' ').toUpperCase();
  for (const stmt of s.split(';')) {
    const everything = !/\bwhere\b/.test(stmt) || TRIVIAL_WHERE.test(stmt);
    if (/\bdelete\s+(?:from\s+)?[\w."`[\]]+/.test(stmt) && everything) return 'DELETE without a real WHERE';
    if (/\bupdate\s+[\w."`[\]]+\s+set\b/.test(stmt) && everything) return 'UPDATE without a real WHERE';
  }
  if (/\bdropdb\b|\bflushall\b|\bflushdb\b/.test(s)) return 'a database wipe';
  return undefined;
}

/** The option that carries a statement, per client (`psql -c`, `mysql -e`, `clickhouse-client --query`). */
const SQL_OPTIONS: Record<string, { short?: string; long?: string[] }> = {
  psql: { short: 'c', long: ['--command'] },
  pgcli: { short: 'c', long: ['--command'] },
  mysql: { short: 'e', long: ['--execute'] },
  mariadb: { short: 'e', long: ['--execute'] },
  mycli: { short: 'e', long: ['--execute'] },
  sqlcmd: { short: 'Q', long: [] },
  'clickhouse-client': { short: 'q', long: ['--query'] },
  clickhouse: { short: 'q', long: ['--query'] },
  cqlsh: { short: 'e', long: ['--execute'] },
  cockroach: { short: 'e', long: ['--execute'] },
  snowsql: { short: 'q', long: ['--query'] },
  usql: { short: 'c', long: ['--command'] },
  duckdb: { short: 'c', long: [] },
  bq: { long: [] },
  // Query engines and warehouses: the statement is an option's value.
  trino: { long: ['--execute'] },
  presto: { long: ['--execute'] },
  'trino-cli': { long: ['--execute'] },
  'spark-sql': { short: 'e', long: [] },
  hive: { short: 'e', long: [] },
  beeline: { short: 'e', long: [] },
  'impala-shell': { short: 'q', long: ['--query'] },
  vsql: { short: 'c', long: ['--command'] },
  mysqlsh: { short: 'e', long: ['--execute'] },
  influx: { long: ['-execute', '--execute'] },
  dolt: { short: 'q', long: ['--query'] },
  'sql-cli': { short: 'e', long: ['--execute'] },
};

/** Clients whose operands after the database are statements (`sqlite3 app.db "DROP TABLE t"`). */
const POSITIONAL = ['sqlite3', 'sqlite', 'duckdb', 'litecli', 'bq', 'spatialite'];

/** Every SQL client the database rows name. */
export const SQL_CLIENTS: readonly string[] = [
  ...new Set([...Object.keys(SQL_OPTIONS), ...POSITIONAL, 'sqlplus', 'isql', 'db2']),
];

export interface SqlText {
  /** The statements, or null when the line does not show them. */
  text: string | null;
  at: Word | undefined;
  /** Built at run time (a substitution, a decoder, another program's output): cannot be read. */
  dynamic?: boolean;
}

/** The SQL a client invocation will send: its option, a positional statement, what it reads on stdin. */
export function sqlTexts(inv: Invocation, written: ReadonlyMap<string, string | null>): SqlText[] {
  const out: SqlText[] = [];
  const spec = SQL_OPTIONS[inv.name];
  const next = (i: number): SqlText => ({
    text: inv.args[i + 1]?.value ?? null,
    at: inv.args[i + 1],
    dynamic: inv.args[i + 1]?.value === null,
  });
  for (let i = 0; i < inv.args.length; i++) {
    const w = inv.args[i]!;
    const v = w.value;
    if (v === null) continue;
    if (spec?.short && (v === `-${spec.short}` || v === `--${spec.short}`)) out.push(next(i));
    else if (spec?.short && v.startsWith(`-${spec.short}`) && v.length > 2 && !v.startsWith('--'))
      out.push({ text: v.slice(2), at: w });
    for (const l of spec?.long ?? []) {
      if (v === l) out.push(next(i));
      else if (v.startsWith(`${l}=`)) out.push({ text: v.slice(l.length + 1), at: w });
    }
  }
  if (POSITIONAL.includes(inv.name))
    for (const w of operands(inv.args).slice(1))
      out.push({ text: w.value, at: w, dynamic: w.value === null && /\$\(|`/.test(w.raw) });
  const s = inv.cmd.stdin;
  if (s?.kind === 'text') out.push({ text: s.text, at: undefined, dynamic: s.text === null });
  // `echo 'DELETE FROM users;' > fix.sql && sqlite3 app.db < fix.sql`: a file this line wrote.
  const file =
    s?.kind === 'file' ? s.path : inv.args.find((_, i) => /^(-f|--file|-i)$/.test(inv.args[i - 1]?.value ?? ''));
  const text = file ? writtenText({ written }, file.value, inv.cmd.cwd) : undefined;
  if (text !== undefined) out.push({ text, at: file, dynamic: text === null });
  if (s?.kind === 'pipe') {
    for (const c of s.from) {
      const name = c.words[0]?.value?.slice(c.words[0].value.lastIndexOf('/') + 1) ?? '';
      if (c.stdin?.kind === 'text')
        out.push({ text: c.stdin.text ?? '', at: undefined, dynamic: c.stdin.text === null });
      // `cat fix.sql | psql`: the files' SQL — read when this line wrote them, else the SQL file rule asks.
      if (name === 'cat') {
        for (const w of operands(c.words.slice(1))) {
          const t = w.value === '-' ? undefined : writtenText({ written }, w.value, c.cwd);
          if (t !== undefined) out.push({ text: t, at: w, dynamic: t === null });
        }
        continue;
      }
      // `echo "DROP TABLE $T"`: the raw text still says what it does; anything but echo/printf/cat is unknown SQL.
      for (const w of c.words.slice(1)) out.push({ text: w.value ?? w.raw, at: w });
      if (!['echo', 'printf'].includes(name)) out.push({ text: null, at: c.words[0], dynamic: true });
    }
  }
  return out;
}

export type SqlVerdict =
  { kind: 'dynamic'; at: Word | undefined } | { kind: 'destroys'; what: string; at: Word | undefined };

/** The first thing the SQL of a line says about itself: built at run time, or destroying data. */
export function sqlVerdict(texts: readonly SqlText[]): SqlVerdict | undefined {
  for (const { text, at, dynamic } of texts) {
    if (dynamic) return { kind: 'dynamic', at };
    const what = text === null ? undefined : destructiveSql(text);
    if (what) return { kind: 'destroys', what, at };
  }
  return undefined;
}

/** The lines of the SQL texts, one statement or client command each (`\! rm -rf ~`, `.restore x`). */
export function clientLines(text: string): string[] {
  return text.split(/\n|(?<=;)/).map((l) => l.trim());
}

/** A client command that replaces the whole database (sqlite's `.restore`). */
export function restoreLine(texts: readonly SqlText[]): SqlText | undefined {
  return texts.find((t) => t.text !== null && clientLines(t.text).some((l) => /^\.restore\b/.test(l)));
}
