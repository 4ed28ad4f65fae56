#include "schema/backlog_store.hpp"

#include "schema/store.hpp"

namespace perftriage::schema {
namespace {

// A run's order key: its created_at, then its id zero-padded to 12 digits, so that text order is run order.
#define PT_RUN_ORD(r) \
  r ".created_at || '#' || substr('000000000000' || CAST(" r ".id AS TEXT), length(CAST(" r ".id AS TEXT)) + 1)"

// $1 run id. The run's platform and order key come from the runs table.
constexpr std::string_view kRunOrd = "SELECT r.platform, " PT_RUN_ORD("r") " FROM runs r WHERE r.id = $1";

// The run's performance files among the given ones ($4, a JSON array of file ids): a case's kind is its file's.
#define PT_RUN_PERF_FILES(D) \
  "file_id IN (SELECT id FROM result_files WHERE id IN (" PT_##D##_ID_LIST("$4") ") AND kind = 'performance')"
// The smaller and the larger of two values (never NULL where they are used).
#define PT_SQLITE_LEAST "min"
#define PT_POSTGRES_LEAST "least"
#define PT_SQLITE_GREATEST "max"
#define PT_POSTGRES_GREATEST "greatest"

// Slow measurements (0 < speedup < 1, not failed): insert the case or widen its first/last seen.
// In DO UPDATE every right-hand side sees the row as it was, so the CASEs compare against old values.
// A new last-seen after the recorded fix invalidates the fix, and so does one in the same run (kUpdateOthers ran
// first, so a run holding the case slow in one file and passing in another is slow: slow wins within a run); when
// newer measurements exist (a late upload of an older run), the fix is recomputed from history (kRecomputeFix).
#define PT_UPSERT_SLOW(D) \
  "INSERT INTO backlog(platform, case_id, first_run, first_ord, last_run, last_ord, fixed_run, fixed_ord," \
    " latest_run, latest_ord, latest_speedup, latest_text, latest_failed, worst_speedup, runs_slow) " \
    "SELECT $2, case_id, $1, $3, $1, $3, NULL, NULL, $1, $3, speedup, speedup_text, 0, speedup, 1 FROM result_rows " \
    "WHERE run_id = $1 AND " PT_RUN_PERF_FILES(D) \
    " AND failed = 0 AND speedup > 0 AND speedup < 1 " \
    "ON CONFLICT(platform, case_id) DO UPDATE SET " \
    " first_run = CASE WHEN excluded.first_ord < backlog.first_ord THEN excluded.first_run ELSE backlog.first_run END," \
    " first_ord = " PT_##D##_LEAST "(backlog.first_ord, excluded.first_ord)," \
    " last_run = CASE WHEN excluded.last_ord > backlog.last_ord THEN excluded.last_run ELSE backlog.last_run END," \
    " last_ord = " PT_##D##_GREATEST "(backlog.last_ord, excluded.last_ord)," \
    " regressed_run = CASE WHEN backlog.fixed_ord IS NOT NULL AND backlog.fixed_ord < excluded.last_ord THEN " \
    "excluded.last_run" \
    "   ELSE backlog.regressed_run END," \
    " fixed_run = CASE WHEN backlog.fixed_ord IS NOT NULL AND backlog.fixed_ord <= excluded.last_ord THEN NULL ELSE " \
    "backlog.fixed_run END," \
    " fixed_ord = CASE WHEN backlog.fixed_ord IS NOT NULL AND backlog.fixed_ord <= excluded.last_ord THEN NULL ELSE " \
    "backlog.fixed_ord END," \
    " latest_run = CASE WHEN excluded.latest_ord >= backlog.latest_ord THEN excluded.latest_run ELSE " \
    "backlog.latest_run END," \
    " latest_speedup = CASE WHEN excluded.latest_ord >= backlog.latest_ord THEN excluded.latest_speedup" \
    "   ELSE backlog.latest_speedup END," \
    " latest_text = CASE WHEN excluded.latest_ord >= backlog.latest_ord THEN excluded.latest_text ELSE " \
    "backlog.latest_text END," \
    " latest_failed = CASE WHEN excluded.latest_ord >= backlog.latest_ord THEN 0 ELSE backlog.latest_failed END," \
    " latest_ord = " PT_##D##_GREATEST "(backlog.latest_ord, excluded.latest_ord)," \
    " worst_speedup = " PT_##D##_LEAST "(backlog.worst_speedup, excluded.worst_speedup)," \
    " runs_slow = backlog.runs_slow + 1"
constexpr DialectSql kUpsertSlow = PT_DIALECT_SQL(PT_UPSERT_SLOW);

// Other measurements of cases already in the backlog: a passing one after the last slow one is a fix
// candidate (the earliest wins); any newer one becomes the latest. It runs before kUpsertSlow, so the backlog holds
// none of this run's cases yet and a case id above the platform's largest in it cannot be there: those rows (a run's
// new cases, a million in a first upload of a big file) are not probed at all.
#define PT_UPDATE_OTHERS(D) \
  "UPDATE backlog SET " \
    " fixed_run = CASE WHEN x.failed = 0 AND $3 > last_ord AND (fixed_ord IS NULL OR $3 < fixed_ord) THEN $1" \
    "   ELSE fixed_run END," \
    " fixed_ord = CASE WHEN x.failed = 0 AND $3 > last_ord AND (fixed_ord IS NULL OR $3 < fixed_ord) THEN $3" \
    "   ELSE fixed_ord END," \
    " regressed_run = CASE WHEN x.failed = 0 AND $3 > first_ord AND $3 < last_ord THEN coalesce(regressed_run, " \
    "last_run)" \
    "   ELSE regressed_run END," \
    " latest_run = CASE WHEN $3 >= latest_ord THEN $1 ELSE latest_run END," \
    " latest_speedup = CASE WHEN $3 >= latest_ord THEN x.speedup ELSE latest_speedup END," \
    " latest_text = CASE WHEN $3 >= latest_ord THEN x.speedup_text ELSE latest_text END," \
    " latest_failed = CASE WHEN $3 >= latest_ord THEN x.failed ELSE latest_failed END," \
    " latest_ord = " PT_##D##_GREATEST "(latest_ord, $3) " \
    "FROM (SELECT case_id, speedup, speedup_text, failed FROM result_rows" \
    "      WHERE run_id = $1 AND " PT_RUN_PERF_FILES(D) \
    "      AND case_id <= (SELECT coalesce(max(case_id), 0) FROM backlog WHERE platform = $2)" \
    "      AND NOT (failed = 0 AND speedup > 0 AND speedup < 1)) AS x " \
    "WHERE backlog.platform = $2 AND backlog.case_id = x.case_id"
constexpr DialectSql kUpdateOthers = PT_DIALECT_SQL(PT_UPDATE_OTHERS);

// Cases of this run that lost their fix while newer measurements exist: find the earliest passing
// measurement after the last slow one in the case's history (rare: only late uploads get here).
#define PT_RECOMPUTE_FIX(D) \
  "UPDATE backlog SET (fixed_run, fixed_ord) = (" \
    "  SELECT r.id, " PT_RUN_ORD("r") " FROM runs r" \
    "  " PT_##D##_ORDERED_JOIN " result_rows x ON x.run_id = r.id AND x.case_id = backlog.case_id" \
    "  WHERE r.platform = backlog.platform AND x.failed = 0 AND NOT (x.speedup > 0 AND x.speedup < 1)" \
    "  AND " PT_RUN_ORD("r") " > backlog.last_ord" \
    "  ORDER BY 2 LIMIT 1) " \
    "WHERE platform = $2 AND fixed_ord IS NULL AND latest_ord > last_ord AND latest_failed = 0" \
    " AND case_id IN (SELECT case_id FROM result_rows WHERE run_id = $1 AND " PT_RUN_PERF_FILES(D) ")"
constexpr DialectSql kRecomputeFix = PT_DIALECT_SQL(PT_RECOMPUTE_FIX);

// Cheap guard for kRecomputeFix: nothing to recompute unless some case lost its fix (late uploads only).
constexpr std::string_view kAnyLostFix =
    "SELECT EXISTS (SELECT 1 FROM backlog WHERE platform = $1 AND fixed_ord IS NULL AND latest_ord > last_ord"
    " AND latest_failed = 0)";

// The status in one place: selected, then ordered by (an output name cannot stand inside an ORDER BY expression
// on PostgreSQL).
#define PT_BACKLOG_STATUS \
  "CASE WHEN b.latest_failed = 1 THEN 'failing' WHEN b.latest_ord = b.last_ord THEN 'open' ELSE 'fixed' END"
constexpr std::string_view kReadBacklog =
    "SELECT c.suite, c.dtype, c.mode, c.config, c.model, " PT_BACKLOG_STATUS
    ","
    " f.key, l.key, x.key, CASE WHEN b.latest_failed = 0 AND b.latest_ord <> b.last_ord THEN fx.key END,"
    " b.latest_text, b.worst_speedup, b.runs_slow "
    "FROM backlog b JOIN cases c ON c.id = b.case_id JOIN runs f ON f.id = b.first_run"
    " JOIN runs l ON l.id = b.last_run JOIN runs x ON x.id = b.latest_run LEFT JOIN runs fx ON fx.id = b.fixed_run "
    "WHERE b.platform = $1 "
    "ORDER BY CASE " PT_BACKLOG_STATUS
    " WHEN 'open' THEN 0 WHEN 'failing' THEN 1 ELSE 2 END,"
    " CASE WHEN " PT_BACKLOG_STATUS " = 'open' THEN b.worst_speedup END, c.suite, c.dtype, c.mode, c.config, c.model";
#undef PT_BACKLOG_STATUS

// $1 run id, $2 platform: the backlog cases the run measured.
constexpr std::string_view kCasesOfRun =
    "SELECT DISTINCT b.case_id FROM result_rows x JOIN backlog b ON b.platform = $2 AND b.case_id = x.case_id"
    " WHERE x.run_id = $1";
constexpr std::string_view kDeleteCase = "DELETE FROM backlog WHERE platform = $1 AND case_id = $2";
// One case rebuilt from its measurements on the platform ($1 platform, $2 case id), with the rules of kUpsertSlow /
// kUpdateOthers: slow = not failed and 0 < speedup < 1; a measurement is any row whose slow test is not NULL (an
// invalid row, speedup NULL and not failed, is none); the fix is the earliest passing one after the last slow one;
// the latest is the newest of any kind. No slow measurement: no row. g and rg find the last fix that a later slow
// measurement ended: the first slow one after the last passing one between the first and the last slow one.
#define PT_RECOMPUTE_CASE(D) \
  "WITH m AS (" \
    "  SELECT r.id AS run, " PT_RUN_ORD("r") " AS ord, x.speedup, x.speedup_text, x.failed," \
    "   (x.failed = 0 AND x.speedup > 0 AND x.speedup < 1) AS slow" \
    "  FROM runs r " PT_##D##_ORDERED_JOIN " result_rows x ON x.run_id = r.id AND x.case_id = $2" \
    "  WHERE r.platform = $1 AND (x.failed = 0 AND x.speedup > 0 AND x.speedup < 1) IS NOT NULL)," \
    " s AS (SELECT min(ord) AS first_ord, max(ord) AS last_ord, min(speedup) AS worst, count(*) AS n" \
    "       FROM m WHERE slow)," \
    " l AS (SELECT run, ord, speedup, speedup_text, failed FROM m ORDER BY ord DESC LIMIT 1)," \
    " f AS (SELECT m.run, m.ord FROM m, s WHERE NOT m.slow AND m.failed = 0 AND m.ord > s.last_ord" \
    "       ORDER BY m.ord LIMIT 1)," \
    " g AS (SELECT m.ord FROM m, s WHERE NOT m.slow AND m.failed = 0 AND m.ord > s.first_ord AND m.ord < s.last_ord" \
    "       ORDER BY m.ord DESC LIMIT 1)," \
    " rg AS (SELECT m.run FROM m, g WHERE m.slow AND m.ord > g.ord ORDER BY m.ord LIMIT 1) " \
    "INSERT INTO backlog(platform, case_id, first_run, first_ord, last_run, last_ord, fixed_run, fixed_ord," \
    " latest_run, latest_ord, latest_speedup, latest_text, latest_failed, worst_speedup, runs_slow, regressed_run) " \
    "SELECT $1, $2, (SELECT run FROM m WHERE ord = s.first_ord LIMIT 1), s.first_ord," \
    " (SELECT run FROM m WHERE ord = s.last_ord LIMIT 1), s.last_ord, (SELECT run FROM f), (SELECT ord FROM f)," \
    " l.run, l.ord, l.speedup, l.speedup_text, l.failed, s.worst, s.n, (SELECT run FROM rg) FROM s, l WHERE s.n > 0"
constexpr DialectSql kRecomputeCase = PT_DIALECT_SQL(PT_RECOMPUTE_CASE);
#undef PT_RUN_PERF_FILES
#undef PT_RUN_ORD

constexpr std::string_view kPendingRebuild = "SELECT EXISTS (SELECT 1 FROM maintenance WHERE task = 'rebuild_backlog')";
constexpr std::string_view kFilesOldestRunFirst =
    "SELECT f.run_id, f.id FROM result_files f JOIN runs r ON r.id = f.run_id WHERE f.superseded_by IS NULL"
    " ORDER BY r.created_at, r.id, f.id";
constexpr std::string_view kRebuildDone = "DELETE FROM maintenance WHERE task = 'rebuild_backlog'";

}  // namespace

Result<void> update_backlog(Database& db, std::int64_t run_id, const std::vector<std::int64_t>& file_ids) {
  if (file_ids.empty()) return {};
  const std::string ids = id_list(file_ids);
  PT_ASSIGN(auto run, Statement::prepare(db, kRunOrd));
  run.bind(1, run_id);
  PT_ASSIGN(const bool found, run.step());
  if (!found) return make_error(ErrorKind::not_found, "no_run", "no run " + std::to_string(run_id));
  const std::string platform = run.text(0);
  const std::string ord = run.text(1);
  auto lost_fix = [&]() -> Result<bool> {
    PT_ASSIGN(auto st, Statement::prepare(db, kAnyLostFix));
    st.bind(1, platform);
    PT_ASSIGN(const std::int64_t any, scalar(st));
    return any != 0;
  };
  for (const DialectSql* sql : {&kUpdateOthers, &kUpsertSlow, &kRecomputeFix}) {
    const bool recompute = sql == &kRecomputeFix;
    if (recompute) {
      PT_ASSIGN(const bool needed, lost_fix());
      if (!needed) break;
    }
    PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, *sql)));
    st.bind(1, run_id).bind(2, platform).bind(4, ids);
    if (!recompute) st.bind(3, ord);
    PT_TRY(st.run());
  }
  return {};
}

