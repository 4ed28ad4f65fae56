#!/usr/bin/env bash
# The cold compare of two 12k-row nightlies, side by side with the reference tree (REF) it was first measured on.
# The reference tree's `compare_bench` measured "compare of two 12k-row nightlies cold: 47 ms" (its "total median"
# line: load both runs, compare, JSON, no response cache); the target is <= 30 ms, i.e. <= 0.64x. This machine's
# speed moves 2x from day to day, so the target is read as that ratio: both benches run alternately, ROUNDS times,
# and each round prints both medians and their ratio.
#   bench/compare_reference.sh            (REF=0ffd280, the tree before store v2; ROUNDS=5; ITERATIONS=15)
#   MODE=instructions bench/compare_reference.sh
#                                         (the instructions one compare executes in each tree, counted by valgrind's
#                                          callgrind: the same on any machine and any day, where times move 2x.
#                                          Each bench runs at 2 and 6 iterations; the difference over 4 is one
#                                          compare, without the set-up both runs share. Needs valgrind; ~2 min)
# The reference is built once, release preset, in a git worktree under $WORK (default /tmp/perftriage-compare-ref);
# the current bench comes from build/release (built when missing). Times are printed, nothing is asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
REF=${REF:-0ffd280}
ROUNDS=${ROUNDS:-5}
ITERATIONS=${ITERATIONS:-15}
WORK=${WORK:-/tmp/perftriage-compare-ref}

if [[ ! -x "$WORK/build/release/bench/compare_bench" ]]; then
  rm -rf "$WORK"
  git worktree prune
  git worktree add -f --detach "$WORK" "$REF" >/dev/null
  (cd "$WORK" && cmake --preset release >/dev/null && cmake --build build/release --target compare_bench)
fi
if [[ ! -x build/release/bench/compare_bench ]]; then
  cmake --preset release >/dev/null
  cmake --build build/release --target compare_bench
fi

if [[ "${MODE:-time}" == instructions ]]; then
  command -v valgrind >/dev/null || { echo "MODE=instructions needs valgrind (apt-get install valgrind)" >&2; exit 1; }
  # Instructions of one compare: callgrind's total at 6 iterations minus at 2, over 4.
  per_compare() {
    local out n2 n6
    out=$(mktemp)
    n2=$(valgrind --tool=callgrind --callgrind-out-file="$out" "$1" --iterations 2 2>&1 >/dev/null |
      sed -nE 's/.*Collected : ([0-9]+).*/\1/p')
    n6=$(valgrind --tool=callgrind --callgrind-out-file="$out" "$1" --iterations 6 2>&1 >/dev/null |
      sed -nE 's/.*Collected : ([0-9]+).*/\1/p')
    rm -f "$out"
    echo $(((n6 - n2) / 4))
  }
  ref=$(per_compare "$WORK/build/release/bench/compare_bench")
  now=$(per_compare build/release/bench/compare_bench)
  echo "| instructions per compare | reference $REF | now | ratio |"
  echo "| --- | ---: | ---: | ---: |"
  awk -v a="$now" -v b="$ref" 'BEGIN { printf "| load + compare + JSON | %.1f M | %.1f M | %.3f |\n", b / 1e6, a / 1e6, a / b }'
  exit 0
fi

median_of() { grep -E '^  total' | sed -E 's/.*median +([0-9.]+) ms.*/\1/'; }
echo "| round | reference $REF median (ms) | now: median (ms) | now: first compare of the process (ms) | now: new pair (ms) | median ratio |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
for round in $(seq 1 "$ROUNDS"); do
  ref=$("$WORK/build/release/bench/compare_bench" --iterations "$ITERATIONS" | median_of)
  now_out=$(build/release/bench/compare_bench --iterations "$ITERATIONS" | grep -E '^  total')
  now=$(echo "$now_out" | median_of)
  first=$(echo "$now_out" | sed -E 's/.*first +([0-9.]+) ms.*/\1/')
  pair=$(echo "$now_out" | sed -E 's/.*new pair +([0-9.]+) ms.*/\1/')
  echo "| $round | $ref | $now | $first | $pair | $(awk -v a="$now" -v b="$ref" 'BEGIN { printf "%.2f", a / b }') |"
done
echo "(target: median ratio <= 0.64, the 30 ms target over the reference tree's 47 ms)"
