/**
 * Destroying data in databases and stores (group destroy_data): SQL that drops, truncates, or
 * deletes and updates without a real WHERE (comments and odd spacing removed first, so
 * `DROP/**\/TABLE` and `-- WHERE` read as what they do), Redis and Mongo wipes, HTTP DELETE, and
 * the reset and drop commands of ORMs and migration tools.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { hasOption, operands, optionValue } from '../options.js';
import type { Word } from '../shell.js';
import { inlineCode, stdinCode } from './code.js';
import { writtenText } from './written.js';

/** SQL with comments removed and whitespace collapsed, lower case. */
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

/** What in a SQL text destroys data, or undefined. */
export function destructiveSql(sql: string): string | undefined {
  const s = normaliseSql(sql);
  const m =
    /\b(drop\s+(?:table|database|schema|view|index|user|role|materialized|sequence|function|procedure|trigger|owned|extension|keyspace|collection|type|domain|tablespace)\b|truncate\b|alter\s+table\s+\S+\s+drop\b)/.exec(
      s,
    );
  if (m) return m[1]!.replace(/\s+/g, ' ').toUpperCase();
  for (const stmt of s.split(';')) {
    if (/\bdelete\s+(?:from\s+)?[\w."`[\]]+/.test(stmt) && (!/\bwhere\b/.test(stmt) || TRIVIAL_WHERE.test(stmt)))
      return 'DELETE without a real WHERE';
    if (/\bupdate\s+[\w."`[\]]+\s+set\b/.test(stmt) && (!/\bwhere\b/.test(stmt) || TRIVIAL_WHERE.test(stmt)))
      return 'UPDATE without a real WHERE';
  }
  if (/\bdropdb\b|\bflushall\b|\bflushdb\b/.test(s)) return 'a database wipe';
  return undefined;
}

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

interface SqlText {
  text: string | null;
  at: Word | undefined;
  /** Built at run time (a substitution, a decoder): cannot be read. */
  dynamic?: boolean;
}

/** The SQL a command will send: its option, a positional statement, or what it reads on stdin. */
function sqlTexts(inv: Invocation, ctx: RuleContext): SqlText[] {
  const out: SqlText[] = [];
  const spec = SQL_OPTIONS[inv.name];
  for (let i = 0; i < inv.args.length; i++) {
    const w = inv.args[i]!;
    const v = w.value;
    if (v === null) continue;
    if (spec?.short && (v === `-${spec.short}` || v === `--${spec.short}`))
      out.push({ text: inv.args[i + 1]?.value ?? null, at: inv.args[i + 1], dynamic: inv.args[i + 1]?.value === null });
    else if (spec?.short && v.startsWith(`-${spec.short}`) && v.length > 2 && !v.startsWith('--'))
      out.push({ text: v.slice(2), at: w });
    for (const l of spec?.long ?? []) {
      if (v === l)
        out.push({
          text: inv.args[i + 1]?.value ?? null,
          at: inv.args[i + 1],
          dynamic: inv.args[i + 1]?.value === null,
        });
      else if (v.startsWith(`${l}=`)) out.push({ text: v.slice(l.length + 1), at: w });
    }
  }
  // sqlite3 db "SQL", duckdb db "SQL", bq query "SQL", cockroach sql -e: statements as operands.
  if (['sqlite3', 'sqlite', 'duckdb', 'litecli', 'bq', 'spatialite'].includes(inv.name))
    for (const w of operands(inv.args).slice(1))
      out.push({ text: w.value, at: w, dynamic: w.value === null && /\$\(|`/.test(w.raw) });
  const s = inv.cmd.stdin;
  if (s?.kind === 'text') out.push({ text: s.text, at: undefined, dynamic: s.text === null });
  // `echo 'DELETE FROM users;' > fix.sql && sqlite3 app.db < fix.sql`: a file this line wrote.
  const file =
    s?.kind === 'file' ? s.path : inv.args.find((w, i) => /^(-f|--file|-i)$/.test(inv.args[i - 1]?.value ?? ''));
  const written = file ? writtenText(ctx, file.value, inv.cmd.cwd) : undefined;
  if (written !== undefined) out.push({ text: written, at: file, dynamic: written === null });
  if (s?.kind === 'pipe') {
    for (const c of s.from) {
      const name = c.words[0]?.value?.slice(c.words[0].value.lastIndexOf('/') + 1) ?? '';
      // `echo "DROP TABLE $T"`: the raw text still says what it does; anything but echo/printf/cat is unknown SQL.
      for (const w of c.words.slice(1)) out.push({ text: w.value ?? w.raw, at: w });
      if (c.stdin?.kind === 'text')
        out.push({ text: c.stdin.text ?? '', at: undefined, dynamic: c.stdin.text === null });
      if (!['echo', 'printf', 'cat'].includes(name)) out.push({ text: null, at: c.words[0], dynamic: true });
    }
  }
  return out;
}

export const SQL_CLIENTS = new Set([
  ...Object.keys(SQL_OPTIONS),
  'sqlite3',
  'sqlite',
  'litecli',
  'spatialite',
  'sqlplus',
  'isql',
  'db2',
  'mongo',
  'mongosh',
]);

const sqlClient: Rule = (inv, ctx) => {
  for (const { text, at, dynamic } of sqlTexts(inv, ctx)) {
    if (text !== null) clientCommands(inv, ctx, text, at);
    if (dynamic)
      return ctx.add(inv, {
        group: 'destroy_data',
        rule: 'dynamic_sql',
        reason: 'SQL only known at run time: cannot tell what it does',
        at: [inv.word, at],
      });
    if (text === null) continue;
    const what = destructiveSql(text);
    if (what)
      return ctx.add(inv, {
        group: 'destroy_data',
        rule: 'sql_destructive',
        reason: `destructive SQL: ${what}`,
        at: [inv.word, at],
      });
  }
};

/**
 * What a SQL client runs besides SQL: psql's `\!` and `\o |cmd`, mysql's `system`, sqlite's
 * `.shell`/`.system` (shell commands) and `.load` (a library), `.restore` (replaces the database),
 * and `COPY … TO PROGRAM` (a command on the database server).
 */
function clientCommands(inv: Invocation, ctx: RuleContext, text: string, at: Word | undefined): void {
  const word = { ...(at ?? inv.word) };
  const run = (cmd: string, why: string, elsewhere = false) => {
    ctx.add(inv, { group: 'indirection', rule: 'inline_interpreter', reason: why, at: [inv.word, at] });
    ctx.script(inv, { ...word, value: cmd }, why, elsewhere ? { elsewhere: true } : {});
  };
  for (const m of text.matchAll(/\bcopy\b[^;]*?\b(?:to|from)\s+program\s+'((?:[^']|'')*)'/gi))
    run(m[1]!.replace(/''/g, "'"), 'COPY … PROGRAM runs a command on the database server', true);
  for (const line of text.split(/\n|(?<=;)/)) {
    const l = line.trim();
    const shell =
      /^\\!\s*(.*)$/s.exec(l) ??
      /^\\(?:o|out|g|gx|gexec)\s*\|\s*(.*)$/s.exec(l) ??
      (/^(mysql|mariadb|mysqlsh|mycli)$/.test(inv.name) ? /^system\s+(.*)$/is.exec(l) : null) ??
      /^\.(?:shell|system)\s+(.*)$/s.exec(l);
    if (shell) run(shell[1]!, `${inv.name} runs a shell command`);
    else if (/^\.restore\b/.test(l))
      ctx.add(inv, {
        group: 'destroy_data',
        rule: 'sql_destructive',
        reason: `${inv.name} .restore replaces the database`,
        at: [inv.word, at],
      });
    else if (/^\.load\b|^\\copy\b.*\bprogram\b/i.test(l))
      ctx.add(inv, {
        group: 'indirection',
        rule: 'inline_interpreter',
        reason: `${inv.name} loads a library or runs a program`,
        at: [inv.word, at],
      });
  }
}

/** Redis and its forks: FLUSHALL/FLUSHDB, CONFIG SET (writes files), SHUTDOWN, DEBUG, mass DEL. */
const REDIS_DANGER =
  /\b(flushall|flushdb|shutdown|config\s+set|debug\s+(segfault|sleep|crash|reload)|script\s+flush|function\s+flush|cluster\s+reset|swapdb|slaveof|replicaof|module\s+load)\b/i;

const redis: Rule = (inv, ctx) => {
  const words = inv.args.map((w) => w.value ?? '').join(' ');
  const stdin = inv.cmd.stdin;
  const stdinText =
    stdin?.kind === 'text'
      ? (stdin.text ?? '')
      : stdin?.kind === 'pipe'
        ? stdin.from.map((c) => c.words.map((w) => w.value ?? '').join(' ')).join('\n')
        : '';
  const m = REDIS_DANGER.exec(words) ?? REDIS_DANGER.exec(stdinText);
  if (m) return ctx.add(inv, { group: 'destroy_data', rule: 'redis_wipe', reason: `Redis ${m[1]!.toUpperCase()}` });
  if (/\b(del|unlink)\b/i.test(words) && (inv.operandsFromStdin || /--scan|keys\s+\*/i.test(words)))
    ctx.add(inv, { group: 'destroy_data', rule: 'redis_wipe', reason: 'deleting many Redis keys' });
  if (/^--eval$/.test(inv.args[0]?.value ?? '') || inv.args.some((w) => /^(eval|evalsha)$/i.test(w.value ?? '')))
    ctx.add(inv, { group: 'destroy_data', rule: 'redis_script', reason: 'running a Lua script in Redis' });
};

const MONGO_DANGER =
  /\b(dropDatabase|drop\s*\(|["']?\bdrop["']?\s*:|deleteMany\s*["']?\s*:\s*\{\s*["']?filter["']?\s*:\s*\{\s*\}|deleteMany\s*\(\s*\{\s*\}|remove\s*\(\s*\{\s*\}|remove\s*\(\s*\)|deleteMany\s*\(\s*\)|updateMany\s*\(\s*\{\s*\}|dropIndexes|dropUser|dropAllUsers|dropRole|\bdrop['"+]|['"]drop)/;

const mongo: Rule = (inv, ctx) => {
  const code = [optionValue(inv.args, undefined, ['--eval']), ...inv.args.map((w) => w.value)]
    .filter((x): x is string => !!x)
    .join('\n');
  const stdin = inv.cmd.stdin;
  const text = `${code}\n${stdin?.kind === 'text' ? (stdin.text ?? '') : ''}\n${stdin?.kind === 'pipe' ? stdin.from.map((c) => c.words.map((w) => w.value ?? '').join(' ')).join('\n') : ''}`;
  if (MONGO_DANGER.test(text))
    ctx.add(inv, { group: 'destroy_data', rule: 'mongo_wipe', reason: 'dropping or emptying MongoDB data' });
  if (inv.name === 'mongorestore' && inv.args.some((w) => w.value === '--drop'))
    ctx.add(inv, { group: 'destroy_data', rule: 'mongo_wipe', reason: 'mongorestore --drop replaces collections' });
};

/**
 * Ports of local development servers (`npm run dev`, Rails, Django, Vite): deleting one resource
 * from the app being built is everyday, unlike from a database or search engine listening locally
 * (Elasticsearch on 9200, CouchDB on 5984, Qdrant on 6333).
 */
const DEV_PORTS = /^(3\d{3}|4\d{3}|5000|5001|5173|5174|8000|8001|8008|8080|8081|8787|8888)$/;

/** A URL of the local development server, naming one resource (no wildcard, no `_all`). */
function localDevResource(v: string): boolean {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : `http://${v}`);
  } catch {
    return false;
  }
  return (
    /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)$/.test(url.hostname) &&
    DEV_PORTS.test(url.port) &&
    !/[*]|%2A|\/_|,/i.test(url.pathname) &&
    url.pathname.split('/').filter(Boolean).length >= 2
  );
}

/** HTTP DELETE (Elasticsearch indices, REST resources), except of one resource of the local dev server. */
export function httpDelete(inv: Invocation): boolean {
  const a = inv.args.map((w) => w.value ?? '');
  const urls = operands(inv.args).filter(
    (w) => w.value !== null && /^(https?:\/\/|localhost|127\.|\[::1\])/.test(w.value),
  );
  if (urls.length && urls.every((w) => localDevResource(w.value!)) && !inv.args.some((w) => w.value === null))
    return false;
  return (
    a.some(
      (v, i) =>
        /^-[a-zA-Z]*X\s*DELETE$/i.test(v) ||
        (/^-[a-zA-Z]*X$/.test(v) && /^DELETE$/i.test(a[i + 1] ?? '')) ||
        /^--request=DELETE$/i.test(v) ||
        (/^(-X|--request|--method)$/.test(v) && /^DELETE$/i.test(a[i + 1] ?? '')),
    ) ||
    a.some((v) => /\/_delete_by_query\b|\/_close\b|\/_flush\b.*\/_all|\/_all\b.*DELETE/.test(v)) ||
    (inv.name === 'http' || inv.name === 'https' || inv.name === 'xh' ? /^DELETE$/i.test(a[0] ?? '') : false)
  );
}

/** ORM and migration tools: the subcommands that drop or reset a database. */
const ORM: Array<{ names: string[]; verbs: RegExp; reason: string }> = [
  {
    names: ['rails', 'rake', 'bin/rails', 'bin/rake'],
    verbs:
      /^db:(drop|reset|schema:load|migrate:reset|purge|truncate_all|setup|structure:load|seed:replant|migrate:redo)\b/,
    reason: 'a Rails database reset',
  },
  {
    names: ['manage.py', 'django-admin'],
    verbs: /^(flush|reset_db|sqlflush|reset_schema|drop_test_database)\b|^migrate \S+ zero\b/,
    reason: 'a Django database flush or reset',
  },
  {
    names: ['prisma'],
    verbs: /^(migrate reset|db push .*--(force-reset|accept-data-loss)|migrate dev .*--force)/,
    reason: 'a Prisma reset or lossy push',
  },
  {
    names: ['sequelize', 'sequelize-cli'],
    verbs: /^(db:drop|db:migrate:undo:all|db:seed:undo:all)/,
    reason: 'a Sequelize drop or full rollback',
  },
  {
    names: ['knex'],
    verbs: /^migrate:(rollback .*--all|down .*--all)|^migrate:rollback --all/,
    reason: 'a Knex full rollback',
  },
  { names: ['alembic'], verbs: /^downgrade (base|-\d+)/, reason: 'an Alembic downgrade' },
  { names: ['dropdb', 'mysqladmin'], verbs: /.*/, reason: 'dropping a database' },
  { names: ['goose'], verbs: /\b(reset|down-to 0)\b/, reason: 'a goose reset' },
  { names: ['typeorm'], verbs: /^(schema:drop|migration:revert)/, reason: 'a TypeORM schema drop' },
  { names: ['drizzle-kit'], verbs: /^(drop|push .*--force)/, reason: 'a drizzle-kit drop' },
  { names: ['flyway'], verbs: /\bclean\b/, reason: 'flyway clean drops every object' },
  {
    names: ['liquibase'],
    verbs: /\b(dropAll|drop-all|rollback-count|rollbackCount)\b/,
    reason: 'a Liquibase drop or rollback',
  },
  {
    names: ['artisan'],
    verbs: /^(migrate:(fresh|reset|refresh|rollback)|db:wipe)/,
    reason: 'a Laravel migrate:fresh/reset or db:wipe',
  },
  { names: ['supabase'], verbs: /^db reset/, reason: 'a Supabase database reset' },
  { names: ['dbmate'], verbs: /^(drop|rollback)/, reason: 'a dbmate drop' },
  {
    names: ['diesel'],
    verbs: /^(database reset|database drop|migration revert --all|migration redo)/,
    reason: 'a Diesel reset',
  },
  { names: ['sqlx'], verbs: /^(database (drop|reset)|migrate revert)/, reason: 'a sqlx drop' },
  {
    names: ['etcdctl'],
    verbs: /^del\b.*--(prefix|from-key)|^del\s*$|^del\s+--/,
    reason: 'deleting etcd keys by prefix',
  },
  { names: ['flask'], verbs: /^db downgrade\b/, reason: 'a Flask-Migrate downgrade' },
  {
    names: ['migrate'],
    verbs: /\b(drop|down -all|force)\b|\bdown\s*$/,
    reason: 'a golang-migrate drop or full rollback',
  },
  {
    names: ['mikro-orm'],
    verbs: /^(schema:drop|schema:fresh|migration:fresh|migration:down)/,
    reason: 'a MikroORM schema drop',
  },
  {
    names: ['zkCli.sh', 'zkCli', 'zookeeper-shell'],
    verbs: /\b(deleteall|rmr|delete)\b/,
    reason: 'deleting ZooKeeper nodes',
  },
  { names: ['cypher-shell'], verbs: /\b(detach\s+)?delete\b|\bdrop\b/i, reason: 'deleting graph data' },
  { names: ['mix'], verbs: /^ecto\.(drop|reset|rollback --all)/, reason: 'an Ecto drop or reset' },
  { names: ['heroku'], verbs: /^pg:(reset|killall)/, reason: 'a Heroku Postgres reset' },
];

function ormRule(inv: Invocation, ctx: RuleContext, args: Word[], name: string): void {
  const text =
    operands(args)
      .map((w) => w.value ?? '')
      .join(' ') +
    ' ' +
    args
      .map((w) => w.value ?? '')
      .filter((v) => v.startsWith('--'))
      .join(' ');
  for (const o of ORM) {
    if (!o.names.includes(name)) continue;
    const ops = operands(args)
      .map((w) => w.value ?? '')
      .join(' ');
    if (o.verbs.test(ops) || o.verbs.test(text.trim()) || o.verbs.test(args.map((w) => w.value ?? '').join(' ')))
      return ctx.add(inv, { group: 'destroy_data', rule: 'orm_reset', reason: o.reason });
  }
}

const orm: Rule = (inv, ctx) => {
  // `python manage.py flush`, `php artisan migrate:fresh`, `npx prisma migrate reset`.
  if (/^python[\d.]*$|^php[\d.]*$/.test(inv.name)) {
    const script = inv.args.find((w) => w.value !== null && !w.value.startsWith('-'));
    const base = script?.value?.slice(script.value.lastIndexOf('/') + 1);
    if (base && (base === 'manage.py' || base === 'artisan')) {
      const args = inv.args.slice(inv.args.indexOf(script!) + 1);
      ormRule(inv, ctx, args, base);
      frameworkShell(inv, ctx, base, args);
    }
    return;
  }
  const name = inv.path.replace(/^\.\//, '');
  ormRule(inv, ctx, inv.args, ORM.some((o) => o.names.includes(name)) ? name : inv.name);
  frameworkShell(inv, ctx, inv.name, inv.args);
};

/**
 * Framework consoles: code or SQL handed to the app's own shell (`manage.py shell -c '…'`,
 * `manage.py dbshell <<< 'DROP …'`, `rails runner 'User.delete_all'`, `artisan tinker --execute=…`)
 * runs with the app's database connection.
 */
function frameworkShell(inv: Invocation, ctx: RuleContext, tool: string, args: Word[]): void {
  const ops = operands(args);
  const sub = ops[0]?.value ?? '';
  const code = (lang: string, w: Word | undefined) => {
    if (w) inlineCode(inv, ctx, lang, w);
  };
  const option = (short: string | undefined, long: string[]) => {
    const v = optionValue(args, short, long);
    return v === undefined ? undefined : { ...inv.word, value: v };
  };
  if (tool === 'manage.py' || tool === 'django-admin') {
    if (sub === 'shell' || sub === 'shell_plus') {
      const c = option('c', ['--command']);
      if (c) code('Python', c);
      else if (inv.cmd.stdin) stdinCode(inv, ctx, 'Python');
    }
    if (sub === 'dbshell') sqlClient(inv, ctx);
  } else if (tool === 'rails' || tool === 'bin/rails') {
    if (/^(runner|r)$/.test(sub) && ops[1] && !/\.rb$/.test(ops[1].value ?? '')) code('Ruby', ops[1]);
    if (/^(console|c)$/.test(sub) && inv.cmd.stdin) stdinCode(inv, ctx, 'Ruby');
    if (/^(dbconsole|db)$/.test(sub)) sqlClient(inv, ctx);
  } else if (tool === 'artisan') {
    if (sub === 'tinker') {
      const c = option(undefined, ['--execute']);
      if (c) code('PHP', c);
      else if (inv.cmd.stdin) stdinCode(inv, ctx, 'PHP');
    }
    if (sub === 'db') sqlClient(inv, ctx);
  }
}

/** `dotnet ef database drop`, `dotnet ef database update 0` (every migration rolled back). */
const dotnetEf: Rule = (inv, ctx) => {
  const ops = operands(inv.args).map((w) => w.value);
  if (ops[0] !== 'ef' || ops[1] !== 'database') return;
  if (ops[2] === 'drop' || (ops[2] === 'update' && ops[3] === '0'))
    ctx.add(inv, {
      group: 'destroy_data',
      rule: 'orm_reset',
      reason: `dotnet ef database ${ops.slice(2, 4).join(' ')} drops the database's tables`,
    });
};

/** `pg_restore --clean` drops every object before recreating it from the dump; `mongoimport --drop` the collection. */
const restoreOver: Rule = (inv, ctx) => {
  const clean =
    inv.name === 'pg_restore'
      ? hasOption(inv.args, { short: 'c', long: ['--clean'] })
      : hasOption(inv.args, { long: ['--drop'] });
  if (clean)
    ctx.add(inv, {
      group: 'destroy_data',
      rule: 'restore_over',
      reason: `${inv.name} drops the existing data before restoring`,
    });
};

/** BigQuery: `bq rm` deletes datasets and tables, `--replace` and `cp -f` overwrite them. */
const bq: Rule = (inv, ctx) => {
  const [verb] = operands(inv.args).map((w) => w.value);
  if (
    verb === 'rm' ||
    (verb === 'cp' && hasOption(inv.args, { short: 'f', long: ['--force'] })) ||
    inv.args.some((w) => /^--replace(=true)?$/.test(w.value ?? ''))
  )
    ctx.add(inv, { group: 'destroy_data', rule: 'sql_destructive', reason: `bq ${verb} deletes or overwrites tables` });
};

export const ORM_NAMES = new Set(ORM.flatMap((o) => o.names.map((n) => n.slice(n.lastIndexOf('/') + 1))));

export const DATA_RULES: Record<string, Rule> = {
  ...Object.fromEntries([...SQL_CLIENTS].filter((n) => n !== 'mongo' && n !== 'mongosh').map((n) => [n, sqlClient])),
  'redis-cli': redis,
  'valkey-cli': redis,
  'keydb-cli': redis,
  'dragonfly-cli': redis,
  mongo,
  mongosh: mongo,
  mongorestore: mongo,
  ...Object.fromEntries([...ORM_NAMES].map((n) => [n, orm])),
  dotnet: dotnetEf,
  pg_restore: restoreOver,
  mongoimport: restoreOver,
  bq: (inv, ctx) => {
    sqlClient(inv, ctx);
    bq(inv, ctx);
  },
};
