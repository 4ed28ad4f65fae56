# shellcheck shell=bash disable=SC2034  # sets variables for bench/load.sh and bench/year.sh
# Shared by bench/load.sh and bench/year.sh (sourced, not run): the binaries, the history database, the server, the
# calls both benchmarks measure and the uploads they make. The caller has `set -euo pipefail` and is in the
# repository root.
#
# Env: BUILD (default build/release; configured and built with the release flags when a binary is missing),
#      PERFTRIAGE / GEN / GEN_NIGHTLY (binaries to use instead), KEEP_UPLOADS=1 (leave the runs the benchmark
#      uploaded in DB; by default they are deleted at exit with `perftriage runs delete`, so DB stays the generated
#      history), ACCESS_LOG (the server's [server] access_log, default true as deployed), SERVE_ARGS (more
#      `perftriage serve` flags, e.g. "--read-workers 8 --cache-mb 256").

BUILD=${BUILD:-build/release}
BIN=${PERFTRIAGE:-$BUILD/perftriage}
GEN=${GEN:-$BUILD/bench/gen_history_db}
GEN_NIGHTLY=${GEN_NIGHTLY:-$BUILD/bench/gen_nightly}
NGINX=${NGINX:-/usr/sbin/nginx}

BENCH_TMP=$(mktemp -d /tmp/perftriage-bench.XXXXXX)
BENCH_UPLOADED=$BENCH_TMP/uploaded-runs  # keys of the runs this benchmark stored, deleted at exit
: >"$BENCH_UPLOADED"
BENCH_DB=""  # the database the benchmark serves: the runs it uploaded are deleted from it at exit
_bench_cleanup=()
_uploader_pids=()
bench_on_exit() { _bench_cleanup+=("$1"); }  # run at exit first, last registered first
_bench_exit() {
  local i
  for ((i = ${#_bench_cleanup[@]} - 1; i >= 0; i--)); do eval "${_bench_cleanup[i]}" || true; done
  [ ${#_uploader_pids[@]} -eq 0 ] || bench_uploaders_stop || true
  bench_stop_server || true
  [ -z "$BENCH_DB" ] || bench_delete_uploaded "$BENCH_DB" || true
  rm -rf "$BENCH_TMP"
}
trap _bench_exit EXIT
trap 'exit 130' INT TERM

bench_die() {
  echo "$(basename "$0"): $*" >&2
  exit 1
}
bench_note() { echo "# $*"; }

# Float helpers (bash has none).
bench_calc() { python3 -c "print($1)"; }
bench_median() {
  python3 -c 'import statistics, sys; print(round(statistics.median(map(float, sys.argv[1:])), 2))' "$@"
}
bench_enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
bench_now() { date +%s.%N; }
bench_ms_since() {  # milliseconds since a bench_now
  python3 -c "import sys; print(round((float(sys.argv[2]) - float(sys.argv[1])) * 1000, 1))" "$1" "$(bench_now)"
}

# The binaries: built here (release flags, benchmarks on) when one is missing.
bench_build() {
  local need=0 b
  for b in "$BIN" "$GEN" "$GEN_NIGHTLY"; do [ -x "$b" ] || need=1; done
  ((need)) || return 0
  [ -f "$BUILD/CMakeCache.txt" ] || cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPERFTRIAGE_SANITIZE=OFF -DPERFTRIAGE_BUILD_BENCH=ON >/dev/null
  cmake --build "$BUILD" --target perftriage gen_history_db gen_nightly -j"${JOBS:-2}"
}

# bench_nginx_run DIR READY_URL: Debian's nginx on DIR/nginx.conf (no daemon, logs in DIR), until READY_URL answers;
# sets BENCH_NGINX_PID. The configuration is the caller's (a static-file server, a reverse proxy).
BENCH_NGINX_PID=""
bench_nginx_run() {
  local dir=$1 url=$2 _
  "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >"$dir/stdout.log" 2>&1 &
  BENCH_NGINX_PID=$!
  for _ in $(seq 1 100); do
    curl -fs -o /dev/null "$url" && return 0
    kill -0 "$BENCH_NGINX_PID" 2>/dev/null || break
    sleep 0.1
  done
  cat "$dir/stdout.log" "$dir/error.log" >&2 2>/dev/null || true
  bench_die "nginx did not start ($NGINX -p $dir -c $dir/nginx.conf)"
}

# bench_tools load|year: the tools; wrk and nginx (for "load") come from scripts/install-bench-deps.sh when missing.
bench_tools() {
  local t missing=0
  if [ "${1:-}" = load ]; then
    command -v wrk >/dev/null 2>&1 || missing=1
    [ -x "$NGINX" ] || missing=1
  fi
  for t in curl python3 sqlite3; do command -v "$t" >/dev/null 2>&1 || missing=1; done
  ((missing == 0)) || scripts/install-bench-deps.sh
}

# bench_history DB PLATFORMS RUNS MODELS: generates DB with gen_history_db unless it exists (then it is reused as
# is, whatever its size). Sets GEN_S (seconds, "" when reused) and prints the generator's last line.
bench_history() {
  local db=$1 platforms=$2 runs=$3 models=$4 t0 out
  GEN_S=""
  [ -f "$db" ] && return 0
  local args=(--db "$db" --runs "$runs" --models "$models")
  local usage
  usage=$("$GEN" 2>&1 || true)  # the usage line names the flags it has
  if grep -q -- --platforms <<<"$usage"; then
    args+=(--platforms "$platforms")
  else  # an older generator: one platform, the same number of nightlies
    args=(--db "$db" --runs $((runs * platforms)) --models "$models")
    bench_note "gen_history_db has no --platforms: one platform, $((runs * platforms)) nightlies"
  fi
  t0=$(bench_now)
  out=$("$GEN" "${args[@]}") || bench_die "gen_history_db ${args[*]} failed: $out"
  GEN_S=$(python3 -c "print(round($(bench_now) - $t0, 1))")
  bench_note "generated: $(tail -1 <<<"$out")"
}

# bench_db_stats DB: sets DB_ROWS (result rows), DB_RUNS, DB_BYTES (the file plus -wal and -shm).
bench_db_stats() {
  local db=$1 f
  DB_ROWS=$(sqlite3 "$db" "SELECT count(*) FROM result_rows" 2>/dev/null ||
    sqlite3 "$db" "SELECT count(*) FROM results")
  DB_RUNS=$(sqlite3 "$db" "SELECT count(*) FROM runs")
  DB_BYTES=0
  for f in "$db" "$db-wal" "$db-shm"; do
    [ -f "$f" ] && DB_BYTES=$((DB_BYTES + $(stat -c %s "$f")))
  done
  return 0
}

# bench_serve DB [LOG]: starts `perftriage serve` on a free port (DB: a SQLite file or a postgresql:// URL), its
# output to LOG (default $BENCH_TMP/serve.log; one per server when several run); sets PT_PID, PT_BASE
# (http://127.0.0.1:PORT), PT_START_MS.
PT_PID=""
bench_serve() {
  local db=$1 t0 _
  PT_LOG=${2:-$BENCH_TMP/serve.log}
  t0=$(bench_now)
  # shellcheck disable=SC2086  # SERVE_ARGS is a list of flags
  PERFTRIAGE_SERVER_ACCESS_LOG=${ACCESS_LOG:-true} "$BIN" serve --db "$db" --listen 127.0.0.1:0 ${SERVE_ARGS:-} \
    >"$PT_LOG" 2>&1 &
  PT_PID=$!
  PT_BASE=""
  for _ in $(seq 1 600); do
    PT_BASE=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$PT_LOG" | head -1 || true)
    [ -n "$PT_BASE" ] && curl -fs -o /dev/null "$PT_BASE/healthz" && break
    kill -0 "$PT_PID" 2>/dev/null || { cat "$PT_LOG" >&2; bench_die "perftriage serve exited"; }
    sleep 0.1
  done
  [ -n "$PT_BASE" ] || { cat "$PT_LOG" >&2; bench_die "perftriage serve did not start"; }
  PT_START_MS=$(bench_ms_since "$t0")
}
bench_stop_server() {
  [ -n "$PT_PID" ] || return 0
  kill "$PT_PID" 2>/dev/null || true
  wait "$PT_PID" 2>/dev/null || true
  PT_PID=""
}

# bench_get_json URL PYTHON-EXPR: evaluates EXPR over the JSON body `d` of a GET (empty output when it fails).
bench_get_json() {
  curl -fs "$1" | python3 -c "import json, sys
try:
    d = json.load(sys.stdin); r = $2
    print(r if r is not None else '')
except Exception:
    pass"
}

# bench_params: realistic parameters, read through the API (not the schema): PLATFORM (that of the newest run, or
# $PLATFORM), PLATFORM_LIST (every platform, space-separated), RUN_LATEST / RUN_PREVIOUS (its two newest runs), a
# slow case of RUN_LATEST (CASE_SUITE, CASE_MODEL, CASE_DTYPE, CASE_MODE), and WRITE_PLATFORM: another platform (with
# its own history), for single writes that must not change what the per-platform calls read.
bench_params() {
  local runs="$PT_BASE/api/v1/runs?limit=1000"
  PLATFORM=${PLATFORM:-$(bench_get_json "$runs" "d['runs'][0]['platform']")}
  [ -n "$PLATFORM" ] || bench_die "GET /api/v1/runs lists no run"
  PLATFORM_LIST=$(bench_get_json "$runs" "' '.join(sorted({r['platform'] for r in d['runs']}))")
  local mine
  mine="$PT_BASE/api/v1/runs?limit=2&platform=$(bench_enc "$PLATFORM")"
  RUN_LATEST=$(bench_get_json "$mine" "d['runs'][0]['key']")
  RUN_PREVIOUS=$(bench_get_json "$mine" "d['runs'][-1]['key']")
  local slow
  slow=$(bench_get_json "$PT_BASE/api/v1/slow?run=$(bench_enc "$RUN_LATEST")" \
    "' '.join(d['cases'][0][k] for k in ('suite', 'model', 'dtype', 'mode'))")
  [ -n "$slow" ] || slow="huggingface huggingface_model_000 bfloat16 inference"
  read -r CASE_SUITE CASE_MODEL CASE_DTYPE CASE_MODE <<<"$slow"
  local p
  WRITE_PLATFORM=$PLATFORM
  for p in $PLATFORM_LIST; do [ "$p" = "$PLATFORM" ] || { WRITE_PLATFORM=$p; break; }; done
}

# bench_calls: CALLS, one "name|path" per call both benchmarks measure (the dashboard's calls, realistic parameters).
bench_calls() {
  local p l b
  p=$(bench_enc "$PLATFORM")
  l=$(bench_enc "$RUN_LATEST")
  b=$(bench_enc "$RUN_PREVIOUS")
  CALLS=(
    "runs|/api/v1/runs"
    "runs/{key}|/api/v1/runs/$l"
    "slow|/api/v1/slow?platform=$p"
    "compare|/api/v1/compare?base=$b&target=$l"
    "case history|/api/v1/cases/$(bench_enc "$CASE_SUITE")/$(bench_enc "$CASE_MODEL")/history?platform=$p&dtype=$(
      bench_enc "$CASE_DTYPE")&mode=$(bench_enc "$CASE_MODE")"
    "dashboard/overview|/api/v1/dashboard/overview?runs=30"
    "backlog|/api/v1/backlog?platform=$p"
  )
}

# bench_time_get URL [OUT [CURL ARGS...]]: "STATUS MS BYTES" of one GET (identity encoding, like wrk, unless the
# arguments ask otherwise), body to OUT or /dev/null.
bench_time_get() {
  curl -s -o "${2:-/dev/null}" -w '%{http_code} %{time_total} %{size_download}' "${@:3}" "$1" |
    awk '{ printf "%s %.2f %s\n", $1, $2 * 1000, $3 }'
}

# bench_token DB SCOPES: a new API token (names stay taken, so each one is unique).
bench_token() {
  "$BIN" token create --db "$1" --name "bench-$$-$RANDOM$RANDOM" --scope "$2" 2>/dev/null ||
    bench_die "perftriage token create --db $1 failed"
}

# bench_nightlies N MODELS: N generated nightly tarballs $BENCH_TMP/nightly-I.tar.gz (I = 1..N, seeds differ).
bench_nightlies() {
  local i
  for i in $(seq 1 "$1"); do
    "$GEN_NIGHTLY" --out "$BENCH_TMP/nightly-$i.tar.gz" --models "$2" --seed "$i" --stable >/dev/null ||
      bench_die "gen_nightly failed"
  done
}

# bench_upload TOKEN FILE RUN PLATFORM: POSTs a nightly to the server; prints "STATUS MS". A stored run is
# remembered for the cleanup.
# The first refused upload's answer is kept in $BENCH_TMP/upload-refused.json.
bench_upload() {
  local out body=$BENCH_TMP/upload-$BASHPID.json
  out=$(curl -s -o "$body" -w '%{http_code} %{time_total}' -H "Authorization: Bearer $1" \
    -H "Content-Type: application/gzip" --data-binary "@$2" \
    "$PT_BASE/api/v1/uploads?run=$(bench_enc "$3")&platform=$(bench_enc "$4")&tags=nightly,bench") || true
  if [ "${out%% *}" = 201 ]; then
    echo "$3" >>"$BENCH_UPLOADED"
  elif [ ! -e "$BENCH_TMP/upload-refused.json" ]; then
    { echo "HTTP ${out%% *}: "; head -c 500 "$body" 2>/dev/null; } >"$BENCH_TMP/upload-refused.json"
  fi
  rm -f "$body"
  awk '{ printf "%s %.1f\n", $1, $2 * 1000 }' <<<"${out:-000 0}"
}

# bench_uploaders_start N TOKEN TAG: N loops posting nightlies (nightly-1..N.tar.gz, the platforms in turn) until
# bench_uploaders_stop, which sets UPLOADS_OK / UPLOADS_FAILED / UPLOAD_MEDIAN_MS for that stretch.
bench_uploaders_start() {
  local n=$1 token=$2 tag=$3 u
  local platforms
  read -r -a platforms <<<"$PLATFORM_LIST"
  rm -f "$BENCH_TMP/uploaders.stop" "$BENCH_TMP"/uploader-*.log
  _uploader_pids=()
  for u in $(seq 1 "$n"); do
    (
      i=0
      while [ ! -e "$BENCH_TMP/uploaders.stop" ]; do
        i=$((i + 1))
        bench_upload "$token" "$BENCH_TMP/nightly-$u.tar.gz" "bench-$$-$tag-u$u-$i" \
          "${platforms[$(((u + i) % ${#platforms[@]}))]}" >>"$BENCH_TMP/uploader-$u.log"
      done
    ) &
    _uploader_pids+=($!)
  done
}
bench_uploaders_stop() {
  touch "$BENCH_TMP/uploaders.stop"
  local pid
  for pid in "${_uploader_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  _uploader_pids=()
  read -r UPLOADS_OK UPLOADS_FAILED UPLOAD_MEDIAN_MS < <(cat "$BENCH_TMP"/uploader-*.log 2>/dev/null | python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.strip()]
ok = [float(ms) for code, ms in rows if code == "201"]
print(len(ok), len(rows) - len(ok), round(statistics.median(ok)) if ok else "-")')
  if ((UPLOADS_FAILED > 0)) && [ -e "$BENCH_TMP/upload-refused.json" ]; then
    bench_note "an upload was refused: $(tr -d '\n' <"$BENCH_TMP/upload-refused.json")" >&2
  fi
  return 0
}

# bench_delete_uploaded DB: deletes the runs this benchmark stored (the keys in $BENCH_UPLOADED; at exit, for
# BENCH_DB), unless KEEP_UPLOADS=1. DB is a SQLite file or a postgresql:// URL.
bench_delete_uploaded() {
  local db=$1 key n=0
  [ "${KEEP_UPLOADS:-0}" = 1 ] && return 0
  [ -s "$BENCH_UPLOADED" ] || return 0
  while read -r key; do
    "$BIN" runs delete --db "$db" "$key" >/dev/null 2>&1 && n=$((n + 1))
  done <"$BENCH_UPLOADED"
  : >"$BENCH_UPLOADED"
  echo "# deleted the $n runs this benchmark uploaded (KEEP_UPLOADS=1 keeps them)"
}
