#!/usr/bin/env bash
# A throw-away PostgreSQL server for statsheet's tests: `start` makes a new cluster in a temporary
# folder, listening on 127.0.0.1 only, with password (scram-sha-256) authentication so the tests
# that check passwords never reach output see a real one; `stop` stops it and deletes the folder.
#
#   eval "$(Tools/pg-test-server.sh start)"   # exports STATSHEET_TEST_POSTGRES_URL
#   Tools/pg-test-server.sh stop              # stops it and deletes its data
#
# `kill` stops the server at once (as a crash or a pulled cable would look to a client) but keeps its
# data; a later `start` brings the same server back: the tests of a server going away use these.
#
# initdb refuses to run as root, so as root the server runs as the `postgres` user (runuser), and
# as another user as that user itself. PG_TEST_PORT (default 55432) picks the port.
set -euo pipefail

port="${PG_TEST_PORT:-55432}"
state="${PG_TEST_STATE:-/tmp/statsheet-pg-test-$port}"
bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -n "$bindir" ] || { echo "PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)" >&2; exit 1; }

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

running() { [ -f "$state/data/postmaster.pid" ] && as_owner "$bindir/pg_ctl" -D "$state/data" status >/dev/null 2>&1; }

case "${1:-}" in
start)
    if ! running; then
        if [ ! -f "$state/data/PG_VERSION" ]; then
            rm -rf "$state"
            mkdir -p "$state"
            if [ "$(id -u)" = 0 ]; then chown postgres "$state"; fi
            password="test-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
            printf '%s\n' "$password" > "$state/password"
            as_owner "$bindir/initdb" -D "$state/data" -U statsheet --pwfile="$state/password" \
                --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$state/initdb.log" 2>&1 \
                || { cat "$state/initdb.log" >&2; exit 1; }
        fi
        as_owner "$bindir/pg_ctl" -D "$state/data" -l "$state/server.log" -w \
            -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$state -c max_connections=300 -c fsync=off" \
            start >/dev/null || { cat "$state/server.log" >&2; exit 1; }
    fi
    echo "export STATSHEET_TEST_POSTGRES_URL='postgres://statsheet:$(cat "$state/password")@127.0.0.1:$port/postgres?sslmode=disable'"
    ;;
kill)
    if running; then as_owner "$bindir/pg_ctl" -D "$state/data" -m immediate stop >/dev/null; fi
    ;;
stop)
    if running; then as_owner "$bindir/pg_ctl" -D "$state/data" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$state"
    ;;
*)
    echo "usage: $0 start|kill|stop" >&2
    exit 64
    ;;
esac
