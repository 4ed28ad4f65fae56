# shellcheck shell=bash
# `bench/load.sh --db postgresql://...` (sourced by bench/load.sh, after its helpers nginx_start and run_wrk; not run
# on its own): the store v2 load benchmark on SQLite and on PostgreSQL with 1 and 3 replicas, in one run.
#   bench/load.sh --db 'postgresql://user@host/db'   a database of yours: it must be empty (the history is copied into
#                                                    it) or hold that same copy from an earlier run (reused as is)
#   bench/load.sh --db pg      (or PG=1)             a throwaway PostgreSQL (tools/pg_test_server.sh: a Unix socket,
#                                                    durability off), removed at exit
# What it does:
#   1. the SQLite history as bench/load.sh makes it (DB, default /tmp/perftriage-load.sqlite; generated when missing);
#   2. the same rows in PostgreSQL: `perftriage migrate --from sqlite:DB --to URL` (timed), unless the database
#      already holds as many runs and result rows as the SQLite file (a copy from an earlier run: reused);
#   3. three backends in turn, each behind the same nginx reverse proxy (round robin over an upstream with kept-alive
#      connections): "sqlite" (one `perftriage serve` on the file), "pg x1" (one on the URL), "pg x3" (three on the
#      URL). wrk and the UPLOADERS uploaders both go through the proxy, so uploads spread over the replicas. Every
#      backend gets the same calls with the same parameters, each after a warm-up GET per replica; the runs it
#      uploaded are deleted before the next backend starts (and at exit), so each one starts from the same rows;
#   4. nginx serving the SQLite backend's answers as static files, on an idle machine, for reference;
#   5. one markdown table: per call and backend req/s, p99, errors and response cache hits, nginx static req/s;
#      then a line per backend with the uploads and the servers' memory (RSS summed over the replicas).
# Env, besides bench/load.sh's: REPLICAS (the PostgreSQL backends' replica counts, default "1 3").

REPLICAS=${REPLICAS:-1 3}
PG_DIR=""  # the throwaway server's directory (tools/pg_test_server.sh), "" for a database given by URL

# pg_sql SQL: one value from the PostgreSQL database (psql, no psqlrc).
pg_sql() { psql "$PG_URL" -XAtqc "$1"; }
# pg_shown URL: the URL without its password, for printing.
pg_shown() { sed -E 's#(://[^:/@]*):[^@/]*@#\1:***@#' <<<"$1"; }

pg_start_throwaway() {
  PG_DIR=$BENCH_TMP/pg
  tools/pg_test_server.sh start "$PG_DIR" >/dev/null || bench_die "tools/pg_test_server.sh start $PG_DIR failed"
  PG_URL=$(cat "$PG_DIR/url")
  bench_on_exit pg_stop_throwaway
}
pg_stop_throwaway() {
  [ -n "$PG_DIR" ] || return 0
  # nothing to delete from a database that goes away with it
  [ "$BENCH_DB" != "$PG_URL" ] || BENCH_DB=""
  tools/pg_test_server.sh stop "$PG_DIR" || true
  PG_DIR=""
}