Result<void> rebuild_backlog_if_pending(Database& db) {
  PT_ASSIGN(auto pending, Statement::prepare(db, kPendingRebuild));
  PT_ASSIGN(const std::int64_t is_pending, scalar(pending));
  if (is_pending == 0) return {};
  PT_ASSIGN(auto tx, Transaction::begin(db));
  PT_TRY(db.exec("DELETE FROM backlog"));
  PT_ASSIGN(auto files, Statement::prepare(db, kFilesOldestRunFirst));
  std::vector<std::pair<std::int64_t, std::vector<std::int64_t>>> runs;  // oldest run first, with its files
  for (;;) {
    PT_ASSIGN(const bool row, files.step());
    if (!row) break;
    if (runs.empty() || runs.back().first != files.int64(0)) runs.push_back({files.int64(0), {}});
    runs.back().second.push_back(files.int64(1));
  }
  for (const auto& [run_id, ids] : runs) PT_TRY(update_backlog(db, run_id, ids));
  PT_TRY(db.exec(kRebuildDone));
  return tx.commit();
}

Result<std::int64_t> count_platform_runs(Database& db, const std::string& platform) {
  PT_ASSIGN(const std::string stored, stored_platform(db, platform));
  PT_ASSIGN(auto st, Statement::prepare(db, "SELECT count(*) FROM runs WHERE platform = $1"));
  st.bind(1, stored);
  return scalar(st);
}

