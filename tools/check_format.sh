#!/usr/bin/env bash
# CTest `format`: every C++ file the project owns is as clang-format (.clang-format) writes it.
# `make format` rewrites them. Lists the files that differ and exits 1; exits 77 (skipped) without clang-format.
set -euo pipefail
root=${1:-.}
cd "$root"
fmt=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$fmt" ] || { echo "format: clang-format not installed (scripts/install-deps.sh installs it)"; exit 77; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -co --exclude-standard -- '*.cpp' '*.hpp' | grep -v '^layers/')
else
  mapfile -t files < <(find . -path ./build -prune -o -path ./layers -prune -o \( -name '*.cpp' -o -name '*.hpp' \) -print)
fi
existing=()
for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done
files=("${existing[@]}")
# Many files per clang-format process (one process per file was most of this check's time); a file that differs is
# named at the start of each of its diagnostics ("path:line:col: error: code should be clang-formatted").
mapfile -t bad < <(printf '%s\0' "${files[@]}" | xargs -0 -n 64 -P 2 "$fmt" --dry-run --Werror 2>&1 >/dev/null |
  sed -nE 's/^(.+):[0-9]+:[0-9]+: (error|warning): .*/\1/p' | sort -u)
if ((${#bad[@]})); then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "format: ${#bad[@]} of ${#files[@]} files differ from clang-format; run \`make format\`"
  exit 1
fi
echo "format: ${#files[@]} files formatted"
