/**
 * ORM and migration tools, and stores with their own delete commands: the subcommands that drop,
 * reset or fully roll back a database (every table's data is gone). Migrating forward, status
 * and generating migrations stay everyday work.
 */
import type { RowInput } from '../schema.js';

const PYTHON = '/^python[\\d.]*$/';
const PHP = '/^php[\\d.]*$/';
const MANAGE = '/(^|\\/)manage\\.py$/';
const ARTISAN_RESET = '/^(migrate:(fresh|reset|refresh|rollback)|db:wipe)\\b/';
/** The test database: tests recreate it, so resetting it is everyday work. */
const TEST_ENV = '/^(RAILS_ENV|RACK_ENV|MIX_ENV|APP_ENV|NODE_ENV)=test(ing)?$/';
const DJANGO_RESET = '/^(flush|reset_db|sqlflush|reset_schema|drop_test_database)$/';

export const MIGRATION_ROWS: RowInput[] = [
  {
    id: 'orm_reset',
    group: 'destroy_data',
    reason: '{program} {subcommand} drops or resets the database',
    when: [
      {
        program: ['rails', 'rake'],
        word: [
          '/^db:(drop|reset|schema:load|migrate:reset|purge|truncate_all|setup|structure:load|seed:replant|migrate:redo)\\b/',
        ],
        notEnv: TEST_ENV,
        reason: 'a Rails database reset ({word})',
      },
      {
        program: ['manage.py', 'django-admin'],
        subcommand: [[DJANGO_RESET]],
        reason: 'a Django database flush or reset',
      },
      { program: [PYTHON], subcommand: [[MANAGE], [DJANGO_RESET]], reason: 'a Django database flush or reset' },
      {
        program: ['manage.py', 'django-admin'],
        subcommand: [['migrate'], ['*'], ['zero']],
        reason: 'a Django rollback of every migration',
      },
      {
        program: [PYTHON],
        subcommand: [[MANAGE], ['migrate'], ['*'], ['zero']],
        reason: 'a Django rollback of every migration',
      },
      { program: ['prisma'], subcommand: [['migrate'], ['reset']], reason: 'a Prisma reset' },
      {
        program: ['prisma'],
        subcommand: [['db'], ['push']],
        flags: { long: ['--force-reset', '--accept-data-loss'] },
        reason: 'a Prisma lossy push',
      },
      {
        program: ['prisma'],
        subcommand: [['migrate'], ['dev']],
        flags: { long: ['--force'] },
        reason: 'a Prisma reset',
      },
      {
        program: ['sequelize', 'sequelize-cli'],
        word: ['/^(db:drop|db:migrate:undo:all|db:seed:undo:all)/'],
        reason: 'a Sequelize drop or full rollback',
      },
      {
        program: ['knex'],
        subcommand: [['migrate:rollback', 'migrate:down']],
        flags: { long: ['--all'] },
        reason: 'a Knex full rollback',
      },
      { program: ['alembic'], word: ['/^downgrade$/', '/^(base|-\\d+)/'], reason: 'an Alembic downgrade' },
      // A database named as a test one (`dropdb app_test && createdb app_test`): tests recreate it.
      { program: ['dropdb', 'mysqladmin'], notWord: '/^[\\w-]+[_-]test$/', reason: 'dropping a database' },
      { program: ['goose'], word: ['/^reset$/'], reason: 'a goose reset' },
      { program: ['goose'], word: ['/^down-to$/', '/^0$/'], reason: 'a goose reset' },
      { program: ['typeorm'], word: ['/^(schema:drop|migration:revert)/'], reason: 'a TypeORM schema drop' },
      { program: ['drizzle-kit'], subcommand: [['/^drop/']], reason: 'a drizzle-kit drop' },
      {
        program: ['drizzle-kit'],
        subcommand: [['push']],
        flags: { long: ['--force'] },
        reason: 'a drizzle-kit push that drops',
      },
      { program: ['flyway'], word: ['/^clean$/'], reason: 'flyway clean drops every object' },
      {
        program: ['liquibase'],
        word: ['/^(dropAll|drop-all|rollback-count|rollbackCount)$/'],
        reason: 'a Liquibase drop or rollback',
      },
      {
        program: ['artisan'],
        subcommand: [[ARTISAN_RESET]],
        notWord: '/^--env=test(ing)?$/',
        notEnv: TEST_ENV,
        reason: 'a Laravel migrate:fresh/reset or db:wipe',
      },
      {
        program: [PHP],
        subcommand: [['/(^|\\/)artisan$/'], [ARTISAN_RESET]],
        notWord: '/^--env=test(ing)?$/',
        notEnv: TEST_ENV,
        reason: 'a Laravel migrate:fresh/reset or db:wipe',
      },
      { program: ['supabase'], subcommand: [['db'], ['reset']], reason: 'a Supabase database reset' },
      { program: ['dbmate'], word: ['/^(drop|rollback|down)$/'], reason: 'a dbmate drop' },
      { program: ['diesel'], subcommand: [['database'], ['reset', 'drop']], reason: 'a Diesel reset' },
      { program: ['diesel'], subcommand: [['migration'], ['redo']], reason: 'a Diesel reset' },
      {
        program: ['diesel'],
        subcommand: [['migration'], ['revert']],
        flags: { long: ['--all'] },
        reason: 'a Diesel reset',
      },
      { program: ['sqlx'], subcommand: [['database'], ['drop', 'reset']], reason: 'a sqlx drop' },
      { program: ['sqlx'], subcommand: [['migrate'], ['revert']], reason: 'a sqlx rollback' },
      {
        program: ['etcdctl'],
        subcommand: [['del']],
        flags: { long: ['--prefix', '--from-key'] },
        reason: 'deleting etcd keys by prefix',
      },
      { program: ['etcdctl'], subcommand: [['del'], ['']], reason: 'deleting etcd keys by prefix' },
      { program: ['flask'], subcommand: [['db'], ['downgrade']], reason: 'a Flask-Migrate downgrade' },
      { program: ['migrate'], word: ['/^(drop|force)$/'], reason: 'a golang-migrate drop' },
      { program: ['migrate'], word: ['/^down$/'], notWord: '/^\\d+$/', reason: 'a golang-migrate full rollback' },
      {
        program: ['mikro-orm'],
        word: ['/^(schema:drop|schema:fresh|migration:fresh|migration:down)/'],
        reason: 'a MikroORM schema drop',
      },
      {
        program: ['zkCli.sh', 'zkCli', 'zookeeper-shell'],
        word: ['/^(deleteall|rmr|delete)$/'],
        reason: 'deleting ZooKeeper nodes',
      },
      { program: ['cypher-shell'], word: ['/\\bdelete\\b|\\bdrop\\b/i'], reason: 'deleting graph data' },
      { program: ['mix'], word: ['/^ecto\\.(drop|reset)$/'], notEnv: TEST_ENV, reason: 'an Ecto drop or reset' },
      { program: ['mix'], word: ['/^ecto\\.rollback$/'], flags: { long: ['--all'] }, reason: 'an Ecto full rollback' },
      { program: ['heroku'], word: ['/^pg:(reset|killall)$/'], reason: 'a Heroku Postgres reset' },
      {
        program: ['dotnet'],
        subcommand: [['ef'], ['database'], ['drop']],
        reason: 'dotnet ef database drop drops the database',
      },
      {
        program: ['dotnet'],
        subcommand: [['ef'], ['database'], ['update'], ['0']],
        reason: 'dotnet ef database update 0 rolls back every migration',
      },
    ],
    match: [
      'rails db:drop',
      'bundle exec rake db:reset',
      'python manage.py flush --noinput',
      './manage.py reset_db --noinput',
      'python manage.py migrate app zero',
      'npx prisma migrate reset',
      'prisma db push --force-reset',
      'npx knex migrate:rollback --all',
      'alembic downgrade base',
      'dropdb app_production',
      'php artisan migrate:fresh',
      'etcdctl del --prefix /registry',
      'goose postgres "$DB_URL" reset',
      'migrate -path db/migrations -database "$DATABASE_URL" drop -f',
      'cypher-shell -u neo4j "MATCH (n) DETACH DELETE n"',
      'mix ecto.rollback --all',
      'dotnet ef database update 0',
      'supabase db reset --linked',
      'MIX_ENV=prod mix ecto.reset',
      'RAILS_ENV=production bin/rails db:reset',
    ],
    notMatch: [
      'MIX_ENV=test mix ecto.reset',
      'dropdb --if-exists -h localhost app_test',
      'bin/rails db:reset RAILS_ENV=test',
      'php artisan migrate:fresh --env=testing',
      'python manage.py migrate',
      'bin/rails db:migrate',
      'npx prisma migrate deploy',
      'alembic upgrade head',
      'php artisan migrate',
      'etcdctl get --prefix /config/ --keys-only',
      'dotnet ef database update',
      'migrate -path db/migrations -database "$DATABASE_URL" down 1',
      'mix ecto.migrate',
      'flyway info',
    ],
  },
];