# pg_copy: the SQLite history into PostgreSQL, or the copy an earlier run left there; sets MIGRATE_NOTE.
pg_copy() {
  local pg_runs pg_rows t0 log=$BENCH_TMP/migrate.log
  pg_runs=$(pg_sql "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
  if [ "$pg_runs" != 0 ]; then
    pg_rows=$(pg_sql "SELECT count(*) FROM result_rows" 2>/dev/null || echo 0)
    if [ "$pg_runs" != "$DB_RUNS" ] || [ "$pg_rows" != "$DB_ROWS" ]; then
      bench_die "$(pg_shown "$PG_URL") holds $pg_runs runs and $pg_rows result rows, $DB holds $DB_RUNS and" \
        "$DB_ROWS: give an empty database (the history is copied into it) or the copy of this one"
    fi
    MIGRATE_NOTE="reused the copy already there ($pg_runs runs, $pg_rows result rows)"
    return 0
  fi
  echo "# copying $DB into PostgreSQL (perftriage migrate)" >&2
  t0=$(bench_now)
  "$BIN" migrate --from "sqlite:$DB" --to "$PG_URL" >"$log" 2>&1 ||
    { tail -40 "$log" >&2; bench_die "perftriage migrate --from sqlite:$DB --to $(pg_shown "$PG_URL") failed"; }
  MIGRATE_NOTE="perftriage migrate --from sqlite:DB --to URL: $(python3 -c "print(round($(bench_now) - $t0, 1))") s"
  MIGRATE_NOTE+=" ($(tail -1 "$log"))"
}

# pg_settings: what the PostgreSQL server runs with (the throwaway one has durability off).
pg_settings() {
  pg_sql "SELECT 'PostgreSQL ' || current_setting('server_version') || ', shared_buffers ' ||
    current_setting('shared_buffers') || ', fsync ' || current_setting('fsync') || ', synchronous_commit ' ||
    current_setting('synchronous_commit') || ', max_connections ' || current_setting('max_connections') ||
    ', database ' || pg_size_pretty(pg_database_size(current_database()))"
}

# pg_memory: the throwaway server's proportional set size (PSS: its shared buffers counted once), "" for a given URL.
pg_memory() {
  [ -n "$PG_DIR" ] && [ -f "$PG_DIR/cluster" ] || return 0
  local pid
  pid=$(head -1 "$(cat "$PG_DIR/cluster")/data/postmaster.pid" 2>/dev/null) || return 0
  { echo "$pid"; ps -o pid= --ppid "$pid"; } | while read -r p; do
    awk '/^Pss:/ { print $2 }' "/proc/$p/smaps_rollup" 2>/dev/null || true
  done | awk '{ s += $1 } END { printf "%.1f MiB", s / 1024 }'
}

LB_PIDS=() LB_BASES=() LB_NGINX_PID=""
# lb_start N DB: N `perftriage serve` on DB and nginx in front of them (round robin, kept-alive upstream
# connections); sets PT_BASE to the proxy's http://127.0.0.1:PORT, LB_BASES and LB_PIDS to the servers'.
lb_start() {
  local n=$1 db=$2 i port dir=$BENCH_TMP/lb upstream=""
  LB_PIDS=() LB_BASES=()
  for i in $(seq 1 "$n"); do
    bench_serve "$db" "$BENCH_TMP/serve-$i.log"
    LB_PIDS+=("$PT_PID")
    LB_BASES+=("$PT_BASE")
    PT_PID=""  # stopped by lb_stop, not bench_stop_server
    upstream+="    server ${PT_BASE#http://};"$'\n'
  done
  port=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
  rm -rf "$dir"
  mkdir -p "$dir/tmp"
  chmod -R a+rX "$BENCH_TMP"  # nginx's workers run as nobody when started by root
  # perftriage closes a connection idle for 30 s ([limits] idle_timeout_s): the proxy lets go of its idle ones first.
  # Answers are buffered in memory (up to 4 MiB a request), never in temporary files; so are upload bodies.
  cat >"$dir/nginx.conf" <<EOF
worker_processes $NGINX_WORKERS;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  default_type application/json;
  tcp_nodelay on;
  keepalive_timeout 60s;
  keepalive_requests 100000000;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  upstream perftriage {
$upstream    keepalive 64;
    keepalive_requests 100000000;
    keepalive_timeout 20s;
  }
  server {
    listen 127.0.0.1:$port;
    client_max_body_size 0;
    client_body_buffer_size 16m;
    location / {
      proxy_pass http://perftriage;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$http_host;
      proxy_buffer_size 64k;
      proxy_buffers 64 64k;
      proxy_busy_buffers_size 256k;
      proxy_max_temp_file_size 0;
      proxy_read_timeout 300s;
      proxy_send_timeout 300s;
    }
  }
}
EOF
  PT_BASE=http://127.0.0.1:$port
  bench_nginx_run "$dir" "$PT_BASE/healthz"
  LB_NGINX_PID=$BENCH_NGINX_PID
}
lb_stop() {
  # shellcheck disable=SC2154  # bench/lib.sh's
  [ ${#_uploader_pids[@]} -eq 0 ] || bench_uploaders_stop
  local pid
  if [ -n "$LB_NGINX_PID" ]; then
    kill "$LB_NGINX_PID" 2>/dev/null || true
    wait "$LB_NGINX_PID" 2>/dev/null || true
    LB_NGINX_PID=""
  fi
  for pid in "${LB_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${LB_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  LB_PIDS=() LB_BASES=()
}

# lb_cache_lookups: "HITS MISSES" of the response caches of every server so far.
lb_cache_lookups() {
  local base
  for base in "${LB_BASES[@]}"; do
    curl -fs "$base/metrics" | awk '/^perftriage_cache_lookups_total\{cache="response",result="hit"\}/ { h = $2 }
      /^perftriage_cache_lookups_total\{cache="response",result="miss"\}/ { m = $2 } END { print h + 0, m + 0 }'
  done | awk '{ h += $1; m += $2 } END { print h + 0, m + 0 }'
}

# lb_memory: "RSS PEAK CACHE" in MiB, each summed over the servers (now, the peak resident set, the response caches).
lb_memory() {
  local pid base rss=0 hwm=0 cache=0 v
  for pid in "${LB_PIDS[@]}"; do
    v=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
    rss=$((rss + v))
    v=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
    hwm=$((hwm + v))
  done
  for base in "${LB_BASES[@]}"; do
    v=$(curl -fs "$base/metrics" | awk '/^perftriage_cache_bytes\{cache="response"\}/ { print int($2) }')
    cache=$((cache + ${v:-0}))
  done
  python3 -c "print('%.1f %.1f %.1f' % ($rss / 1024, $hwm / 1024, $cache / 1048576))"
}

# upload_median LOG: the median of the successful uploads' times in LOG ("STATUS MS" lines, bench_upload's), "-".
upload_median() {
  python3 -c 'import statistics, sys
ok = [float(l.split()[1]) for l in sys.stdin if l.startswith("201 ")]
print(round(statistics.median(ok)) if ok else "-")' <"$1"
}

# measure LABEL DB N TAG: N servers on DB behind the proxy; a warm-up GET of every call per server (the body kept as
# $BENCH_TMP/body/TAG-I, its headers as TAG-I.h), one upload, then wrk on every call while UPLOADERS upload through
# the proxy. Sets RES[TAG,I] ("REQ/S P99 ERRORS HITS%"), SIZE[TAG,I] and SUMMARY[TAG]; the runs uploaded are
# deleted from DB before it returns.
declare -A RES SIZE SUMMARY
measure() {
  local label=$1 db=$2 n=$3 tag=$4 token i path status size rps p99 err hits0 misses0 hits1 misses1 ok=0 failed=0
  local mem deleted uploaded_keys t0 uploads=$BENCH_TMP/uploads-$tag.log
  : >"$uploads"
  echo "# $label: starting $n server(s)" >&2
  BENCH_UPLOADED=$BENCH_TMP/uploaded-$tag
  : >"$BENCH_UPLOADED"
  uploaded_keys=$BENCH_TMP/uploaded-keys-$tag  # a copy: bench_delete_uploaded empties BENCH_UPLOADED
  BENCH_DB=$db
  [ -z "$PG_DIR" ] || [ "$db" != "$PG_URL" ] || BENCH_DB=""  # a throwaway database: nothing to delete at exit
  lb_start "$n" "$db"
  if [ -z "${CALLS+x}" ]; then
    bench_params
    bench_calls
  fi
  token=$(bench_token "$db" upload)
  mkdir -p "$BENCH_TMP/body"
  for i in "${!CALLS[@]}"; do
    path=${CALLS[i]#*|}
    for _ in $(seq 1 "$n"); do  # round robin: each server answers once
      read -r status _ size < <(bench_time_get "$PT_BASE$path" "$BENCH_TMP/body/$tag-$i" "${ACCEPT[@]}" \
        -D "$BENCH_TMP/body/$tag-$i.h")
      [ "$status" = 200 ] || bench_die "$label: GET $path answered $status: $(head -c 300 "$BENCH_TMP/body/$tag-$i")"
    done
    SIZE[$tag,$i]=$size
  done
  read -r status _ < <(bench_upload "$token" "$BENCH_TMP/nightly-1.tar.gz" "bench-$$-$tag-preflight" "$PLATFORM")
  [ "$status" = 201 ] || bench_die "$label: a nightly upload was refused: $(cat "$BENCH_TMP/upload-refused.json")"
  for i in "${!CALLS[@]}"; do
    echo "# $label: ${CALLS[i]%%|*}" >&2
    path=${CALLS[i]#*|}
    bench_uploaders_start "$UPLOADERS" "$token" "$tag-c$i"
    read -r hits0 misses0 < <(lb_cache_lookups)
    read -r rps p99 err _ < <(run_wrk "$PT_BASE$path")
    read -r hits1 misses1 < <(lb_cache_lookups)
    bench_uploaders_stop
    ok=$((ok + UPLOADS_OK))
    failed=$((failed + UPLOADS_FAILED))
    cat "$BENCH_TMP"/uploader-*.log >>"$uploads" 2>/dev/null || true
    RES[$tag,$i]="$rps $p99 $err $(bench_calc \
      "round(100 * ($hits1 - $hits0) / max(1, $hits1 - $hits0 + $misses1 - $misses0), 1)")"
  done
  read -r -a mem < <(lb_memory)
  SUMMARY[$tag]="uploads $ok ok / $failed failed ($((ok * MODELS * 60)) rows), median $(upload_median "$uploads") ms;"
  SUMMARY[$tag]+=" memory of the $n server(s): RSS ${mem[0]} MiB now, ${mem[1]} MiB peak, response caches ${mem[2]} MiB"
  if [ "$db" = "$PG_URL" ] && [ -n "$PG_DIR" ]; then
    SUMMARY[$tag]+="; PostgreSQL (all its processes, PSS) $(pg_memory)"
  fi
  lb_stop
  echo "# $label: deleting the runs it uploaded" >&2
  cp "$BENCH_UPLOADED" "$uploaded_keys"
  t0=$(bench_now)
  deleted=$(bench_delete_uploaded "$db")
  deleted=${deleted#\# deleted the }
  deleted=${deleted:-0 }
  if [ "${KEEP_UPLOADS:-0}" = 1 ]; then
    SUMMARY[$tag]+="; the runs it uploaded kept (KEEP_UPLOADS=1: the next backend starts with them)"
  else
    SUMMARY[$tag]+="; ${deleted%% *} uploaded runs deleted after it (of $(wc -l <"$uploaded_keys")) in $(bench_ms_since "$t0") ms (perftriage runs delete)"
  fi
  BENCH_DB=""
}

command -v psql >/dev/null 2>&1 ||
  bench_die "psql is missing (Debian package postgresql-client; scripts/install-deps.sh)"
bench_tools load
bench_build
bench_history "$DB" "$PLATFORMS" "$RUNS" "$MODELS"
bench_db_stats "$DB"
[ "$PG_URL" != pg ] || pg_start_throwaway
bench_on_exit lb_stop  # before the throwaway PostgreSQL stops
pg_copy
bench_nightlies "$((UPLOADERS > 0 ? UPLOADERS : 1))" "$MODELS"

backends=("sqlite|$DB|1|s")
for n in $REPLICAS; do backends+=("pg x$n|$PG_URL|$n|p$n"); done

echo "# load, SQLite vs. PostgreSQL: $DB_ROWS result rows, $DB_RUNS runs; $BIN; $(nproc) cores"
echo "# sqlite: $DB ($(bench_calc "round($DB_BYTES / 1e6, 1)") MB with -wal, -shm)"
echo "# pg: $(pg_shown "$PG_URL")$([ -z "$PG_DIR" ] || echo " (throwaway: tools/pg_test_server.sh)"); $(pg_settings)"
echo "# copy: $MIGRATE_NOTE"
echo "# every backend behind one nginx reverse proxy ($NGINX_WORKERS workers, round robin, keepalive 64 upstream" \
  "connections a worker), also for one server: the proxy's cost is in every column; wrk -t$THREADS -c$CONNECTIONS" \
  "-d${DURATION}s --latency per call and backend through the proxy while $UPLOADERS uploaders" \
  "($(($(stat -c %s "$BENCH_TMP/nightly-1.tar.gz") / 1000)) KB nightlies) post through it too;" \
  "perftriage access_log=${ACCESS_LOG:-true} ${SERVE_ARGS:-}; encoding $ENCODING"
echo "# nginx static: nginx ($NGINX_WORKERS workers) serving the sqlite backend's answers as files, no uploads" \
  "(an idle machine)"

for b in "${backends[@]}"; do
  IFS='|' read -r label db n tag <<<"$b"
  measure "$label" "$db" "$n" "$tag"
done

# nginx serving the same bytes (those of the sqlite backend), on an idle machine.
www=$BENCH_TMP/nginx/www
mkdir -p "$www/gz"
files=()
for i in "${!CALLS[@]}"; do
  if grep -qi '^content-encoding: *gzip' "$BENCH_TMP/body/s-$i.h"; then
    cp "$BENCH_TMP/body/s-$i" "$www/gz/c$((i + 1))"
    files+=("gz/c$((i + 1))")
  else
    cp "$BENCH_TMP/body/s-$i" "$www/c$((i + 1))"
    files+=("c$((i + 1))")
  fi
done
nginx_start "$BENCH_TMP/nginx"
static=()
for i in "${!CALLS[@]}"; do
  echo "# nginx static: ${CALLS[i]%%|*}" >&2
  read -r rps _ err _ < <(run_wrk "$NGINX_BASE/${files[i]}")
  ((err == 0)) || bench_note "nginx answered $err errors on ${CALLS[i]%%|*}"
  static+=("$rps")
done
nginx_stop

hdr="| call | bytes |" rule="| --- | ---: |"
for b in "${backends[@]}"; do
  IFS='|' read -r label _ _ _ <<<"$b"
  hdr+=" $label req/s | $label p99 ms | $label errors | $label cache hits |"
  rule+=" ---: | ---: | ---: | ---: |"
done
echo "$hdr nginx static req/s |"
echo "$rule ---: |"
differ=()
for i in "${!CALLS[@]}"; do
  row="| ${CALLS[i]%%|*} | ${SIZE[s,$i]} |"
  for b in "${backends[@]}"; do
    IFS='|' read -r _ _ _ tag <<<"$b"
    read -r rps p99 err hits <<<"${RES[$tag,$i]}"
    row+=" $rps | $p99 | $err | $hits% |"
    cmp -s "$BENCH_TMP/body/s-$i" "$BENCH_TMP/body/$tag-$i" ||
      differ+=("${CALLS[i]%%|*} ($tag: ${SIZE[$tag,$i]} bytes)")
  done
  echo "$row ${static[i]} |"
done
for b in "${backends[@]}"; do
  IFS='|' read -r label _ _ tag <<<"$b"
  echo "# $label: ${SUMMARY[$tag]}"
done
if ((${#differ[@]})); then
  echo "# answers that differ from sqlite's (warm-up GET, before any upload): ${differ[*]}"
else
  echo "# every backend answered every call with the same bytes as sqlite (warm-up GET, before any upload)"
fi
echo "# paths: $(printf '%s ' "${CALLS[@]#*|}")"
