#!/usr/bin/env bash
# `make test` (and so CI): the dev build (clang, ASan + UBSan, the fuzz harnesses in the same tree), then every CTest
# entry; ends with the build time, the test time, the ten slowest entries and "test: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-2}
cmake --preset dev >/dev/null || exit 1
start=$(date +%s)
cmake --build --preset dev -j "$jobs" || exit 1
built=$(date +%s)
junit=$PWD/build/dev/ctest-junit.xml
rm -f "$junit"
ctest --preset dev -j "$jobs" --output-junit "$junit" "$@"
rc=$?
done_at=$(date +%s)
python3 tools/test_summary.py "$junit" $((built - start)) $((done_at - built)) || rc=1
exit "$rc"
