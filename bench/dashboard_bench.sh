#!/usr/bin/env bash
# Server time of every dashboard page's API calls on a >= 10M-row database (each < 100 ms).
#   bench/dashboard_bench.sh [DB=/tmp/perftriage-history.sqlite]
# Env: BUILD (default build/release; built here with the release preset's flags when the binary is missing),
#      PERFTRIAGE (a perftriage binary to use instead), GEN (a gen_history_db binary), RUNS / MODELS (generator
#      size, default 1000 x 170 = 10.2M rows), REPEAT (timed calls per endpoint after the first, default 5).
# The database comes from bench/gen_history_db (the compare benchmark's generator: one platform, 1,000 nightlies);
# it is generated when DB does not exist and left in place for the next run (2-3 GB: keep it out of the repository).
# Each call is timed by curl on 127.0.0.1 (time to the last byte): the first call of an endpoint is "cold" (per-run
# statistics not cached yet), the others "warm". Prints one row per call and fails when a warm median is >= 100 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
DB=${1:-/tmp/perftriage-history.sqlite}
BUILD=${BUILD:-build/release}
REPEAT=${REPEAT:-5}
BIN=${PERFTRIAGE:-$BUILD/perftriage}
GEN=${GEN:-$BUILD/bench/gen_history_db}

if [ ! -x "$BIN" ] || { [ ! -f "$DB" ] && [ ! -x "$GEN" ]; }; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPERFTRIAGE_SANITIZE=OFF -DPERFTRIAGE_BUILD_BENCH=ON >/dev/null
  cmake --build "$BUILD" --target perftriage gen_history_db -j"${JOBS:-1}"
fi
if [ ! -f "$DB" ]; then
  "$GEN" --db "$DB" --runs "${RUNS:-1000}" --models "${MODELS:-170}"
fi
rows=$(sqlite3 "$DB" "SELECT count(*) FROM results")
runs=$(sqlite3 "$DB" "SELECT count(*) FROM runs")
echo "database: $DB ($rows result rows, $runs runs); binary: $BIN"

log=$(mktemp)
"$BIN" serve --db "$DB" --listen 127.0.0.1:0 >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$log"' EXIT
base=""
for _ in $(seq 1 600); do
  base=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$log" | head -1 || true)
  [ -n "$base" ] && break
  kill -0 $pid 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
[ -n "$base" ] || { echo "server did not start"; cat "$log"; exit 1; }

enc() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
latest=$(sqlite3 "$DB" "SELECT key FROM runs ORDER BY created_at DESC, id DESC LIMIT 1")
previous=$(sqlite3 "$DB" "SELECT key FROM runs ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET 1")
platform=$(sqlite3 "$DB" "SELECT platform FROM runs ORDER BY created_at DESC, id DESC LIMIT 1")
IFS='|' read -r suite dtype mode model < <(sqlite3 "$DB" \
  "SELECT suite, dtype, mode, model FROM results WHERE run_id = (SELECT id FROM runs WHERE key = '$latest') \
   AND kind = 'performance' AND speedup > 0 AND speedup < 1 LIMIT 1")
L=$(enc "$latest"); P=$(enc "$previous"); M=$(enc "$model")

# page|path: the calls each page makes (web/app.js), with the parameters a user would have.
calls=(
  "overview|/api/v1/dashboard/overview?runs=30"
  "run|/api/v1/dashboard/runs?limit=1000"
  "run|/api/v1/runs/$L"
  "run|/api/v1/dashboard/matrix?run=$L"
  "run|/api/v1/slow?run=$L"
  "run|/api/v1/results?run=$L&flag=failed&limit=500"
  "run (copy markdown)|/api/v1/slow?run=$L&format=md"
  "compare|/api/v1/compare?base=$P&target=$L"
  "case|/api/v1/cases/$suite/$M/history?platform=$platform&dtype=$dtype&mode=$mode"
  "case|/api/v1/runs/$L/cases/$suite/$dtype/$mode/$M"
  "case, issues|/api/v1/issues"
  "backlog|/api/v1/backlog?platform=$platform"
  "issues|/api/v1/outbox"
)

printf '%-20s %-78s %6s %9s %9s %9s\n' page call status "cold ms" "warm med" "warm max"
over=()
for entry in "${calls[@]}"; do
  page=${entry%%|*}
  url=${entry#*|}
  times=()
  status=""
  for i in $(seq 0 "$REPEAT"); do
    out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$base$url")
    status=${out%% *}
    times+=("$(python3 -c "print(round(${out##* } * 1000, 1))")")
  done
  read -r cold med max < <(python3 -c '
import statistics, sys
t = [float(x) for x in sys.argv[1:]]
print(t[0], round(statistics.median(t[1:]), 1), max(t[1:]))' "${times[@]}")
  printf '%-20s %-78s %6s %9s %9s %9s\n' "$page" "${url:0:78}" "$status" "$cold" "$med" "$max"
  if python3 -c "import sys; sys.exit(0 if float('$med') >= 100 else 1)"; then over+=("$page $url"); fi
  [ "$status" = 200 ] || over+=("$page $url: HTTP $status")
done
if ((${#over[@]})); then
  echo "over budget (warm median >= 100 ms or not 200):"
  printf '  %s\n' "${over[@]}"
  exit 1
fi
echo "every page's API calls: warm median < 100 ms"
