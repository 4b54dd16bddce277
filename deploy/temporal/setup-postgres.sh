#!/bin/sh
# Create and migrate Temporal's two databases, and the empty database Herald migrates itself.
# Safe to run on every `docker compose up`: existing databases and schemas are kept.
set -eu
HOST=${POSTGRES_HOST:-postgresql}
PORT=${POSTGRES_PORT:-5432}
USER=${POSTGRES_USER:-temporal}
SCHEMA=/etc/temporal/schema/postgresql/v12
tool() { temporal-sql-tool --plugin postgres12 --ep "$HOST" -p "$PORT" -u "$USER" "$@"; }

until nc -z "$HOST" "$PORT"; do sleep 1; done
for db in temporal temporal_visibility herald; do
  tool --db "$db" create 2>/dev/null || echo "database $db exists"
done
# setup-schema creates the version table on a fresh database and fails harmlessly on an existing one;
# update-schema then brings either to the newest version.
tool --db temporal setup-schema -v 0.0 2>/dev/null || true
tool --db temporal update-schema -d "$SCHEMA/temporal/versioned"
tool --db temporal_visibility setup-schema -v 0.0 2>/dev/null || true
tool --db temporal_visibility update-schema -d "$SCHEMA/visibility/versioned"
echo "Temporal schema ready"
