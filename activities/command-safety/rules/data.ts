/**
 * Destroying data through applications (group destroy_data): HTTP DELETE, the reset and drop
 * commands of ORMs and migration tools, and code handed to a framework's console. SQL, Redis and
 * Mongo are the database rows' (table/rows/databases.ts); what a SQL client runs besides SQL is
 * sql-client.ts's.
 */
import type { Invocation, Rule, RuleContext } from '../invocation.js';
import { operands, optionValue } from '../options.js';
import type { Word } from '../shell.js';
import { inlineCode, stdinCode } from './code.js';
import { SQL_CLIENTS } from '../table/sql-text.js';
import { sqlClientCommands } from './sql-client.js';

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
    if (sub === 'dbshell') sqlClientCommands(inv, ctx);
  } else if (tool === 'rails' || tool === 'bin/rails') {
    if (/^(runner|r)$/.test(sub) && ops[1] && !/\.rb$/.test(ops[1].value ?? '')) code('Ruby', ops[1]);
    if (/^(console|c)$/.test(sub) && inv.cmd.stdin) stdinCode(inv, ctx, 'Ruby');
    if (/^(dbconsole|db)$/.test(sub)) sqlClientCommands(inv, ctx);
  } else if (tool === 'artisan') {
    if (sub === 'tinker') {
      const c = option(undefined, ['--execute']);
      if (c) code('PHP', c);
      else if (inv.cmd.stdin) stdinCode(inv, ctx, 'PHP');
    }
    if (sub === 'db') sqlClientCommands(inv, ctx);
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

export const ORM_NAMES = new Set(ORM.flatMap((o) => o.names.map((n) => n.slice(n.lastIndexOf('/') + 1))));

export const DATA_RULES: Record<string, Rule> = {
  ...Object.fromEntries(SQL_CLIENTS.map((n) => [n, sqlClientCommands])),
  ...Object.fromEntries([...ORM_NAMES].map((n) => [n, orm])),
  dotnet: dotnetEf,
};
