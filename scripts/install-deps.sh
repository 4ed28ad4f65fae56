#!/usr/bin/env bash
# Installs the Debian 12 packages the build and the tests need, only those missing.
set -euo pipefail
packages=(
  cmake ninja-build g++ make pkg-config python3 sqlite3
  libboost1.81-dev nlohmann-json3-dev libsqlite3-dev libfmt-dev libcurl4-openssl-dev libssl-dev
  libgtest-dev libarchive-dev zlib1g-dev libzstd-dev zstd libsimdjson-dev libre2-dev  # zstd: tests/e2e/ops/cache_test.py
  libtomlplusplus-dev libspdlog-dev prometheus-cpp-dev  # config file, access log, metrics
  libcli11-dev  # the command line (server/cli/)
  libpq-dev postgresql  # the PostgreSQL store (libpq) and the server its tests start in a temporary directory
  clang libclang-rt-14-dev  # the dev build (make test, make check): clang-14, libFuzzer, ASan and UBSan runtimes
  ccache lld  # rebuilds compile only what changed, also across clones; LLVM's linker for the sanitized binaries
  clang-format clang-tidy  # .clang-format (CTest `format`, `make format`) and .clang-tidy (`make tidy`)
  chromium nodejs  # dashboard browser tests: playwright-core (package-lock.json) drives Debian's Chromium
)
# npm: Debian's package, unless a node distribution that bundles npm (e.g. NodeSource's nodejs) provides it already.
command -v npm >/dev/null 2>&1 || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
