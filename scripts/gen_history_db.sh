#!/bin/sh
# Builds the >= 10M-row history database for bench/compare_bench, then runs the benchmark on it.
#   scripts/gen_history_db.sh [DB=/tmp/perftriage-history.sqlite] [BUILD=build/release]
# The database is ~2-3 GB: keep it out of the repository, and delete it when done.
set -eu
DB=${1:-/tmp/perftriage-history.sqlite}
BUILD=${2:-build/release}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPERFTRIAGE_SANITIZE=OFF -DPERFTRIAGE_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD" --target gen_history_db compare_bench -j"${JOBS:-1}"
"$BUILD/bench/gen_history_db" --db "$DB" --runs "${RUNS:-1000}" --models "${MODELS:-170}"
"$BUILD/bench/compare_bench" --history-db "$DB"
