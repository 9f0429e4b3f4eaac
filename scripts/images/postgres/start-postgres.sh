#!/bin/sh
# Starts PostgreSQL in the foreground as the container's main process. It logs
# "database system is ready to accept connections" on stderr when ready.
#   flakeid-start-postgres [--init-only | server options, e.g. -c shared_buffers=64MB]
# Server options come after the built-in ones, so they override them.
# FLAKEID_PG_BIN names the directory of initdb and postgres (default: the
# newest Debian package's).
set -eu
PGDATA=/var/lib/flakeid/postgres
bin=${FLAKEID_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)}
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; }

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    mkdir -p "$PGDATA"
    chown postgres:postgres "$PGDATA"
    as_postgres "$bin/initdb" -D "$PGDATA" -A trust -U postgres --encoding=UTF8 --locale=C >/dev/null
    # Connections through a mapped port come from the bridge address, not localhost.
    printf 'host all all 0.0.0.0/0 trust\nhost all all ::/0 trust\n' >>"$PGDATA/pg_hba.conf"
fi
[ "${1:-}" = "--init-only" ] && exit 0

exec setpriv --reuid=postgres --regid=postgres --init-groups -- "$bin/postgres" -D "$PGDATA" \
    -c listen_addresses='*' -c unix_socket_directories=/tmp \
    -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off "$@"
