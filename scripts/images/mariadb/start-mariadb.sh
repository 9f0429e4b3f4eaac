#!/bin/sh
# Starts MariaDB in the foreground as the container's main process. It logs
# "ready for connections" on stderr when ready.
#   flakeid-start-mariadb [--init-only | server options, e.g. --innodb-buffer-pool-size=64M]
# Server options come after the built-in ones, so they override them.
set -eu
DATADIR=/var/lib/flakeid/mysql
INIT=/etc/flakeid-mariadb-init.sql

if [ ! -d "$DATADIR/mysql" ]; then
    mkdir -p "$DATADIR"
    chown mysql:mysql "$DATADIR"
    mariadb-install-db --no-defaults --user=mysql --datadir="$DATADIR" \
        --skip-test-db --auth-root-authentication-method=normal >/dev/null
    # Run on every start (idempotent): a root account usable through the mapped port.
    cat >"$INIT" <<'SQL'
CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY 'flakeid';
GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;
FLUSH PRIVILEGES;
SQL
fi
[ "${1:-}" = "--init-only" ] && exit 0

exec mariadbd --no-defaults --user=mysql --datadir="$DATADIR" --init-file="$INIT" \
    --bind-address=0.0.0.0 --port=3306 --socket=/tmp/mysqld.sock --pid-file=/tmp/mysqld.pid \
    --skip-name-resolve --max-connections=500 --performance-schema=OFF \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    --innodb-buffer-pool-size=128M --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 "$@"
