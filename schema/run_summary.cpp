#include "schema/store.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include "ingest/records.hpp"

// A run's derived state, recounted after every change to its rows: the flags that depend on other rows (unreliable,
// expected accuracy, deviates) and the per-group summaries (run_groups) the dashboard and compare read instead of the
// rows themselves.
namespace perftriage::schema {
namespace {

// The refresh statements only write rows whose value changes: an UPDATE rewrites every row it
// matches, and rewriting a whole run on each upload cost more than inserting it. Each walks the run's range of
// result_rows (its primary-key prefix).
// The performance cases whose accuracy row failed in the run: collected once (non-correlated IN).
constexpr std::string_view kFailingAccuracyCases =
    "case_id IN (SELECT p.id FROM result_rows a JOIN cases ca ON ca.id = a.case_id JOIN cases p"
    " ON p.suite = ca.suite AND p.model = ca.model AND p.dtype = ca.dtype AND p.mode = ca.mode"
    " AND p.kind = 'performance' AND p.config = ca.config"
    " WHERE a.run_id = $1 AND a.accuracy_failed = 1 AND ca.kind = 'accuracy')";
// The most specific expectation wins: one naming the row's dtype over one for every dtype.
constexpr std::string_view kExpectedAccuracy =
    "(SELECT e.accuracy FROM expectations e WHERE e.run_id = result_rows.run_id AND e.suite = c.suite"
    " AND e.mode = c.mode AND e.model = c.model AND e.accuracy <> ''"
    " AND (e.dtype = c.dtype OR e.dtype = '') ORDER BY e.dtype = '' LIMIT 1)";
// $2.. are the passing statuses (ingest::kPassingAccuracy), so the rule lives in one place. A performance row has no
// expected accuracy, so it never deviates.
constexpr std::string_view kDeviates =
    "(CASE WHEN expected_accuracy IS NULL THEN 0 WHEN (expected_accuracy IN ($2, $3, $4)) = (accuracy_failed = 1) THEN "
    "1 "
    "ELSE 0 END)";
// The run's summaries (migration 010 run_groups), recounted from its rows after every change to them.
constexpr std::string_view kDeleteRunGroups = "DELETE FROM run_groups WHERE run_id = $1";
// Read once, in primary-key order, and counted per file here: a file's rows share its axes, so no row is joined to its
// case and nothing is sorted (a GROUP BY in SQL sorted a 1M-row run for 0.6 s).
constexpr std::string_view kRunRowFlags =
    "SELECT file_id, failed, speedup, accuracy_failed, unreliable, deviates, invalid FROM result_rows WHERE run_id = "
    "$1";
constexpr std::string_view kRunFileAxes = "SELECT id, kind, suite, dtype, mode FROM result_files WHERE run_id = $1";
constexpr std::string_view kInsertRunGroup =
    "INSERT INTO run_groups VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";
// Expectations are only ever added or replaced (files are superseded, never deleted), so a run without
// any has nothing to refresh.
// Read from the run's summaries, counted just before: no second scan of the run's rows.
constexpr std::string_view kRunFlagsToRefresh =
    "SELECT coalesce(sum(accuracy_failed), 0), coalesce(sum(unreliable), 0),"
    " EXISTS (SELECT 1 FROM expectations WHERE run_id = $1) FROM run_groups WHERE run_id = $1";
}  // namespace

Result<void> refresh_run_flags(Database& db, std::int64_t run_id) {
  const std::string statements[] = {
      "UPDATE result_rows SET unreliable = 1 WHERE run_id = $1 AND unreliable = 0 AND " +
          std::string(kFailingAccuracyCases),
      "UPDATE result_rows SET unreliable = 0 WHERE run_id = $1 AND unreliable = 1 AND NOT " +
          std::string(kFailingAccuracyCases),
      "UPDATE result_rows SET expected_accuracy = " + std::string(kExpectedAccuracy) +
          " FROM cases c WHERE c.id = result_rows.case_id AND result_rows.run_id = $1 AND c.kind = 'accuracy'"
          " AND result_rows.expected_accuracy IS DISTINCT FROM " +
          std::string(kExpectedAccuracy),
      "UPDATE result_rows SET deviates = " + std::string(kDeviates) +
          " WHERE run_id = $1 AND deviates IS DISTINCT FROM " + std::string(kDeviates),
  };
  static_assert(ingest::kPassingAccuracy.size() == 3, "kDeviates binds exactly three passing statuses");
  // The run's summaries (one read of its rows) say which statements have anything to do: marking needs a failing
  // accuracy row, unmarking a marked row; without expectations the last two have nothing to do. When none has, the
  // summaries just counted are the answer; otherwise they are counted again after the flags moved.
  PT_TRY(refresh_run_summary(db, run_id));
  PT_ASSIGN(auto check, Statement::prepare(db, kRunFlagsToRefresh));
  check.bind(1, run_id);
  PT_TRY(check.step());
  const bool needed[] = {check.int64(0) != 0, check.int64(1) != 0, check.int64(2) != 0, check.int64(2) != 0};
  if (std::none_of(std::begin(needed), std::end(needed), [](bool b) { return b; })) return {};
  for (std::size_t i = 0; i < std::size(statements); ++i) {
    if (!needed[i]) continue;
    const auto& sql = statements[i];
    PT_ASSIGN(auto st, Statement::prepare(db, sql));
    st.bind(1, run_id);
    if (sql.find("$2") != std::string::npos) {
      for (int k = 0; k < 3; ++k) st.bind(k + 2, ingest::kPassingAccuracy[static_cast<std::size_t>(k)]);
    }
    PT_TRY(st.run());
  }
  return refresh_run_summary(db, run_id);
}

namespace {

// One run_groups row being counted: the rules of migration 010's INSERT ... SELECT, row by row.
struct GroupCounts {
  std::int64_t rows = 0, measured = 0, slow_measured = 0, slow = 0, failed = 0, accuracy_failed = 0, unreliable = 0,
               deviates = 0, invalid = 0;
  double log_sum = 0, log_sum_clipped = 0;

