#include "schema/dashboard_queries.hpp"

#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "schema/run_selection.hpp"
#include "schema/store.hpp"

namespace perftriage::schema::dashboard {
namespace {

constexpr std::string_view kRunColumns =
    "SELECT id, key, platform, device, torch_version, commit_sha, created_at, tags FROM runs ";
// A condition of run_selection.hpp may stand between the WHERE and the order.
constexpr std::string_view kRunsOfPlatform = "WHERE platform = $1 ";
constexpr std::string_view kAllRuns = "WHERE $1 = '' ";
constexpr std::string_view kNewestFirst = "ORDER BY created_at DESC, id DESC LIMIT $2";
constexpr std::string_view kRunByKey = "WHERE key = $1";
constexpr std::string_view kPlatforms = "SELECT DISTINCT platform FROM runs ORDER BY platform";
constexpr std::string_view kTags = "SELECT DISTINCT tags FROM runs";
constexpr std::string_view kRunStamp =
    "SELECT count(*), coalesce(max(id), 0), (SELECT coalesce(max(id), 0) FROM audit_log) FROM result_files"
    " WHERE run_id = $1 AND superseded_by IS NULL";
// One pass over the run's rows (their primary-key range), for a threshold other than the stored one.
constexpr std::string_view kRunGroupStats =
    "SELECT kind, suite, dtype, mode, count(*),"
    " sum(CASE WHEN kind = 'performance' AND failed = 0 AND speedup > 0 THEN 1 ELSE 0 END),"
    " sum(CASE WHEN kind = 'performance' AND failed = 0 AND speedup > 0 AND speedup < $2 THEN 1 ELSE 0 END),"
    " sum(failed),"
    " sum(accuracy_failed),"
    " coalesce(sum(CASE WHEN kind = 'performance' AND failed = 0 AND speedup > 0 THEN ln(speedup) END), 0.0),"
    " coalesce(sum(CASE WHEN kind = 'performance' AND failed = 0 AND speedup > 1 THEN ln(speedup) END), 0.0)"
    " FROM results WHERE run_id = $1 GROUP BY kind, suite, dtype, mode";
// The same, stored at ingest (migration 010 run_groups) for the default threshold 1.0.
constexpr std::string_view kStoredGroupStats =
    "SELECT kind, suite, dtype, mode, rows, measured, slow_measured, failed, accuracy_failed, log_sum, log_sum_clipped"
    " FROM run_groups WHERE run_id = $1 ORDER BY kind, suite, dtype, mode";

RunBrief read_run(const Statement& st) {
  RunBrief r;
  r.id = st.int64(0);
  r.key = st.text(1);
  r.platform = st.text(2);
  r.device = st.text(3);
  r.torch_version = st.text(4);
  r.commit = st.text(5);
  r.created_at = st.text(6);
  r.tags_json = st.text(7);
  return r;
}

}  // namespace

Result<std::vector<RunBrief>> list_runs(Database& db, const std::string& platform, std::int64_t limit, RunsWith with) {
  PT_ASSIGN(const std::string stored, stored_platform(db, platform));
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kRunColumns) +
                                                std::string(platform.empty() ? kAllRuns : kRunsOfPlatform) +
                                                std::string(runs_with_condition(with)) + std::string(kNewestFirst)));
  st.bind(1, platform.empty() ? std::string() : stored);
  st.bind(2, sql_limit(limit > 0 ? limit : -1));
  return collect<RunBrief>(st, read_run);
}

Result<std::optional<RunBrief>> find_run(Database& db, const std::string& key) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kRunColumns) + std::string(kRunByKey)));
  st.bind(1, key);
  return first(st, read_run);
}

Result<std::vector<std::string>> platforms(Database& db) {
  PT_ASSIGN(auto st, Statement::prepare(db, kPlatforms));
  return collect<std::string>(st, [](const Statement& s) { return s.text(0); });
}

Result<std::vector<std::string>> tags(Database& db) {
  PT_ASSIGN(auto st, Statement::prepare(db, kTags));
  std::set<std::string> out;
  for (;;) {
    PT_ASSIGN(const bool row, st.step());
    if (!row) break;
    const auto j = nlohmann::json::parse(st.text_view(0), nullptr, false);
    if (!j.is_array()) continue;
    for (const auto& t : j) {
      if (t.is_string()) out.insert(t.get<std::string>());
    }
  }
  return std::vector<std::string>(out.begin(), out.end());
}

Result<RunStamp> run_stamp(Database& db, std::int64_t run_id) {
  PT_ASSIGN(auto st, Statement::prepare(db, kRunStamp));
  st.bind(1, run_id);
  PT_TRY(st.step());
  return RunStamp{st.int64(0), st.int64(1), st.int64(2)};
}

Result<std::vector<GroupStats>> run_group_stats(Database& db, std::int64_t run_id, double threshold) {
  const bool stored = threshold == 1.0;
  PT_ASSIGN(auto st, Statement::prepare(db, stored ? kStoredGroupStats : kRunGroupStats));
  st.bind(1, run_id);
  if (!stored) st.bind(2, threshold);
  return collect<GroupStats>(st, [](const Statement& s) {
    GroupStats g;
    g.kind = s.text(0);
    g.suite = s.text(1);
    g.dtype = s.text(2);
    g.mode = s.text(3);
    g.rows = s.int64(4);
    g.measured = s.int64(5);
    g.slow = s.int64(6);
    g.failed = s.int64(7);
    g.accuracy_failed = s.int64(8);
    g.log_sum = s.real(9);
    g.log_sum_clipped = s.real(10);
    return g;
  });
}

}  // namespace perftriage::schema::dashboard
