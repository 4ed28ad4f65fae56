#!/usr/bin/env bash
# classify_bench.sh [BUILD_DIR] — Release benchmark of the trace classifier.
# Classifies the 87 MB HTA MTIA trace (decompressed to a temp file) and a generated 1 GB trace; prints MB/s and peak
# RSS, and the time of a plain Python json.load + counting loop over the same files. Deletes the temp files.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/h-trace-rel}
mtia_gz="$root/../shared/data/traces/hta/tests__data__mtia_trace_single_rank__mtia_rank_0.json.gz"
if [ ! -x "$build/bench/classify_bench" ] || [ ! -x "$build/bench/gen_trace" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPERFTRIAGE_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" --target classify_bench gen_trace -j1
fi
bench="$build/bench/classify_bench"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/classify_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

files=()
if [ -f "$mtia_gz" ]; then
  gzip -dc "$mtia_gz" >"$tmp/mtia_rank_0.json"
  files+=("$tmp/mtia_rank_0.json")
else
  echo "note: $mtia_gz not found; skipping the MTIA trace" >&2
fi
echo "generating a 1 GB trace..." >&2
"$build/bench/gen_trace" "$tmp/generated_1g.json" 1024 >/dev/null
files+=("$tmp/generated_1g.json")

py_count='
import json, sys, time
t = time.perf_counter()
with open(sys.argv[1]) as f:
    d = json.load(f)
ev = d["traceEvents"] if isinstance(d, dict) else d
n = 0
for e in ev:
    if e.get("cat") in ("kernel", "Kernel"):
        n += 1
print("%.3f %d" % (time.perf_counter() - t, n))
'
printf "%-22s %10s %9s %9s %10s %9s %9s %10s %8s\n" file MB seconds MB/s peakRSS_MB RSS/size python_s speedup kernels
for f in "${files[@]}"; do
  "$bench" "$f" >/dev/null  # warm the page cache
  line=$("$bench" "$f")
  rss_kb=$( { /usr/bin/time -v "$bench" "$f" >/dev/null; } 2>&1 | awk -F': ' '/Maximum resident set size/ {print $2}')
  read -r py_s py_n < <(python3 -c "$py_count" "$f")
  python3 - "$line" "$rss_kb" "$py_s" "$py_n" "$(basename "$f")" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); rss_mb = int(sys.argv[2]) / 1024; py_s = float(sys.argv[3]); py_n = int(sys.argv[4])
mb = r["bytes"] / 1e6
print("%-22s %10.1f %9.3f %9.1f %10.1f %9.2f %9.2f %9.1fx %8d%s" % (
    sys.argv[5][:22], mb, r["seconds"], r["mb_per_s"], rss_mb, rss_mb * 1024 * 1024 / r["bytes"], py_s,
    py_s / r["seconds"], r["device_kernels"], "" if py_n == r["device_kernels"] else "  (python counted %d!)" % py_n))
PY
done
echo "targets: >= 500 MB/s, >= 10x python, peak RSS <= 1.5x the uncompressed size"
