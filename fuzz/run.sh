#!/usr/bin/env bash
# Runs one libFuzzer harness: fuzz/run.sh BINARY TARGET SECONDS [more libFuzzer flags]
#  1. replays every file in fuzz/regressions/TARGET/ (saved crashes, hangs, leaks: each must now pass);
#  2. fuzzes for SECONDS on a COPY of fuzz/corpus/TARGET/ (the source tree is never written).
# Exits non-zero on a crash, leak, timeout (-timeout=10 s per input), OOM (-rss_limit_mb=2048) or failed check;
# the reproducer is then in WORK/artifacts/. Last line: "fuzz-summary: target=... execs=... cov=... ft=... ...".
# Environment:
#   FUZZ_WORK_DIR   working folder (corpus copy, artifacts, log), kept between runs so the corpus keeps growing;
#                   default: a new folder under FUZZ_WORK_ROOT (or $TMPDIR, /tmp), removed after a clean run.
set -uo pipefail
if (($# < 3)); then
  echo "usage: $0 BINARY TARGET SECONDS [libFuzzer flags...]" >&2
  exit 2
fi
bin=$1 target=$2 seconds=$3
shift 3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seeds=$here/corpus/$target
regressions=$here/regressions/$target
limits=(-rss_limit_mb=2048 -timeout=10)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

[ -x "$bin" ] || { echo "run.sh: $bin is not an executable (build the dev preset first: make fuzz)" >&2; exit 2; }

if [ -n "${FUZZ_WORK_DIR:-}" ]; then
  work=$FUZZ_WORK_DIR
  keep=1
else
  root=${FUZZ_WORK_ROOT:-${TMPDIR:-/tmp}}
  mkdir -p "$root"
  work=$(mktemp -d "$root/$target.XXXXXX")
  keep=0
fi
mkdir -p "$work/corpus" "$work/artifacts"

# 1. regressions
shopt -s nullglob
saved=("$regressions"/*)
shopt -u nullglob
if ((${#saved[@]})); then
  echo "run.sh: $target: replaying ${#saved[@]} regression input(s) from fuzz/regressions/$target"
  if ! "$bin" "${limits[@]}" -artifact_prefix="$work/artifacts/" "${saved[@]}" >"$work/regressions.log" 2>&1; then
    cat "$work/regressions.log"
    echo "fuzz-summary: target=$target result=REGRESSION (a saved input fails again; log above, work dir $work)"
    exit 1
  fi
fi

# 2. fuzzing on a copy of the seeds (files already in a kept work dir stay: the grown corpus is reused)
if [ -d "$seeds" ]; then
  cp -n "$seeds"/* "$work/corpus/" 2>/dev/null || true
fi
start=$(date +%s)
"$bin" "${limits[@]}" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
  "$@" "$work/corpus" 2>&1 | tee "$work/fuzz.log"
rc=${PIPESTATUS[0]}
elapsed=$(($(date +%s) - start))

# libFuzzer's last status line: "#1234 DONE cov: 10 ft: 20 corp: 5/1Kb ..." (or the last "#N ..." before a crash)
last=$(grep -E '^#[0-9]+' "$work/fuzz.log" | tail -n 1)
execs=$(grep -Eo '^stat::number_of_executed_units: [0-9]+' "$work/fuzz.log" | grep -Eo '[0-9]+$' | tail -n 1)
[ -n "$execs" ] || execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$last")
cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9A-Za-z]+).*/\1/p' <<<"$last")
files=$(find "$work/corpus" -type f | wc -l)
if ((rc == 0)); then
  result=ok
else
  result="FAILED(rc=$rc)"
  artifacts=$(find "$work/artifacts" -type f | tr '\n' ' ')
  echo "run.sh: $target: libFuzzer failed; reproducer(s): ${artifacts:-none written}"
fi
echo "fuzz-summary: target=$target seconds=$elapsed execs=${execs:-?} cov=${cov:-?} ft=${ft:-?} corp=${corp:-?} corpus_files=$files result=$result"
if ((rc == 0 && keep == 0)); then rm -rf "$work"; fi
exit "$rc"
