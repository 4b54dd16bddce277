/**
 * Destroying data through applications (group destroy_data): HTTP DELETE, and code handed to a
 * framework's console. SQL, Redis and Mongo are the database rows' (table/rows/databases.ts), ORM
 * and migration resets the migration rows' (table/rows/migrations.ts); what a SQL client runs
 * besides SQL is sql-client.ts's.
 */
import { isLoopback, networkOperands, urlOf } from '../loopback.js';
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
  const url = urlOf(v);
  return (
    url !== undefined &&
    isLoopback(v) &&
    DEV_PORTS.test(url.port) &&
    !/[*]|%2A|\/_|,/i.test(url.pathname) &&
    url.pathname.split('/').filter(Boolean).length >= 2
  );
}

export function httpDelete(inv: Invocation): boolean {
  const a = inv.args.map((w) => w.value ?? '');
  const urls = networkOperands(operands(inv.args));
  if (
    urls.length &&
    urls.every((w) => w.value !== null && localDevResource(w.value)) &&
    !inv.args.some((w) => w.value === null)
  )
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

/** `python manage.py shell -c …`, `php artisan tinker`, `rails runner …`: code handed to the app. */
const frameworkConsole: Rule = (inv, ctx) => {
  if (/^python[\d.]*$|^php[\d.]*$/.test(inv.name)) {
    const script = inv.args.find((w) => w.value !== null && !w.value.startsWith('-'));
    const base = script?.value?.slice(script.value.lastIndexOf('/') + 1);
    if (base && (base === 'manage.py' || base === 'artisan'))
      frameworkShell(inv, ctx, base, inv.args.slice(inv.args.indexOf(script!) + 1));
    return;
  }
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

export const DATA_RULES: Record<string, Rule> = {
  ...Object.fromEntries(SQL_CLIENTS.map((n) => [n, sqlClientCommands])),
  ...Object.fromEntries(['manage.py', 'django-admin', 'rails', 'artisan'].map((n) => [n, frameworkConsole])),
};
