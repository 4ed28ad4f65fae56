#!/usr/bin/env bash
# The read path under load, next to a static-file server: every dashboard call under `wrk -c64` against
# `perftriage serve` while UPLOADERS clients post nightlies, and against Debian's nginx serving the same bytes from
# files, in the same run. Target per call: >= 0.5x nginx's req/s, p99 < 50 ms, 0 errors. The targets are
# reported, not asserted: the script fails only when something cannot be set up.
#   bench/load.sh [DB]            (default /tmp/perftriage-load.sqlite, generated when missing, reused as is after)
#   bench/load.sh --db postgresql://...   (or --db pg, or PG=1: a throwaway server): SQLite against PostgreSQL with 1
#                                 and 3 replicas, the same calls and uploads, one table (bench/load_pg.sh says how)
# Env: DB (the same as the argument; the SQLite file also with --db postgresql://...), PLATFORMS / RUNS / MODELS
#      (generator size, default 3 x 70 nightlies x 170 models: 210 nightlies, 2.14M rows), DURATION (seconds of wrk
#      per call and server, default 10), CONNECTIONS (64), THREADS (wrk threads, 2), UPLOADERS (4), NGINX_WORKERS
#      (2), and bench/lib.sh's BUILD, PERFTRIAGE, KEEP_UPLOADS, ACCESS_LOG, SERVE_ARGS. wrk and nginx-light come
#      from scripts/install-bench-deps.sh when missing.
# Each call's body is fetched once with curl (no Accept-Encoding, as wrk sends none: the identity bytes) and nginx
# serves that file. ENCODING=gzip (or zstd) measures the way a browser asks instead: wrk and curl send
# `Accept-Encoding: gzip` (zstd), and nginx serves perftriage's answer as it came: a compressed one from /gz/ (/zst/)
# with its `Content-Encoding`, a small one that perftriage sent as is, as is. nginx is measured twice: while the same uploaders post to perftriage (the ratio is taken against
# this one: both servers on an equally loaded machine), and idle. The uploaders run while perftriage is measured; every upload is a new run (a write
# transaction, so each one invalidates the response cache), and those runs are deleted from DB at exit.
# Output: one markdown table row per call (paste it into docs/performance.md), with the share of perftriage's answers
# that came from its response cache (GET /metrics, perftriage_cache_lookups_total), then the uploads completed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

# Arguments: [--db URL|PATH] [PATH]. A postgresql:// (postgres://) URL, or "pg" (a throwaway PostgreSQL started by
# tools/pg_test_server.sh), selects the comparison with PostgreSQL; a path is the SQLite file, as the positional DB.
PG_URL=""
case ${PG:-} in
  "" | 0) ;;
  1 | pg) PG_URL=pg ;;
  postgres://* | postgresql://*) PG_URL=$PG ;;
  *) bench_die "PG is 1 or a postgresql:// URL, not $PG" ;;
esac
db_arg=""
while [ $# -gt 0 ]; do
  case $1 in
    --db) [ $# -ge 2 ] || bench_die "--db needs a SQLite path, a postgresql:// URL or pg"; db_value=$2; shift 2 ;;
    --db=*) db_value=${1#--db=}; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
    -*) bench_die "unknown option $1 (bench/load.sh [--db URL|PATH] [PATH])" ;;
    *) db_value=$1; shift ;;
  esac
  case $db_value in
    postgres://* | postgresql://*) PG_URL=$db_value ;;
    pg) PG_URL=pg ;;
    *) db_arg=$db_value ;;
  esac
done
DB=${db_arg:-${DB:-/tmp/perftriage-load.sqlite}}
PLATFORMS=${PLATFORMS:-3}
RUNS=${RUNS:-70}
MODELS=${MODELS:-170}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
UPLOADERS=${UPLOADERS:-4}
NGINX_WORKERS=${NGINX_WORKERS:-2}
ENCODING=${ENCODING:-identity}
case $ENCODING in
  identity) ACCEPT=() NGINX_ENCODING="" ;;
  gzip) ACCEPT=(-H "Accept-Encoding: gzip") NGINX_ENCODING="location /gz/ { add_header Content-Encoding gzip; }" ;;
  zstd) ACCEPT=(-H "Accept-Encoding: zstd") NGINX_ENCODING="location /zst/ { add_header Content-Encoding zstd; }" ;;
  *) echo "ENCODING is identity, gzip or zstd, not $ENCODING" >&2; exit 2 ;;
