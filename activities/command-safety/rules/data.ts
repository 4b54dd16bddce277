/**
 * Destroying data in databases and stores (group destroy_data): SQL that drops, truncates, or
 * deletes and updates without a real WHERE (comments and odd spacing removed first, so
 * `DROP/**\/TABLE` and `-- WHERE` read as what they do), Redis and Mongo wipes, HTTP DELETE, and
 * the reset and drop commands of ORMs and migration tools.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { operands, optionValue } from '../options.js';
import type { Word } from '../shell.js';

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
};

interface SqlText {
  text: string | null;
  at: Word | undefined;
  /** Built at run time (a substitution, a decoder): cannot be read. */
  dynamic?: boolean;
}

/** The SQL a command will send: its option, a positional statement, or what it reads on stdin. */
function sqlTexts(inv: Invocation): SqlText[] {
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
  for (const { text, at, dynamic } of sqlTexts(inv)) {
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
  /\b(dropDatabase|drop\s*\(|deleteMany\s*\(\s*\{\s*\}|remove\s*\(\s*\{\s*\}|remove\s*\(\s*\)|deleteMany\s*\(\s*\)|updateMany\s*\(\s*\{\s*\}|dropIndexes|dropUser|dropAllUsers|dropRole|\bdrop['"+]|['"]drop)/;

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

/** HTTP DELETE (Elasticsearch indices, REST resources). */
export function httpDelete(inv: Invocation): boolean {
  const a = inv.args.map((w) => w.value ?? '');
  return (
    a.some(
      (v, i) =>
        /^-[a-zA-Z]*X\s*DELETE$/i.test(v) ||
        (/^-[a-zA-Z]*X$/.test(v) && /^DELETE$/i.test(a[i + 1] ?? '')) ||
        /^--request=DELETE$/i.test(v) ||
        (/^(-X|--request|--method)$/.test(v) && /^DELETE$/i.test(a[i + 1] ?? '')),
    ) ||
    a.some((v) => /\/_delete_by_query\b|\/_flush\b.*\/_all|\/_all\b.*DELETE/.test(v)) ||
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
    if (base && (base === 'manage.py' || base === 'artisan'))
      ormRule(inv, ctx, inv.args.slice(inv.args.indexOf(script!) + 1), base);
    return;
  }
  const name = inv.path.replace(/^\.\//, '');
  ormRule(inv, ctx, inv.args, ORM.some((o) => o.names.includes(name)) ? name : inv.name);
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
};