  void add(const Statement& st, bool performance) {
    ++rows;
    const bool is_failed = st.int64(1) != 0;
    const auto speedup = st.opt_real(2);
    failed += is_failed;
    accuracy_failed += st.int64(3) != 0;
    unreliable += st.int64(4) != 0;
    deviates += st.int64(5) != 0;
    invalid += st.int64(6) != 0;
    if (!performance || !speedup || *speedup <= 0) return;
    slow += *speedup < 1;
    if (is_failed) return;
    ++measured;
    slow_measured += *speedup < 1;
    log_sum += std::log(*speedup);
    if (*speedup > 1) log_sum_clipped += std::log(*speedup);
  }
};

}  // namespace

Result<void> refresh_run_summary(Database& db, std::int64_t run_id) {
  struct Group {
    std::string kind, suite, dtype, mode;
    auto operator<=>(const Group&) const = default;
  };
  std::unordered_map<std::int64_t, Group> file_group;
  PT_ASSIGN(auto files, Statement::prepare(db, kRunFileAxes));
  files.bind(1, run_id);
  for (;;) {
    PT_ASSIGN(const bool row, files.step());
    if (!row) break;
    file_group.emplace(files.int64(0), Group{files.text(1), files.text(2), files.text(3), files.text(4)});
  }
  std::map<Group, GroupCounts> groups;
  std::int64_t last_file = -1;
  GroupCounts* counts = nullptr;
  bool performance = false;
  PT_ASSIGN(auto rows, Statement::prepare(db, kRunRowFlags));
  rows.bind(1, run_id);
  for (;;) {
    PT_ASSIGN(const bool row, rows.step());
    if (!row) break;
    if (rows.int64(0) != last_file || counts == nullptr) {
      last_file = rows.int64(0);
      const auto it = file_group.find(last_file);
      if (it == file_group.end()) return make_error(ErrorKind::internal, "no_file", "a row of no file of the run");
      counts = &groups[it->second];
      performance = it->second.kind == "performance";
    }
    counts->add(rows, performance);
  }
  PT_ASSIGN(auto clear, Statement::prepare(db, kDeleteRunGroups));
  clear.bind(1, run_id);
  PT_TRY(clear.run());
  PT_ASSIGN(auto insert, Statement::prepare(db, kInsertRunGroup));
  for (const auto& [g, c] : groups) {
    insert.reset();
    insert.bind(1, run_id).bind(2, g.kind).bind(3, g.suite).bind(4, g.dtype).bind(5, g.mode).bind(6, c.rows);
    insert.bind(7, c.measured).bind(8, c.slow_measured).bind(9, c.slow).bind(10, c.failed);
    insert.bind(11, c.accuracy_failed).bind(12, c.unreliable).bind(13, c.deviates).bind(14, c.invalid);
    insert.bind(15, c.log_sum).bind(16, c.log_sum_clipped);
    PT_TRY(insert.run());
  }
  return {};
}
}  // namespace perftriage::schema
