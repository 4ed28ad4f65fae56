#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: `start DIR` creates a cluster and starts it listening only on a Unix
# socket beside its data (no TCP port to collide with), with durability off (fsync, synchronous_commit: test data);
# DIR/url then holds the libpq URL of its database "perftriage". `stop DIR` stops it and removes it and DIR.
# PostgreSQL refuses to run as root: as root (CI) the cluster belongs to the `postgres` user that Debian's package
# creates, or to `nobody`.
set -euo pipefail
cmd=${1:?usage: pg_test_server.sh start|stop DIR}
dir=${2:?usage: pg_test_server.sh start|stop DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ]; then
  echo "pg_test_server: no PostgreSQL server under /usr/lib/postgresql (Debian package postgresql; make deps)" >&2
  exit 1
fi
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  owner=postgres
  id "$owner" >/dev/null 2>&1 || owner=nobody
  as_owner=(runuser -u "$owner" --)
fi
case "$cmd" in
  start)
    "$0" stop "$dir"
    mkdir -p "$dir"
    # The cluster lives in a directory of its own under /tmp, reachable by its owner whatever the permissions of the
    # build tree's parents, with a short socket path (Unix sockets take about 100 bytes); DIR records where.
    cluster=$(mktemp -d /tmp/perftriage-pg.XXXXXX)
    echo "$cluster" >"$dir/cluster"
    [ ${#as_owner[@]} -eq 0 ] || chown "$owner" "$cluster"
    "${as_owner[@]}" "$bin/initdb" -D "$cluster/data" -U perftriage --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync \
      >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    "${as_owner[@]}" "$bin/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 60 \
      -o "-k $cluster -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
      start >/dev/null || { cat "$cluster/server.log" >&2; exit 1; }
    "${as_owner[@]}" "$bin/createdb" -h "$cluster" -U perftriage perftriage
    echo "postgresql://perftriage@/perftriage?host=$cluster" >"$dir/url"
    echo "pg_test_server: $(cat "$dir/url") (log: $cluster/server.log)"
    ;;
  stop)
    if [ -f "$dir/cluster" ]; then
      cluster=$(cat "$dir/cluster")
      case "$cluster" in
        /tmp/perftriage-pg.*)
          if [ -d "$cluster/data" ]; then
            "${as_owner[@]}" "$bin/pg_ctl" -D "$cluster/data" -m fast -w stop >/dev/null 2>&1 || true
          fi
          rm -rf "$cluster"
          ;;
      esac
    fi
    rm -rf "$dir"
    ;;
  *) echo "usage: pg_test_server.sh start|stop DIR" >&2; exit 2 ;;
esac
