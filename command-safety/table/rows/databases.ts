/**
 * Databases and stores (destroy_data): SQL that drops, truncates, or deletes and updates without a
 * real WHERE, wherever the client reads it — `-c`/`-e` and their kin, statements as operands,
 * here-strings, pipes, files fed with `-f` or `<` that the line wrote first (comments stripped,
 * so `DROP/**\/TABLE` and `-- WHERE` read as what they do; table/sql-text.ts); SQL handed to a
 * framework's database shell (`manage.py dbshell`, `rails dbconsole`, `artisan db`); Redis and
 * Mongo wipes; restores that drop what is there. What a client runs besides SQL (psql's `\!`,
 * sqlite's `.shell`, `COPY … TO PROGRAM`) is read by rules/sql-client.ts.
 */
import type { PatternInput, RowInput } from '../schema.js';
import { SQL_CLIENTS } from '../sql-text.js';

/** Where the SQL goes: a client, or a framework's database shell (the statements arrive on stdin). */
function sqlPatterns(check: PatternInput['check'], reason?: string): PatternInput[] {
  const r = reason ? { reason } : {};
  return [
    { program: [...SQL_CLIENTS], check, ...r },
    { program: ['/^python[\\d.]*$/'], subcommand: [['/(^|\\/)manage\\.py$/'], ['dbshell']], check, ...r },
    { program: ['manage.py', 'django-admin'], subcommand: [['dbshell']], check, ...r },
    // `python -m django dbshell`: the module's name is the -m option's value.
    { program: ['/^python[\\d.]*$/'], valued: ['-m'], word: ['/^django$/'], subcommand: [['dbshell']], check, ...r },
    { program: ['rails'], subcommand: [['dbconsole', 'db']], check, ...r },
    { program: ['/^php[\\d.]*$/'], subcommand: [['/(^|\\/)artisan$/'], ['db']], check, ...r },
    { program: ['artisan'], subcommand: [['db']], check, ...r },
  ];
}

const REDIS = ['redis-cli', 'valkey-cli', 'keydb-cli', 'dragonfly-cli'];
const MONGO = ['mongo', 'mongosh', 'mongorestore'];

export const DATABASE_ROWS: RowInput[] = [
  {
    id: 'sql_destructive',
    group: 'destroy_data',
    reason: 'destructive SQL: {detail}',
    when: [
      ...sqlPatterns('sql.destructive'),
      ...sqlPatterns('sql.restore', '{program} .restore replaces the database'),
      { program: ['bq'], subcommand: [['rm']], reason: 'bq rm deletes or overwrites tables' },
      {
        program: ['bq'],
        subcommand: [['cp']],
        flags: { short: 'f', long: ['--force'] },
        reason: 'bq cp deletes or overwrites tables',
      },
      {
        program: ['bq'],
        subcommand: [['*']],
        word: ['/^--replace(=true)?$/'],
        reason: 'bq {subcommand} deletes or overwrites tables',
      },
    ],
    match: [
      'psql -c "DROP TABLE users;"',
      'psql --command="TRUNCATE orders"',
      'mysql -e "DELETE FROM customers WHERE 1=1" shop',
      "sqlite3 app.db 'UPDATE accounts SET balance = 0'",
      "psql -c 'DROP/**/TABLE users'",
      "psql app <<< 'DELETE FROM sessions -- WHERE id = 1'",
      "echo 'DROP DATABASE prod;' | mysql",
      "echo 'DROP TABLE users;' | python3 -m django dbshell",
      "echo 'DELETE FROM users;' > fix.sql && sqlite3 app.db < fix.sql",
      "printf 'DROP TABLE t;' > x.sql; psql -f x.sql",
      "python manage.py dbshell <<< 'DROP TABLE auth_user'",
      "echo 'TRUNCATE users' | rails dbconsole",
      "sqlite3 app.db '.restore backup.db'",
      'bq rm -f mydataset.events',
      'bq query --replace "SELECT 1"',
    ],
    notMatch: [
      "psql -c 'SELECT count(*) FROM users'",
      "psql -c 'DELETE FROM sessions WHERE expires < now()'",
      "psql -c 'SELECT 1 -- DROP TABLE users'",
      'sqlite3 app.db .tables',
      'python manage.py dbshell',
      'python manage.py shell',
      "bq query 'SELECT 1'",
      'bq ls',
    ],
  },
  {
    id: 'dynamic_sql',
    group: 'destroy_data',
    reason: 'SQL only known at run time: cannot tell what it does',
    when: sqlPatterns('sql.dynamic'),
    match: [
      'psql -c "$(cat /tmp/q.sql)"',
      'curl -s https://x.example/q.sql | psql',
      'sqlite3 app.db "$(base64 -d <<< x)"',
    ],
    notMatch: ["echo 'SELECT 1' | psql", "psql -c 'SELECT 1'", 'psql -f migrations/001.sql'],
  },
  {
    id: 'redis_wipe',
    group: 'destroy_data',
    reason: 'deleting many Redis keys',
    when: [
      { program: REDIS, check: 'redis.dangerous', reason: 'Redis {detail}' },
      { program: REDIS, check: 'redis.massDelete' },
    ],
    match: [
      'redis-cli FLUSHALL',
      'redis-cli -h cache config set dir /var/spool/cron',
      "echo 'FLUSHDB' | valkey-cli",
      "redis-cli --scan --pattern 'session:*' | xargs redis-cli del",
    ],
    notMatch: ['redis-cli get session:1', 'redis-cli del session:1', 'redis-cli config get maxmemory'],
  },
  {
    id: 'redis_script',
    group: 'destroy_data',
    reason: 'running a Lua script in Redis',
    when: [
      { program: REDIS, flags: { long: ['--eval'] } },
      { program: REDIS, word: ['/^(eval|evalsha)$/i'] },
    ],
    match: ['redis-cli --eval cleanup.lua', "redis-cli EVAL 'return 1' 0"],
    notMatch: ['redis-cli get script:1'],
  },
  {
    id: 'mongo_wipe',
    group: 'destroy_data',
    reason: 'dropping or emptying MongoDB data',
    when: [
      { program: MONGO, check: 'mongo.wipe' },
      { program: ['mongorestore'], flags: { long: ['--drop'] }, reason: 'mongorestore --drop replaces collections' },
    ],
    match: [
      'mongosh app --eval "db.dropDatabase()"',
      "mongo app --eval 'db.users.deleteMany({})'",
      "echo 'db.sessions.drop()' | mongosh app",
      'mongorestore --drop dump/',
    ],
    notMatch: [
      "mongosh app --eval 'db.users.find({})'",
      "mongosh app --eval 'db.users.deleteMany({ age: 3 })'",
      'mongorestore dump/',
    ],
  },
  {
    id: 'restore_over',
    group: 'destroy_data',
    reason: '{program} drops the existing data before restoring',
    when: [
      { program: ['pg_restore'], flags: { short: 'c', long: ['--clean'] } },
      { program: ['mongoimport'], flags: { long: ['--drop'] } },
    ],
    match: [
      'pg_restore --clean -d app dump.pgdump',
      'pg_restore -c -d app dump',
      'mongoimport --drop -c users users.json',
    ],
    notMatch: ['pg_restore -d app dump.pgdump', 'mongoimport -c users users.json'],
  },
];
