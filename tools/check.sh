#!/usr/bin/env bash
# `make check`: the hourly tier. Builds the unit test executables (not the binary's end-to-end suites, not the fuzz
# harnesses) and runs the unit tests of those the build relinked, i.e. of what changed since the last check.
# CHECK_ALL=1 runs every unit test; `make test` runs everything.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-2}
cmake --preset dev >/dev/null || exit 1
bin=build/dev/tests
units=(test_common test_ingest test_schema test_analyzers_flags test_analyzers_trace test_analyzers_labeler
  test_analyzers_compare test_server)
declare -A before
for u in "${units[@]}"; do before[$u]=$(stat -c %y "$bin/$u" 2>/dev/null || echo none); done
cmake --build --preset dev -j "$jobs" --target "${units[@]}" || exit 1
changed=()
for u in "${units[@]}"; do
  if [ -n "${CHECK_ALL:-}" ] || [ "$(stat -c %y "$bin/$u" 2>/dev/null)" != "${before[$u]}" ]; then
    changed+=("$u")
  fi
done
if ((${#changed[@]} == 0)); then
  echo "check: no unit test executable changed since the last check (CHECK_ALL=1 runs them all)"
  exit 0
fi
echo "check: running ${changed[*]}"
labels=$(IFS='|'; echo "^(${changed[*]})\$")
ctest --preset dev -j "$jobs" -L "$labels"