esac

NGINX_PID=""
# nginx_start DIR: nginx serving DIR/www on a free port of 127.0.0.1 (own config, no log, no daemon); sets NGINX_BASE.
nginx_start() {
  local dir=$1 port _
  port=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
  mkdir -p "$dir/tmp" "$dir/www"
  echo ok >"$dir/www/ready"
  chmod -R a+rX "$BENCH_TMP"  # nginx's workers run as nobody when started by root
  cat >"$dir/nginx.conf" <<EOF
worker_processes $NGINX_WORKERS;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  default_type application/json;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_timeout 60s;
  keepalive_requests 100000000;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  server {
    listen 127.0.0.1:$port;
    root $dir/www;
    $NGINX_ENCODING
  }
}
EOF
  NGINX_BASE=http://127.0.0.1:$port
  bench_nginx_run "$dir" "$NGINX_BASE/ready"
  NGINX_PID=$BENCH_NGINX_PID
}
nginx_stop() {
  [ -n "$NGINX_PID" ] || return 0
  kill "$NGINX_PID" 2>/dev/null || true
  wait "$NGINX_PID" 2>/dev/null || true
  NGINX_PID=""
}
bench_on_exit nginx_stop

# run_wrk URL: "REQ_PER_S P99_MS ERRORS REQUESTS" from wrk's report (errors: non-2xx/3xx answers + socket errors).
run_wrk() {
  local out
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 5s --latency "${ACCEPT[@]}" "$1" 2>&1) ||
    bench_die "wrk $1 failed: $out"
  python3 -c '
import re, sys
t = sys.stdin.read()
def num(pattern, default=0.0):
    m = re.search(pattern, t, re.M)
    return float(m.group(1)) if m else default
unit = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}
m = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s|m)\s*$", t, re.M)
p99 = float(m.group(1)) * unit[m.group(2)] if m else float("nan")
sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", t)
errors = int(num(r"Non-2xx or 3xx responses:\s+(\d+)")) + (sum(map(int, sock.groups())) if sock else 0)
print("%.0f %.2f %d %d" % (num(r"Requests/sec:\s+([\d.]+)"), p99, errors, num(r"(\d+) requests in")))' <<<"$out"
}

# cache_lookups: "HITS MISSES" of the response cache so far (GET /metrics).
cache_lookups() {
  curl -fs "$PT_BASE/metrics" | awk '/^perftriage_cache_lookups_total\{cache="response",result="hit"\}/ { h = $2 }
    /^perftriage_cache_lookups_total\{cache="response",result="miss"\}/ { m = $2 } END { print h + 0, m + 0 }'
}

if [ -n "$PG_URL" ]; then
  # shellcheck source=bench/load_pg.sh
  source bench/load_pg.sh
  exit 0
fi

bench_tools load
bench_build
bench_history "$DB" "$PLATFORMS" "$RUNS" "$MODELS"
bench_db_stats "$DB"
bench_serve "$DB"
BENCH_DB=$DB
bench_params
bench_calls
token=$(bench_token "$DB" upload)
bench_nightlies "$((UPLOADERS > 0 ? UPLOADERS : 1))" "$MODELS"
echo "# load: $DB: $DB_ROWS result rows, $DB_RUNS runs ($PLATFORM_LIST); $BIN; $(nproc) cores"
echo "# wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s --latency per call and server; $UPLOADERS uploaders" \
  "($(($(stat -c %s "$BENCH_TMP/nightly-1.tar.gz") / 1000)) KB nightlies) while perftriage is measured;" \
  "nginx $NGINX_WORKERS workers; perftriage access_log=${ACCESS_LOG:-true} ${SERVE_ARGS:-}; encoding $ENCODING"

www=$BENCH_TMP/nginx/www
mkdir -p "$www"
mkdir -p "$www/gz" "$www/zst"
bytes=() files=()
for i in "${!CALLS[@]}"; do
  path=${CALLS[i]#*|}
  read -r status _ size < <(bench_time_get "$PT_BASE$path" "$www/c$((i + 1))" "${ACCEPT[@]}" -D "$www/h$((i + 1))")
  [ "$status" = 200 ] || bench_die "GET $path answered $status: $(head -c 300 "$www/c$((i + 1))")"
  bytes+=("$size")
  coding=$(sed -n 's/^[Cc]ontent-[Ee]ncoding: *\([a-z]*\).*/\1/p' "$www/h$((i + 1))")
  case $coding in
    gzip | zstd)
      dir=gz
      [ "$coding" = zstd ] && dir=zst
      mv "$www/c$((i + 1))" "$www/$dir/c$((i + 1))"
      files+=("$dir/c$((i + 1))")
      ;;
    *) files+=("c$((i + 1))") ;;
  esac
