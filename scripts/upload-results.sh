#!/usr/bin/env bash
# Uploads a benchmark results tree (the harness CSVs, e.g. inductor_log/) to perftriage with ONE request:
#   tar czf - (the CSVs of DIR) | curl ... POST $URL/api/v1/uploads?run=...   (Content-Type: application/gzip)
# The token needs the `upload` scope: perftriage token create --name ci-bmg --scope upload. docs/ci-upload.md.
#
#   scripts/upload-results.sh --url https://perftriage.example.com --run bmg-nightly-20260901 --platform BMG \
#       --torch-version 2.15.0.dev20260901+xpu [--device xpu] [--commit SHA] [--tags nightly,ci] \
#       [--created-at 2026-09-01T03:00:00Z] [--replace] [--retries 5] [--token-file FILE]
#       [--fail-on regression] [--baseline previous|KEY|TAG] [--repo OWNER/NAME [--pr N]] DIR
#
# --repo (with --commit): the server posts its verdict on that commit of that GitHub repository, when the repository
# is configured for checks (docs/github.md): a check run or a commit status, and with --pr one comment on the pull
# request, edited by each later upload of the platform. The answer's "check" says what was queued, or why not.
#
# The token comes from --token-file or PERFTRIAGE_TOKEN (never from the command line: it would show in `ps`);
# the URL from --url or PERFTRIAGE_URL. Transient failures (connection refused, timeouts, 408/429/500/502/503/504)
# are retried with curl's backoff, honouring Retry-After; a retry is safe: a file stored already is a duplicate.
#
# --fail-on regression: once stored, the run is compared with --baseline (default `previous`: the platform's run
# before it; a run key or a tag also works) and the comparison's report is printed; any case judged a regression
# (docs/verdicts.md) makes the exit status 4. For CI systems without GitHub checks; with read_access = "token" the
# token needs the read scope too.
#
# Exit status: 0 stored (201) or every file already stored (200), and with --fail-on no regression; 1 refused by the
# server (4xx other than the retried ones; the server's message is printed); 2 bad usage; 3 the server could not be
# reached or kept failing; 4 stored, and --fail-on regression found one.
set -euo pipefail

usage() {
  sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

url="${PERFTRIAGE_URL:-}"
token_file=""
retries=5
dir=""
query=()
run_key=""
fail_on=""
baseline="previous"

# Percent-encodes one query value (curl's --url-query needs curl 7.87; CI images may be older).
urlencode() {
  local s="$1" out="" c i
  local LC_ALL=C
  for ((i = 0; i < ${#s}; i++)); do
    c="${s:i:1}"
    case "$c" in
      [A-Za-z0-9._~-]) out+="$c" ;;
      *) out+=$(printf '%%%02X' "'$c") ;;
    esac
  done
  printf '%s' "$out"
}

add() { query+=("$1=$(urlencode "$2")"); }

while (($#)); do
  case "$1" in
    --url) url="${2:?--url takes a value}"; shift 2 ;;
    --token-file) token_file="${2:?--token-file takes a value}"; shift 2 ;;
    --run) run_key="${2:?--run takes a value}"; add run "$run_key"; shift 2 ;;
    --platform) add platform "${2:?--platform takes a value}"; shift 2 ;;
    --torch-version) add torch_version "${2:?--torch-version takes a value}"; shift 2 ;;
    --device) add device "${2:?--device takes a value}"; shift 2 ;;
    --commit) add commit "${2:?--commit takes a value}"; shift 2 ;;
    --tags) add tags "${2:?--tags takes a value}"; shift 2 ;;
    --created-at) add created_at "${2:?--created-at takes a value}"; shift 2 ;;
    --replace) add replace true; shift ;;
    --retries) retries="${2:?--retries takes a number}"; shift 2 ;;
    --fail-on) fail_on="${2:?--fail-on takes a value}"; shift 2 ;;
    --baseline) baseline="${2:?--baseline takes a value}"; add baseline "$baseline"; shift 2 ;;
    --repo) add repo "${2:?--repo takes a value}"; shift 2 ;;
    --pr) add pr "${2:?--pr takes a value}"; shift 2 ;;
    -h | --help) usage ;;
    -*) echo "upload-results: unknown option $1" >&2; usage ;;
    *) [ -z "$dir" ] || { echo "upload-results: one directory only" >&2; usage; }; dir="$1"; shift ;;
  esac
done

