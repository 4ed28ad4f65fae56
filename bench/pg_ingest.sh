#!/usr/bin/env bash
# What an upload costs on each backend: `perftriage ingest` of a generated nightly into a fresh SQLite file and into a
# fresh PostgreSQL database, next to each database's own bulk load of the same CSV bytes (`psql \copy`, `sqlite3
# .import`), in one run (docs/scaling.md says PostgreSQL ingest is row by row, this says how much slower).
#   bench/pg_ingest.sh            (PG_URL unset: a throwaway PostgreSQL from tools/pg_test_server.sh, removed at exit)
#   PG_URL='postgresql://user@host/db' bench/pg_ingest.sh
# What it does, for each size (the nightly of MODELS models a file, then that of BIG_MODELS):
#   1. `gen_nightly --models N --seed 1 --stable` writes the tarball (60 CSV files: 3 suites x 5 dtypes x 2 modes x
#      2 kinds, N rows each, so 60 x N rows), extracted to a directory; INPUT=tar ingests the tarball instead;
#   2. REPEAT times, each time into new databases (so no time grows with the history of an earlier repetition):
#      - perftriage -> SQLite: `perftriage ingest --db NEW.sqlite --platform BENCH --run rI TREE`;
#      - perftriage -> PG: the same with --db on a new database (`CREATE DATABASE`, LC_COLLATE C.UTF-8 or C);
#      - psql \copy: one `psql --single-transaction` running `\copy t FROM 'f.csv' CSV HEADER` for every file into
#        plain tables of `text` columns (one per CSV header: performance and accuracy), in a new database;
#      - sqlite3 .import: one `sqlite3` running `.import --csv --skip 1 f.csv t` for every file in one transaction
#        (WAL, synchronous=NORMAL, as bench/ingest_bench.cpp) into the same kind of tables, in a new file;
#      the schema (perftriage's migration, the CREATE TABLEs) is made beforehand and not timed: `perftriage runs`
#      opens the new database, which migrates it and stores nothing. Times are wall clock of the whole command
#      (process start, connection, parse, insert, commit), the four interleaved within a repetition;
#   3. the median of each, in one markdown table; the row counts of all four are checked against each other.
# Env: PG_URL (a libpq URL of a server where the user may CREATE DATABASE; the databases it makes,
#      perftriage_{ingest,copy}_PID_*, are dropped again), MODELS (models a file of the first size, default 170: 10,200
#      rows), BIG_MODELS (the second size, default 2000: 120,000 rows; 0 skips it), REPEAT (default 3, the median is
#      reported), INPUT (tree, the default, or tar), BUILD (default build/release), PERFTRIAGE / GEN_NIGHTLY (binaries
#      to use instead). Nothing is built here: build the `perftriage` and `gen_nightly` targets first.
# Durability: the throwaway server runs with fsync=off and synchronous_commit=off; SQLite in WAL mode with
# synchronous=NORMAL does not sync at commit either. The header line says what the server used.
# Output: a header line (machine, versions, server settings), then one markdown table row per size: rows, files,
# CSV bytes | perftriage->SQLite ms | perftriage->PG ms | psql \copy ms | sqlite3 .import ms | PG/SQLite | PG/\copy.
set -euo pipefail
cd "$(dirname "$0")/.."

case ${1:-} in
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
  "") ;;
  *) echo "usage: bench/pg_ingest.sh (settings by env; --help)" >&2; exit 2 ;;
esac

BUILD=${BUILD:-build/release}
BIN=${PERFTRIAGE:-$BUILD/perftriage}
GEN_NIGHTLY=${GEN_NIGHTLY:-$BUILD/bench/gen_nightly}
MODELS=${MODELS:-170}
BIG_MODELS=${BIG_MODELS:-2000}
REPEAT=${REPEAT:-3}
INPUT=${INPUT:-tree}
PG_URL=${PG_URL:-}

die() {
  echo "$(basename "$0"): $*" >&2
  exit 1
}
for v in MODELS BIG_MODELS REPEAT; do
  [[ ${!v} =~ ^[0-9]+$ ]] || die "$v is a number, not '${!v}'"
done
((MODELS > 0)) || die "MODELS must be at least 1"
((REPEAT > 0)) || die "REPEAT must be at least 1"
case $INPUT in tree | tar) ;; *) die "INPUT is tree or tar, not '$INPUT'" ;; esac
[ -x "$BIN" ] || die "no $BIN (build the perftriage target first, or set PERFTRIAGE)"
[ -x "$GEN_NIGHTLY" ] || die "no $GEN_NIGHTLY (build the gen_nightly target first, or set GEN_NIGHTLY)"
for t in psql sqlite3 python3 tar; do command -v "$t" >/dev/null 2>&1 || die "$t is needed"; done