done
nginx_start "$BENCH_TMP/nginx"
# One upload first (after the bodies were fetched): the uploaders' setup works.
read -r status _ < <(bench_upload "$token" "$BENCH_TMP/nightly-1.tar.gz" "bench-$$-preflight" "$PLATFORM")
[ "$status" = 201 ] || bench_die "a nightly upload was refused: $(cat "$BENCH_TMP/upload-refused.json" 2>/dev/null)"

echo "| call | bytes | perftriage req/s | nginx req/s (same uploads) | ratio | nginx req/s (idle) | p99 ms | nginx p99 ms | errors | cache hits | uploads ok/failed | target (>=0.5x, p99<50ms, 0 errors) |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
total_ok=0 total_failed=0 missed=0
for i in "${!CALLS[@]}"; do
  name=${CALLS[i]%%|*}
  path=${CALLS[i]#*|}
  bench_uploaders_start "$UPLOADERS" "$token" "c$i"
  read -r hits0 misses0 < <(cache_lookups)
  read -r pt_rps pt_p99 pt_err _ < <(run_wrk "$PT_BASE$path")
  read -r hits1 misses1 < <(cache_lookups)
  bench_uploaders_stop
  hit_pct=$(bench_calc "round(100 * ($hits1 - $hits0) / max(1, $hits1 - $hits0 + $misses1 - $misses0), 1)")
  total_ok=$((total_ok + UPLOADS_OK))
  total_failed=$((total_failed + UPLOADS_FAILED))
  pt_uploads="$UPLOADS_OK/$UPLOADS_FAILED (median ${UPLOAD_MEDIAN_MS} ms)"
  # nginx twice: under the same uploads to perftriage (the machine as loaded as when perftriage was measured: the
  # ratio compares the servers, not the load), and on an idle machine.
  bench_uploaders_start "$UPLOADERS" "$token" "n$i"
  read -r ng_rps ng_p99 ng_err _ < <(run_wrk "$NGINX_BASE/${files[i]}")
  bench_uploaders_stop
  total_ok=$((total_ok + UPLOADS_OK))
  read -r ng_idle_rps _ ng_idle_err _ < <(run_wrk "$NGINX_BASE/${files[i]}")
  ((ng_err + ng_idle_err == 0)) || bench_note "nginx answered $((ng_err + ng_idle_err)) errors on $name"
  verdict=$(python3 -c '
import sys
pt, ng, p99, err = map(float, sys.argv[1:])
ratio = pt / ng if ng else 0
miss = [m for ok, m in ((ratio >= 0.5, "ratio"), (p99 < 50, "p99"), (err == 0, "errors")) if not ok]
print("%.2f %s" % (ratio, "ok" if not miss else "MISS:" + ",".join(miss)))' "$pt_rps" "$ng_rps" "$pt_p99" "$pt_err")
  [[ ${verdict#* } == ok ]] || missed=$((missed + 1))
  echo "| $name | ${bytes[i]} | $pt_rps | $ng_rps | ${verdict%% *}x | $ng_idle_rps | $pt_p99 | $ng_p99 | $pt_err | $hit_pct% |" \
    "$pt_uploads | ${verdict#* } |"
done
echo "# uploads completed during the measurements (perftriage and nginx under uploads): $total_ok ($total_failed failed)," \
  "$((total_ok * MODELS * 60)) rows; calls on target: $((${#CALLS[@]} - missed))/${#CALLS[@]}"
echo "# paths: $(printf '%s ' "${CALLS[@]#*|}")"
# Memory: the server's peak and current resident set after every call and the uploads ([cache] max_mb bounds the
# cache; SQLite's page cache is 64 MiB per open connection).
echo "# perftriage memory: peak RSS $(awk '/^VmHWM/ { print $2 / 1024 " MiB" }' "/proc/$PT_PID/status")," \
  "now $(awk '/^VmRSS/ { print $2 / 1024 " MiB" }' "/proc/$PT_PID/status"); response cache" \
  "$(curl -fs "$PT_BASE/metrics" | awk '/^perftriage_cache_bytes\{cache="response"\}/ { print $2 / 1048576 " MiB" }')"
