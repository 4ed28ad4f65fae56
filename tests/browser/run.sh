#!/usr/bin/env bash
# Runs the dashboard browser test: npm ci when needed, then node. Env: PERFTRIAGE_BINARY, PERFTRIAGE_SCREENSHOTS.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
chromium="${PERFTRIAGE_CHROMIUM:-/usr/bin/chromium}"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "browser test skipped: node/npm missing (scripts/install-deps.sh installs nodejs and npm)"; exit 77
fi
if [ ! -x "$chromium" ]; then
  echo "browser test skipped: $chromium missing (scripts/install-deps.sh installs chromium)"; exit 77
fi
if [ ! -f node_modules/playwright-core/package.json ]; then
  echo "npm ci (playwright-core from package-lock.json; no browser download)"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
fi
exec node tests/browser/dashboard.test.mjs
