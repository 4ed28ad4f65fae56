#!/usr/bin/env bash
# Installs the Debian 12 packages the load benchmarks need (bench/load.sh, bench/year.sh), only those missing:
# wrk (the load generator) and nginx-light (the static-file baseline each call is measured against). The build and
# the tests do not need them (scripts/install-deps.sh).
set -euo pipefail
packages=(
  wrk          # bench/load.sh: wrk -t2 -c64 --latency against perftriage and nginx
  nginx-light  # bench/load.sh: /usr/sbin/nginx serves the same response bytes from files
  curl sqlite3 python3  # the scripts' helpers (fetching bodies, row counts, parsing wrk's output)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-bench-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