Result<std::vector<BacklogCase>> backlog_cases_of_run(Database& db, std::int64_t run_id, const std::string& platform) {
  PT_ASSIGN(auto st, Statement::prepare(db, kCasesOfRun));
  st.bind(1, run_id).bind(2, platform);
  return collect<BacklogCase>(st, [](const Statement& s) { return BacklogCase{s.int64(0)}; });
}

Result<std::int64_t> recompute_backlog_cases(Database& db, const std::string& platform,
                                             const std::vector<BacklogCase>& cases) {
  PT_ASSIGN(auto drop, Statement::prepare(db, kDeleteCase));
  PT_ASSIGN(auto rebuild, Statement::prepare(db, dialect_sql(db, kRecomputeCase)));
  std::int64_t kept = 0;
  for (const auto& c : cases) {
    for (auto* st : {&drop, &rebuild}) {
      st->reset();
      st->bind(1, platform).bind(2, c.case_id);
      PT_TRY(st->run());
    }
    kept += db.changes();
  }
  return kept;
}

Result<std::vector<BacklogState>> read_backlog(Database& db, const std::string& platform) {
  PT_ASSIGN(const std::string stored, stored_platform(db, platform));
  PT_ASSIGN(auto st, Statement::prepare(db, kReadBacklog));
  st.bind(1, stored);
  return collect<BacklogState>(st, [](const Statement& s) {
    BacklogState b;
    b.suite = s.text(0);
    b.dtype = s.text(1);
    b.mode = s.text(2);
    b.config = s.text(3);
    b.model = s.text(4);
    b.status = s.text(5);
    b.first_seen = s.text(6);
    b.last_seen = s.text(7);
    b.latest_run = s.text(8);
    if (!s.is_null(9)) b.fixed_in = s.text(9);
    b.latest_speedup = s.text(10);
    b.worst_speedup = s.opt_real(11);
    b.runs_slow = s.int64(12);
    return b;
  });
}

}  // namespace perftriage::schema
