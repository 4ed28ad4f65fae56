#!/usr/bin/env bash
# Peak memory of an upload against its uncompressed size, through the CLI (`perftriage ingest`) and
# HTTP (`POST /api/v1/uploads` on `perftriage serve`), with a release binary:
#   (a) a ~13.5 MB zip of valid rows (70 files x 20k rows, ~111 MB uncompressed)
#   (b) a 40 MB CSV
#   (c) a 255 MB CSV body (just under the 256 MB default body limit)
# CLI: "Maximum resident set size" of /usr/bin/time -v. HTTP: VmHWM of a fresh server per case (its idle RSS is
# printed too). Budget: peak <= 3 x uncompressed size + BASE_MB, BASE_MB = 128 (SQLite's page cache is 64 MiB per
# connection, cache_size=-65536, and fills during a large insert; the binary, heap and the read path make the
# rest). Exits 1 when a case is over budget.
#
#   bench/upload_memory.sh [BINARY] [WORKDIR]     (default: build/release/perftriage, a temporary directory)
#   CASES="b c" bench/upload_memory.sh ...        (a subset)
set -euo pipefail

BIN=${1:-build/release/perftriage}
WORK=${2:-$(mktemp -d /tmp/perftriage-upload-memory.XXXXXX)}
BASE_MB=${BASE_MB:-128}
RATIO=${RATIO:-3}
CASES=${CASES:-a b c}
[[ -x $BIN ]] || { echo "no binary at $BIN (cmake --preset release && cmake --build build/release)" >&2; exit 2; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
mkdir -p "$WORK"
cd "$WORK"

python3 - "$CASES" <<'EOF'
import os, random, sys, zipfile
HEADER = ("dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,"
          "dynamo_peak_mem,calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,"
          "autograd_compiles,cudagraph_skips\n")

def csv_file(path, target):
    if os.path.exists(path): return
    rnd = random.Random(1)
    with open(path, "w") as f:
        written, i, buf = len(HEADER), 0, [HEADER]
        while True:
            line = "xpu,model_%08d,%d,%.6f,%.6f,%.6f,0.000000,0,0,%d,1,0,0,0,0,0\n" % (
                i, 1 << (i % 8), rnd.uniform(0.5, 2.6), rnd.uniform(1, 400), rnd.uniform(5, 200),
                rnd.randrange(50, 2000))
            if written + len(line) > target: break
            buf.append(line); written += len(line); i += 1
            if len(buf) >= 100000: f.write("".join(buf)); buf = []
        f.write("".join(buf))

def zip_file(path, files, per_file):
    if os.path.exists(path): return
    sp = ["%.6f" % (0.5 + i * 0.1) for i in range(20)]
    la = ["%.6f" % (1 + i * 7.3) for i in range(30)]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for k in range(files):
            rnd = random.Random(k)
            suite = ["huggingface", "timm_models", "torchbench"][k % 3]
            rows = [HEADER] + ["xpu,model_%07d,%d,%s,%s,%s,0.000000,0,0,%d,1,0,0,0,0,0\n" % (
                i, 1 << (i % 8), sp[rnd.randrange(20)], la[rnd.randrange(30)], la[rnd.randrange(30)], 100 + i % 50)
                for i in range(per_file)]
            z.writestr("shard%03d/%s/bfloat16/inference/performance/"
                       "inductor-results-%s-bfloat16-inference-xpu-performance.csv" % (k, suite, suite), "".join(rows))

cases = sys.argv[1].split()
if "a" in cases: zip_file("a.zip", 70, 20000)
if "b" in cases: csv_file("b.csv", 40 * 1000 * 1000)
if "c" in cases: csv_file("c.csv", 255 * 1000 * 1000)
EOF

uncompressed() {  # bytes of the CSV text an input holds
  case $1 in
    *.zip) python3 -c "import sys, zipfile; print(sum(i.file_size for i in zipfile.ZipFile(sys.argv[1]).infolist()))" "$1" ;;
    *) stat -c %s "$1" ;;
  esac
}

free_port() { python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }

fail=0
report() {  # label input-bytes peak-kB
  local mb=$(( $2 / 1048576 )) peak_mb=$(( $3 / 1024 ))  # MiB
  local budget=$(( RATIO * $2 / 1048576 + BASE_MB ))
  local verdict=ok
  (( peak_mb > budget )) && { verdict=OVER; fail=1; }
  awk -v l="$1" -v mb="$mb" -v pk="$peak_mb" -v in_b="$2" -v kb="$3" -v base="$BASE_MB" -v bud="$budget" -v v="$verdict" \
    'BEGIN { printf "%-36s input %6d MiB  peak RSS %6d MiB  ratio %5.2f  (peak - %d MB) / input %5.2f  budget %6d MiB  %s\n",
             l, mb, pk, kb * 1024 / in_b, base, (kb - base * 1024) * 1024 / in_b, bud, v }' 
}

for c in $CASES; do
  case $c in
    a) input=a.zip type=application/zip label="(a) zip of valid rows" ;;
    b) input=b.csv type=text/csv label="(b) 40 MB CSV" ;;
    c) input=c.csv type=text/csv label="(c) 255 MB CSV body" ;;
    *) echo "unknown case $c" >&2; exit 2 ;;
  esac
  size=$(uncompressed "$input")
  path=huggingface/bfloat16/inference/performance/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv
  [[ $input == *.zip ]] && path=upload.zip

  # CLI
  rm -f cli.sqlite*
  mkdir -p "cli-$c" && rm -rf "cli-$c"/* && mkdir -p "cli-$c/$(dirname "$path")"
  ln -f "$input" "cli-$c/$path" 2> /dev/null || cp "$input" "cli-$c/$path"  # not a symlink: the CLI resolves those
  /usr/bin/time -v "$BIN" ingest --db cli.sqlite --platform BMG --run "mem-$c" --json "cli-$c" \
    > "cli-$c.json" 2> "cli-$c.time" || { echo "CLI ingest of $input failed:"; tail -5 "cli-$c.time"; exit 1; }
  peak=$(awk -F': ' '/Maximum resident set size/ {print $2}' "cli-$c.time")
  report "$label, CLI" "$size" "$peak"

  # HTTP: a fresh server, so that VmHWM is this upload's
  rm -f srv.sqlite*
  token=$("$BIN" token create --db srv.sqlite --name bench --scope upload 2> /dev/null)  # uploads need a token
  port=$(free_port)
  "$BIN" serve --listen "127.0.0.1:$port" --db srv.sqlite > "srv-$c.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/api/v1/healthz" > /dev/null && break; sleep 0.1; done
  idle=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  status=$(curl -s -o "srv-$c.json" -w '%{http_code}' -H "Authorization: Bearer $token" -H "Content-Type: $type" \
    --data-binary "@$input" \
    "http://127.0.0.1:$port/api/v1/uploads?platform=BMG&run=mem-$c&path=$path")
  peak=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  kill "$pid"; wait "$pid" 2> /dev/null || true
  [[ $status == 201 ]] || { echo "HTTP upload of $input answered $status: $(head -c 300 "srv-$c.json")"; exit 1; }
  report "$label, HTTP (idle $(( idle / 1024 )) MB)" "$size" "$peak"
done
[[ $fail == 0 ]] || { echo "FAIL: peak RSS over ${RATIO} x input + ${BASE_MB} MB"; exit 1; }
echo "ok: every peak within ${RATIO} x input + ${BASE_MB} MB"
