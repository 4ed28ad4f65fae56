#!/usr/bin/env bash
# A year of nightlies: 10 platforms x 365 nightlies x 92 models (5,520 rows a nightly, 20.1M rows). Reports
#   - generation time (gen_history_db, through the real ingest path), database size and bytes per result row
#     (the file with its -wal and -shm, raw files included; target <= 120),
#   - for every call of bench/load.sh (bench/lib.sh's list): the cold latency (the first call after the server
#     started; a fresh server per call), the warm latency (median of REPEAT calls) and the cold latency again after
#     a write (one nightly uploaded over HTTP, to another platform than the calls read); targets cold < 100 ms,
#     warm < 5 ms,
#   - the CLI ingest time of one nightly (`perftriage ingest`, INGEST_MODELS models: 9,000 rows) into this database
#     vs. into an empty one (median of INGEST_REPEAT each; target <= 1.5x).
# Targets are reported, not asserted: the script fails only when something cannot be set up.
#   bench/year.sh [DB]            (default /tmp/perftriage-year.sqlite, generated when missing, reused as is after)
# Env: DB, PLATFORMS / RUNS / MODELS (generator size, default 10 / 365 / 92), REPEAT (warm calls, 20),
#      INGEST_MODELS (150), INGEST_REPEAT (3), and bench/lib.sh's BUILD, PERFTRIAGE, KEEP_UPLOADS, ACCESS_LOG,
#      SERVE_ARGS. The runs the benchmark stores (uploads, ingests) are deleted from DB at exit.
# Times are curl's time_total on 127.0.0.1 (to the last byte, identity encoding); the OS page cache is not dropped,
# so "cold" is the server's cold (its caches and statements), not the disk's.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh

DB=${1:-${DB:-/tmp/perftriage-year.sqlite}}
PLATFORMS=${PLATFORMS:-10}
RUNS=${RUNS:-365}
MODELS=${MODELS:-92}
REPEAT=${REPEAT:-20}
INGEST_MODELS=${INGEST_MODELS:-150}
INGEST_REPEAT=${INGEST_REPEAT:-3}

# verdict OK? TEXT: "ok" or "MISS" for a python condition.
verdict() { python3 -c "print('ok' if $1 else 'MISS')"; }

report_size() {
  bench_db_stats "$DB"
  local per_row
  per_row=$(bench_calc "round($DB_BYTES / max($DB_ROWS, 1), 1)")
  echo "# year: $DB; $BIN; $(nproc) cores"
  echo "| what | value | target |"
  echo "| --- | ---: | --- |"
  echo "| generation (gen_history_db --platforms $PLATFORMS --runs $RUNS --models $MODELS) | ${GEN_S:-reused} s | |"
  echo "| runs / result rows | $DB_RUNS / $DB_ROWS | >= 20M rows |"
  echo "| database size (with -wal, -shm) | $(bench_calc "round($DB_BYTES / 1e6, 1)") MB | |"
  echo "| bytes per result row (raw files included) | $per_row | <= 120: $(verdict "$per_row <= 120") |"
}

# latency_row NAME PATH TOKEN N: a fresh server; its first call, REPEAT warm calls, an upload, the first call after.
latency_row() {
  local name=$1 path=$2 token=$3 n=$4 status cold after size up_status up_ms times=() i ms warm
  bench_serve "$DB"
  read -r status cold size < <(bench_time_get "$PT_BASE$path")
  [ "$status" = 200 ] || bench_die "GET $path answered $status"
  for i in $(seq 1 "$REPEAT"); do
    read -r _ ms _ < <(bench_time_get "$PT_BASE$path")
    times+=("$ms")
  done
  warm=$(bench_median "${times[@]}")
  read -r up_status up_ms < <(bench_upload "$token" "$BENCH_TMP/nightly-1.tar.gz" "bench-$$-write-$n" \
    "$WRITE_PLATFORM")
  [ "$up_status" = 201 ] || bench_die "the upload before $name's call answered $up_status"
  read -r status after _ < <(bench_time_get "$PT_BASE$path")
  bench_stop_server
  echo "| $name | $size | $cold | $warm | $after (upload $up_ms ms) |" \
    "$(verdict "$cold < 100 and $after < 100") / $(verdict "$warm < 5") |"
}

# ingest_ms DB RUN: wall time of `perftriage ingest` of the nightly tarball as one run of WRITE_PLATFORM (a platform
# with a year of history, not the one the calls read).
ingest_ms() {
  local t0 out
  t0=$(bench_now)
  out=$("$BIN" ingest --db "$1" --platform "$WRITE_PLATFORM" --run "$2" --tag nightly \
    "$BENCH_TMP/nightly-1.tar.gz" 2>&1) ||
    bench_die "perftriage ingest --db $1 failed: $out"
  bench_ms_since "$t0"
}

report_ingest() {
  local empty=() year=() r e y
  for r in $(seq 1 "$INGEST_REPEAT"); do
    rm -f "$BENCH_TMP"/empty.sqlite*
    bench_token "$BENCH_TMP/empty.sqlite" read >/dev/null  # creates the database first: the ingest alone is timed
    empty+=("$(ingest_ms "$BENCH_TMP/empty.sqlite" "bench-$$-ingest-$r")")
    echo "bench-$$-ingest-$r" >>"$BENCH_UPLOADED"
    year+=("$(ingest_ms "$DB" "bench-$$-ingest-$r")")
  done
  e=$(bench_median "${empty[@]}")
  y=$(bench_median "${year[@]}")
  echo "| ingest of one nightly ($((INGEST_MODELS * 60)) rows, CLI) | empty db $e ms, year db $y ms:" \
    "$(bench_calc "round($y / $e, 2)")x | <= 1.5x: $(verdict "$y / $e <= 1.5") |"
}

bench_tools year
bench_build
bench_history "$DB" "$PLATFORMS" "$RUNS" "$MODELS"
BENCH_DB=$DB
report_size

bench_serve "$DB"
bench_params
bench_calls
bench_stop_server
token=$(bench_token "$DB" upload)
bench_nightlies 1 "$INGEST_MODELS"
report_ingest
echo
echo "# a fresh server per call (started in ${PT_START_MS} ms); warm = median of $REPEAT calls; ms"
echo "| call | bytes | cold (after start) | warm | cold after a write | target cold < 100 / warm < 5 |"
echo "| --- | ---: | ---: | ---: | ---: | --- |"
for i in "${!CALLS[@]}"; do
  latency_row "${CALLS[i]%%|*}" "${CALLS[i]#*|}" "$token" "$i"
done
echo "# paths: $(printf '%s ' "${CALLS[@]#*|}")"