[ -n "$url" ] || { echo "upload-results: --url (or PERFTRIAGE_URL) is required" >&2; exit 2; }
[ -n "$dir" ] && [ -d "$dir" ] || { echo "upload-results: give the results directory" >&2; exit 2; }
[[ "$retries" =~ ^[0-9]+$ ]] || { echo "upload-results: --retries takes a number" >&2; exit 2; }
[ -z "$fail_on" ] || [ "$fail_on" = regression ] || {
  echo "upload-results: --fail-on takes \"regression\"" >&2
  exit 2
}
printf '%s\n' "${query[@]}" | grep -q '^run=' || { echo "upload-results: --run is required" >&2; exit 2; }
printf '%s\n' "${query[@]}" | grep -q '^platform=' || { echo "upload-results: --platform is required" >&2; exit 2; }
if [ -n "$token_file" ]; then
  token="$(tr -d '\r\n' <"$token_file")"
else
  token="${PERFTRIAGE_TOKEN:-}"
fi
[ -n "$token" ] || { echo "upload-results: no token (--token-file or PERFTRIAGE_TOKEN)" >&2; exit 2; }
command -v curl >/dev/null || { echo "upload-results: curl is required" >&2; exit 2; }

endpoint="${url%/}/api/v1/uploads?$(IFS='&'; echo "${query[*]}")"
body="$(mktemp)"
trap 'rm -f "$body"' EXIT

# The header goes through a file descriptor, not argv: the token never shows in the process list.
set +e
# Only the CSVs travel (the server skips other members anyway; logs can be large), with their paths under DIR, which
# say suite / dtype / mode. A tree without one is refused here.
if ! (cd "$dir" && find . -type f -name '*.csv' | grep -q .); then
  echo "upload-results: no .csv file under $dir" >&2
  exit 2
fi
code=$( (cd "$dir" && find . -type f -name '*.csv' -print0 | LC_ALL=C sort -z | tar czf - --null -T -) |
  curl --silent --show-error --output "$body" --write-out '%{http_code}' \
    --retry "$retries" --retry-connrefused --retry-max-time 600 --connect-timeout 10 --max-time 1800 \
    -H @<(printf 'Authorization: Bearer %s\n' "$token") \
    -H 'Content-Type: application/gzip' \
    --data-binary @- "$endpoint")
status=$?
set -e
if [ "$status" -ne 0 ] && [ "${code:-000}" = "000" ]; then
  echo "upload-results: no answer from ${url} (curl exit ${status})" >&2
  exit 3
fi

case "$code" in
  201) echo "upload-results: stored (201)"; cat "$body"; echo ;;
  200) echo "upload-results: every file was stored already (200, duplicate)"; cat "$body"; echo ;;
  400) echo "upload-results: refused (400): bad input, nothing stored" >&2 ;;
  401) echo "upload-results: refused (401): missing, unknown, expired or revoked token" >&2 ;;
  403) echo "upload-results: refused (403): the token lacks the scope (upload; --replace needs admin)" >&2 ;;
  409) echo "upload-results: refused (409): a stored file has different bytes; --replace (admin) supersedes it" >&2 ;;
  413) echo "upload-results: refused (413): the body is over the server's limit ([limits] max_body_mb)" >&2 ;;
  415) echo "upload-results: refused (415): unsupported content type" >&2 ;;
  429 | 503) echo "upload-results: the server stayed busy ($code) through ${retries} retries" >&2 ;;
  *) echo "upload-results: unexpected answer ($code)" >&2 ;;
esac
case "$code" in
  200 | 201) [ -n "$fail_on" ] || exit 0 ;;
  429 | 500 | 502 | 503 | 504) cat "$body" >&2; echo >&2; exit 3 ;;
  *) cat "$body" >&2; echo >&2; exit 1 ;;
esac

# --fail-on regression: the stored run against its baseline. The JSON is counted (a case's "verdict":"regression"),
# the markdown report is what a person reads in the CI log.
compare="${url%/}/api/v1/compare?base=$(urlencode "$baseline")&target=$(urlencode "$run_key")"
fetch() {
  curl --silent --show-error --output "$body" --write-out '%{http_code}' --retry "$retries" --retry-connrefused \
    --connect-timeout 10 --max-time 600 -H @<(printf 'Authorization: Bearer %s\n' "$token") "$compare&format=$1"
}
set +e
code=$(fetch json)
set -e
if [ "$code" = 404 ]; then  # the platform's first run, or a baseline not stored: nothing to judge against
  echo "upload-results: no baseline '$baseline' to compare with:"
  cat "$body"
  echo
  exit 0
fi
if [ "$code" != 200 ]; then
  echo "upload-results: stored, but the comparison with '$baseline' failed ($code):" >&2
  cat "$body" >&2
  echo >&2
  exit 3
fi
regressions=$( (grep -o '"verdict":"regression"' "$body" || true) | wc -l | tr -d ' ')
set +e
code=$(fetch md)
set -e
[ "$code" = 200 ] && cat "$body"
if [ "$regressions" -gt 0 ]; then
  echo "upload-results: $regressions regression(s) against '$baseline' (--fail-on regression): exit 4" >&2
  exit 4
fi
echo "upload-results: no regression against '$baseline'"
exit 0
