#!/usr/bin/env bash
# `make fuzz`: every harness in turn (serially, niced) for SECONDS each, with its corpus kept under
# BUILD/work/<target> between runs and its log in BUILD/logs/<target>.log; prints one summary line per target
# (executions, cov, ft from libFuzzer's final lines). Usage: fuzz/run-all.sh BUILD_DIR SECONDS [TARGET...]
set -uo pipefail
build=$1 seconds=$2
shift 2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in "$here"/*_fuzz.cpp; do
    n=$(basename "$f" .cpp)
    targets+=("${n%_fuzz}")
  done
fi
mkdir -p "$build/logs"
failed=()
for t in "${targets[@]}"; do
  log=$build/logs/$t.log
  echo "fuzz: $t for ${seconds}s (log: $log)"
  FUZZ_WORK_DIR=$build/work/$t nice -n "${FUZZ_NICE:-10}" "$here/run.sh" "$build/fuzz/${t}_fuzz" "$t" "$seconds" >"$log" 2>&1
  rc=$?
  grep '^fuzz-summary:' "$log" | tail -n 1 || echo "fuzz-summary: target=$t result=FAILED(rc=$rc), see $log"
  ((rc == 0)) || failed+=("$t")
done
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (reproducers under $build/work/<target>/artifacts/)"
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets clean"