TMP=$(mktemp -d /tmp/perftriage-pg-ingest.XXXXXX)
chmod 755 "$TMP"  # the files are read by psql and the binaries as this user; the server never reads them
PG_DIR=""          # the throwaway server's directory, "" for a server given by PG_URL
CREATED_DBS=()     # databases made on PG_URL's server and not yet dropped
cleanup() {
  local d
  if [ -n "$PG_DIR" ]; then
    bash tools/pg_test_server.sh stop "$PG_DIR" >/dev/null 2>&1 || true  # the databases go with it
  else
    for d in "${CREATED_DBS[@]}"; do
      [ -z "$d" ] || psql "$PG_URL" -XAtqc "DROP DATABASE IF EXISTS \"$d\" WITH (FORCE)" >/dev/null 2>&1 ||
        psql "$PG_URL" -XAtqc "DROP DATABASE IF EXISTS \"$d\"" >/dev/null 2>&1 || true
    done
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# PostgreSQL: PG_URL or a throwaway server.
if [ -z "$PG_URL" ]; then
  PG_DIR=$TMP/pg
  bash tools/pg_test_server.sh start "$PG_DIR" >"$TMP/pg-start.log" 2>&1 ||
    { cat "$TMP/pg-start.log" >&2; die "tools/pg_test_server.sh start $PG_DIR failed"; }
  PG_URL=$(cat "$PG_DIR/url")
fi
case $PG_URL in postgres://* | postgresql://*) ;; *) die "PG_URL is a postgresql:// URL, not '$PG_URL'" ;; esac
pg_shown() { sed -E 's#(://[^:/@]*):[^@/]*@#\1:***@#' <<<"$1"; }  # without its password
pg_sql() { psql "$1" -XAtqc "$2"; }
pg_sql "$PG_URL" "SELECT 1" >/dev/null || die "cannot connect to $(pg_shown "$PG_URL")"

# pg_db_url NAME: PG_URL with its database (the URL's path) replaced by NAME, host, user and parameters kept.
pg_db_url() {
  python3 - "$PG_URL" "$1" <<'EOF'
import sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
print(urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + urllib.parse.quote(sys.argv[2]), u.query, u.fragment)))
EOF
}
# pg_new_db NAME: creates database NAME on PG_URL's server (C collation, as docs/scaling.md asks); sets NEW_URL.
pg_new_db() {
  local name=$1 loc err
  CREATED_DBS+=("$name")
  for loc in C.UTF-8 C; do
    if err=$(pg_sql "$PG_URL" "CREATE DATABASE \"$name\" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE '$loc'
        LC_CTYPE '$loc'" 2>&1); then
      NEW_URL=$(pg_db_url "$name")
      return 0
    fi
  done
  die "CREATE DATABASE $name failed on $(pg_shown "$PG_URL"): $err"
}
pg_drop_db() {
  pg_sql "$PG_URL" "DROP DATABASE IF EXISTS \"$1\"" >/dev/null || echo "# could not drop database $1" >&2
  local i
  for i in "${!CREATED_DBS[@]}"; do [ "${CREATED_DBS[i]}" != "$1" ] || CREATED_DBS[i]=""; done
}

# Timing: wall clock of a command, its output to a log; TIME_MS is set (milliseconds, one decimal).
timed() {  # timed LOG CMD...: runs CMD, sets TIME_MS; dies with the log's tail when it fails
  local log=$1 t0 t1
  shift
  t0=${EPOCHREALTIME//[!0-9]/}  # microseconds (bash 5: no fork)
  if ! "$@" >"$log" 2>&1; then
    tail -20 "$log" >&2
    die "failed: $*"
  fi
  t1=${EPOCHREALTIME//[!0-9]/}
  TIME_MS=$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.1f", d / 1000 }')
}
median() { python3 -c 'import statistics, sys; print(round(statistics.median(map(float, sys.argv[1:])), 1))' "$@"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

# The input of one size: $TMP/sN/nightly.tar.gz and its CSVs under $TMP/sN/tree; sets TREE, TARBALL, CSVS (the CSV
# files, sorted), N_FILES, N_BYTES (the CSVs' bytes), N_LINES (their data rows: lines less one header each).
prepare_input() {
  local models=$1 dir=$TMP/s$1 f
  mkdir -p "$dir/tree"
  TARBALL=$dir/nightly.tar.gz
  "$GEN_NIGHTLY" --out "$TARBALL" --models "$models" --seed 1 --stable >"$dir/gen.log" 2>&1 ||
    { cat "$dir/gen.log" >&2; die "gen_nightly --models $models failed"; }
  tar -xzf "$TARBALL" -C "$dir/tree"
  TREE=$dir/tree
  mapfile -t CSVS < <(find "$TREE" -type f -name '*.csv' | LC_ALL=C sort)
  N_FILES=${#CSVS[@]}
  ((N_FILES > 0)) || die "the nightly of $models models holds no CSV file"
  N_BYTES=0
  N_LINES=0
  for f in "${CSVS[@]}"; do
    N_BYTES=$((N_BYTES + $(stat -c %s "$f")))
    N_LINES=$((N_LINES + $(wc -l <"$f") - 1))
  done
}

# The bulk loads' tables and scripts for the current CSVS: one table per distinct header (t1, t2, ...: all columns
# text, named as in the header), $TMP/tables.sql (CREATE TABLEs, both dialects), $TMP/copy.psql (the \copy lines),
# $TMP/import.sqlite3 (the .import lines in one transaction).
prepare_bulk_scripts() {
  python3 - "$TMP" "${CSVS[@]}" <<'EOF'
import sys
tmp, files = sys.argv[1], sys.argv[2:]
tables = {}  # header -> table name
copy, imp = [], ["PRAGMA journal_mode=WAL;", "PRAGMA synchronous=NORMAL;", "BEGIN;"]
q = lambda s: "'" + s.replace("'", "''") + "'"
for f in files:
    with open(f, newline="") as fh:
        header = fh.readline().rstrip("\r\n")
    t = tables.setdefault(header, "t%d" % (len(tables) + 1))
    copy.append("\\copy %s FROM %s CSV HEADER" % (t, q(f)))
    imp.append('.import --csv --skip 1 "%s" %s' % (f.replace("\\", "\\\\").replace('"', '\\"'), t))
imp.append("COMMIT;")
with open(tmp + "/tables.sql", "w") as out:
    for header, t in tables.items():
        cols = ", ".join('"%s" text' % c.replace('"', '""') for c in header.split(","))
        out.write("CREATE TABLE %s (%s);\n" % (t, cols))
with open(tmp + "/copy.psql", "w") as out:
    out.write("\n".join(copy) + "\n")
with open(tmp + "/import.sqlite3", "w") as out:
    out.write("\n".join(imp) + "\n")
EOF
}

# rows_of LOG: the rows of perftriage ingest's totals line ("total: 1 run, 60 files, ...; 10200 rows, ...").
rows_of() { sed -nE 's/^total: .*; ([0-9]+) rows,.*/\1/p' "$1" | tail -1; }

ROWS_TABLE=()
measure_size() {
  local models=$1 i t sqlite_ms=() pg_ms=() copy_ms=() import_ms=() db name url rows copied imported
  prepare_input "$models"
  prepare_bulk_scripts
  local input=$TREE
  [ "$INPUT" = tree ] || input=$TARBALL
  echo "# size $models models: $N_FILES files, $N_LINES rows, $N_BYTES bytes of CSV ($INPUT)" >&2
  for i in $(seq 1 "$REPEAT"); do
    # 1. perftriage -> SQLite, into a new file (schema made first, untimed: an empty file is an empty database)
    db=$TMP/ingest-$models-$i.sqlite
    : >"$db"
    "$BIN" runs --db "$db" >/dev/null || die "perftriage runs --db $db (the migration) failed"
    timed "$TMP/ingest-sqlite.log" "$BIN" ingest --db "$db" --platform BENCH --run "r$i" "$input"
    sqlite_ms+=("$TIME_MS")
    rows=$(rows_of "$TMP/ingest-sqlite.log")
    [ "$rows" = "$N_LINES" ] || die "perftriage -> SQLite stored ${rows:-?} rows, the CSVs hold $N_LINES"
    rm -f "$db" "$db-wal" "$db-shm"

    # 2. perftriage -> PostgreSQL, into a new database (migrated first, untimed)
    name=perftriage_ingest_$$_${models}_$i
    pg_new_db "$name"
    url=$NEW_URL
    "$BIN" runs --db "$url" >"$TMP/migrate.log" 2>&1 ||
      { cat "$TMP/migrate.log" >&2; die "perftriage runs --db $(pg_shown "$url") (the migration) failed"; }
    timed "$TMP/ingest-pg.log" "$BIN" ingest --db "$url" --platform BENCH --run "r$i" "$input"
    pg_ms+=("$TIME_MS")
    rows=$(rows_of "$TMP/ingest-pg.log")
    [ "$rows" = "$N_LINES" ] || die "perftriage -> PostgreSQL stored ${rows:-?} rows, the CSVs hold $N_LINES"
    rows=$(pg_sql "$url" "SELECT count(*) FROM result_rows" 2>/dev/null || echo "")
    [ -z "$rows" ] || [ "$rows" = "$N_LINES" ] ||
      die "PostgreSQL's result_rows holds $rows rows after the ingest, the CSVs hold $N_LINES"
    pg_drop_db "$name"

    # 3. psql \copy of the same files, one session, one transaction, into text tables of a new database
    name=perftriage_copy_$$_${models}_$i
    pg_new_db "$name"
    url=$NEW_URL
    psql "$url" -Xq -v ON_ERROR_STOP=1 -f "$TMP/tables.sql" >/dev/null || die "CREATE TABLE on PostgreSQL failed"
    timed "$TMP/copy.log" psql "$url" -X -v ON_ERROR_STOP=1 --single-transaction -f "$TMP/copy.psql"
    copy_ms+=("$TIME_MS")
    copied=$(awk '$1 == "COPY" { n += $2 } END { print n + 0 }' "$TMP/copy.log")
    [ "$copied" = "$N_LINES" ] || die "psql \\copy loaded $copied rows, the CSVs hold $N_LINES"
    pg_drop_db "$name"

    # 4. sqlite3 .import of the same files, one transaction, into text tables of a new file
    db=$TMP/import-$models-$i.sqlite
    rm -f "$db" "$db-wal" "$db-shm"
    sqlite3 "$db" <"$TMP/tables.sql" || die "CREATE TABLE on SQLite failed"
    timed "$TMP/import.log" sqlite3 -bail "$db" ".read $TMP/import.sqlite3"
    import_ms+=("$TIME_MS")
    imported=0
    for t in $(sqlite3 "$db" "SELECT name FROM sqlite_master WHERE type = 'table'"); do
      imported=$((imported + $(sqlite3 "$db" "SELECT count(*) FROM $t")))
    done
    [ "$imported" = "$N_LINES" ] || die "sqlite3 .import loaded $imported rows, the CSVs hold $N_LINES"
    rm -f "$db" "$db-wal" "$db-shm"

    echo "#   $i/$REPEAT: SQLite ${sqlite_ms[-1]} ms, PG ${pg_ms[-1]} ms, \\copy ${copy_ms[-1]} ms," \
      ".import ${import_ms[-1]} ms" >&2
  done
  local s p c m
  s=$(median "${sqlite_ms[@]}")
  p=$(median "${pg_ms[@]}")
  c=$(median "${copy_ms[@]}")
  m=$(median "${import_ms[@]}")
  ROWS_TABLE+=("| $N_LINES rows, $N_FILES files, $(awk -v b="$N_BYTES" 'BEGIN { printf "%.2f MB", b / 1e6 }') \
| $s | $p | $c | $m | $(ratio "$p" "$s") | $(ratio "$p" "$c") |")
  rm -rf "${TMP:?}/s$models"
}

SIZES=("$MODELS")
((BIG_MODELS == 0)) || SIZES+=("$BIG_MODELS")
for n in "${SIZES[@]}"; do measure_size "$n"; done

settings=$(pg_sql "$PG_URL" "SELECT 'PostgreSQL ' || current_setting('server_version') || ' (fsync ' ||
  current_setting('fsync') || ', synchronous_commit ' || current_setting('synchronous_commit') || ')'")
echo
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $("$BIN" --version | head -1), $(psql --version), server" \
  "$settings$([ -n "$PG_DIR" ] && echo ", throwaway (tools/pg_test_server.sh)"), sqlite3 $(sqlite3 --version |
    cut -d' ' -f1); median of $REPEAT, wall ms of the whole command, input: $INPUT"
echo
echo "| size | perftriage→SQLite ms | perftriage→PG ms | psql \\copy ms | sqlite3 .import ms | PG/SQLite | PG/\\copy |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${ROWS_TABLE[@]}"
