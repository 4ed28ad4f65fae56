#include "schema/history_store.hpp"

#include <algorithm>
#include <iterator>
#include <map>

namespace perftriage::schema {
namespace {

// The file paths and the case groups are read once (kRunFilePaths, kCaseGroups) instead of joined into every row: a
// row costs one lookup of its model (case_models), not the `results` view's two.
constexpr std::string_view kComparisonRows =
    "SELECT m.group_id, m.model, x.batch_size, x.speedup, x.speedup_text, x.abs_latency_ms, "
    "CASE WHEN x.speedup > 0 AND x.abs_latency_ms > 0 THEN x.speedup * x.abs_latency_ms END, "
    "x.compilation_latency_s, x.dynamo_peak_mem_gb, x.accuracy, x.failed, x.accuracy_failed, x.file_id, "
    "x.compression_ratio FROM result_rows x JOIN case_models m ON m.id = x.case_id WHERE x.run_id = $1";
constexpr std::string_view kCaseGroups = "SELECT id, suite, dtype, mode, kind, config FROM case_groups";
constexpr std::string_view kRunFilePaths = "SELECT id, path FROM result_files WHERE run_id = $1";
// A case's history is read through its cases (the unique index on suite, model, ...), then the platform's runs
// (runs_platform_created), then one primary-key probe of result_rows per (run, case): migration 010 keeps no index by
// case, so that ingest only appends. SQLite's CROSS JOIN fixes that order (PT_SQLITE_ORDERED_JOIN).
#define PT_EAGER(x) \
  "CASE WHEN " x ".speedup > 0 AND " x ".abs_latency_ms > 0 THEN " x ".speedup * " x ".abs_latency_ms END"
#define PT_HISTORY_SELECT(D) \
  "SELECT r.key, r.created_at, r.torch_version, c.dtype, c.mode, c.config, c.kind, x.batch_size, x.speedup, " \
    "x.speedup_text, x.abs_latency_ms, " PT_EAGER("x") ", x.failed, x.accuracy, x.compilation_latency_s, " \
    "x.compression_ratio " \
    "FROM cases c CROSS JOIN runs r " PT_##D##_ORDERED_JOIN " result_rows x ON x.run_id = r.id AND x.case_id = c.id " \
    "WHERE c.suite = $1 AND c.model = $2 AND r.platform = $3"
constexpr DialectSql kHistorySelect = PT_DIALECT_SQL(PT_HISTORY_SELECT);
constexpr std::string_view kHistoryDtype = " AND c.dtype = $4";
constexpr std::string_view kHistoryMode = " AND c.mode = $5";
constexpr std::string_view kHistoryConfig = " AND c.config = $6";
constexpr std::string_view kHistoryOrder = " ORDER BY c.dtype, c.mode, c.config, r.created_at, r.id, c.kind DESC";
// The cases ever slow on the platform, then every performance row of those cases in the platform's runs.
#define PT_BACKLOG_ROWS(D)                                                                                           \
  "WITH platform_runs AS MATERIALIZED (SELECT id FROM runs WHERE platform = $1), "                                   \
  "ever_slow AS MATERIALIZED (SELECT DISTINCT x.case_id FROM result_rows x JOIN cases c ON c.id = x.case_id"         \
  "  WHERE x.run_id IN (SELECT id FROM platform_runs) AND c.kind = 'performance' AND x.speedup > 0 AND x.speedup < " \
  "$2) "                                                                                                             \
  "SELECT x.run_id, c.suite, c.dtype, c.mode, c.config, c.model, x.speedup, x.speedup_text, x.failed "               \
  "FROM ever_slow s " PT_##D##_ORDERED_JOIN                                                                          \
      " cases c ON c.id = s.case_id CROSS JOIN platform_runs p " PT_##D##_ORDERED_JOIN                               \
      " result_rows x ON x.run_id = p.id AND x.case_id = s.case_id"
constexpr DialectSql kBacklogRows = PT_DIALECT_SQL(PT_BACKLOG_ROWS);

// A case's live performance row in a run: the one shape kLatestCaseRow and kPreviousCaseRow share, the runs filtered
// by the condition `which_runs` and the newest of them taken.
#define PT_CASE_ROW(D, which_runs)                                                                                 \
  "SELECT runs.id, runs.key, runs.platform, runs.created_at, f.path, r.speedup, r.speedup_text, r.abs_latency_ms," \
  " " PT_EAGER("r") " FROM cases c CROSS JOIN runs " PT_##D##_ORDERED_JOIN                                         \
      " result_rows r ON r.run_id = runs.id AND r.case_id = c.id JOIN result_files f ON f.id = r.file_id "         \
      "WHERE c.kind = 'performance' AND c.suite = $1 AND c.dtype = $2 AND c.mode = $3 AND c.model = $4 "           \
      "AND " which_runs " AND f.superseded_by IS NULL ORDER BY runs.created_at DESC, runs.id DESC LIMIT 1"
// The newest run (of the platform, when given) holding a live performance row of the case.
#define PT_LATEST_CASE_ROW(D) PT_CASE_ROW(D, "($5 = '' OR runs.platform = $5)")
constexpr DialectSql kLatestCaseRow = PT_DIALECT_SQL(PT_LATEST_CASE_ROW);
// The same case in the run of that platform just before $6/$7 (created_at, id), with a compiled latency.
#define PT_PREVIOUS_CASE_ROW(D)                                                                          \
  PT_CASE_ROW(D,                                                                                         \
              "runs.platform = $5 AND (runs.created_at < $6 OR (runs.created_at = $6 AND runs.id < $7))" \
              " AND r.abs_latency_ms > 0")
constexpr DialectSql kPreviousCaseRow = PT_DIALECT_SQL(PT_PREVIOUS_CASE_ROW);
#undef PT_CASE_ROW
#undef PT_EAGER

CaseMeasurement read_case_measurement(const Statement& st) {
  CaseMeasurement m;
  m.run_id = st.int64(0);
  m.run_key = st.text(1);
  m.platform = st.text(2);
  m.created_at = st.text(3);
  m.path = st.text(4);
  m.speedup = st.opt_real(5);
  m.speedup_text = st.text(6);
  m.abs_latency_ms = st.opt_real(7);
  m.eager_latency_ms = st.opt_real(8);
  return m;
}

Statement& bind_case(Statement& st, const model::CaseRef& c) {
  return st.bind(1, c.suite).bind(2, c.dtype).bind(3, c.mode).bind(4, c.model);
}

struct CaseGroup {
  std::string suite, dtype, mode, kind, config;
};

void read_comparison_row(const Statement& st, const std::map<std::int64_t, std::string>& paths,
                         const std::map<std::int64_t, CaseGroup>& groups, model::ResultRecord& r) {
  // `r` may be a record reused from the previous row (for_each_comparison_row): every field read is assigned.
  static const CaseGroup kNoGroup;
  const auto g = groups.find(st.int64(0));
  const CaseGroup& group = g == groups.end() ? kNoGroup : g->second;
  r.suite = group.suite;
  r.dtype = group.dtype;
  r.mode = group.mode;
  r.kind = group.kind;
  r.config = group.config;
  r.model = st.text(1);
  r.batch_size = st.int64(2);
  r.speedup = st.opt_real(3);
  r.speedup_text = st.text(4);
  r.abs_latency_ms = st.opt_real(5);
  r.eager_latency_ms = st.opt_real(6);
  r.compilation_latency_s = st.opt_real(7);
  r.dynamo_peak_mem_gb = st.opt_real(8);
  r.compression_ratio = st.opt_real(13);
  r.accuracy = st.text(9);
  r.failed = st.int64(10) != 0;
  r.accuracy_failed = st.int64(11) != 0;
  const auto it = paths.find(st.int64(12));
  if (it != paths.end())
    r.source = it->second;
  else
    r.source.clear();
}

Result<std::map<std::int64_t, CaseGroup>> case_groups(Database& db) {
  std::map<std::int64_t, CaseGroup> groups;
  PT_ASSIGN(auto st, Statement::prepare(db, kCaseGroups));
  for (;;) {
    PT_ASSIGN(const bool row, st.step());
    if (!row) return groups;
    groups.emplace(st.int64(0), CaseGroup{st.text(1), st.text(2), st.text(3), st.text(4), st.text(5)});
  }
}

// The rows of one run, one record refilled per row (its strings keep their capacity), given the case groups.
Result<void> run_rows(Database& db, std::int64_t run_id, const std::map<std::int64_t, CaseGroup>& groups,
                      const RowSink& sink) {
  std::map<std::int64_t, std::string> paths;
  PT_ASSIGN(auto files, Statement::prepare(db, kRunFilePaths));
  files.bind(1, run_id);
  for (;;) {
    PT_ASSIGN(const bool row, files.step());
    if (!row) break;
    paths.emplace(files.int64(0), files.text(1));
  }
  PT_ASSIGN(auto st, Statement::prepare(db, kComparisonRows));
  st.bind(1, run_id);
  model::ResultRecord record;
  for (;;) {
    PT_ASSIGN(const bool row, st.step());
    if (!row) return {};
    read_comparison_row(st, paths, groups, record);
    sink(record);
  }
}

bool same_point(const HistoryPoint& p, const Statement& st) {
  return p.run_key == st.text_view(0) && p.dtype == st.text_view(3) && p.mode == st.text_view(4) &&
         p.config == st.text_view(5);
}

}  // namespace

Result<model::RunRecord> require_run(Database& db, const std::string& key, const std::string& parameter) {
  if (key.empty()) {
    return make_error(ErrorKind::invalid_input, "missing_parameter", parameter + " is required", {}, 0, parameter);
  }
  PT_ASSIGN(auto run, find_run(db, key));
  if (!run) return make_error(ErrorKind::not_found, "no_run", "no run with key '" + key + "'", {}, 0, parameter);
  return std::move(*run);
}

Result<model::RunRecord> resolve_base_run(Database& db, const std::string& rule, const model::RunRecord& target) {
  if (rule.empty()) {
    return make_error(ErrorKind::invalid_input, "missing_parameter", "base is required", {}, 0, "base");
  }
  if (rule == "previous") {
    PT_ASSIGN(auto previous, previous_run(db, target));
    if (!previous) {
      return make_error(ErrorKind::not_found, "no_previous_run",
                        "run '" + target.meta.key + "' has no previous run on " + target.meta.platform, {}, 0, "base");
    }
    return std::move(*previous);
  }
  PT_ASSIGN(auto runs, list_runs(db, target.meta.platform));  // newest first
  for (auto& r : runs) {
    if (r.id != target.id && std::find(r.meta.tags.begin(), r.meta.tags.end(), rule) != r.meta.tags.end()) {
      return std::move(r);
    }
  }
  auto run = require_run(db, rule, "base");
  if (!run && run.error().kind == ErrorKind::not_found) {
    return make_error(
        ErrorKind::not_found, "no_run",
        "base '" + rule + "' is neither 'previous', a tag of a " + target.meta.platform + " run, nor a run key", {}, 0,
        "base");
  }
  return run;
}

Result<void> for_each_comparison_row(Database& db, std::int64_t run_id, const RowSink& sink) {
  PT_ASSIGN(const auto groups, case_groups(db));
  return run_rows(db, run_id, groups, sink);
}

Result<ComparisonRuns> stream_comparison(Database& db, const std::string& base_rule, const std::string& target_key,
                                         const RowSink& base_sink, const RowSink& target_sink) {
  PT_ASSIGN(auto tx, Transaction::begin(db, Transaction::Mode::deferred));
  PT_ASSIGN(auto target, require_run(db, target_key, "target"));
  PT_ASSIGN(auto base, resolve_base_run(db, base_rule, target));
  PT_ASSIGN(const auto groups, case_groups(db));  // shared by both runs
  PT_TRY(run_rows(db, base.id, groups, base_sink));
  PT_TRY(run_rows(db, target.id, groups, target_sink));
  PT_TRY(tx.commit());
  return ComparisonRuns{std::move(base), std::move(target)};
}

Result<ComparisonInput> load_comparison(Database& db, const std::string& base_rule, const std::string& target_key) {
  std::vector<model::ResultRecord> base_rows, target_rows;
  PT_ASSIGN(auto runs, stream_comparison(
                           db, base_rule, target_key, [&](const model::ResultRecord& r) { base_rows.push_back(r); },
                           [&](const model::ResultRecord& r) { target_rows.push_back(r); }));
  return ComparisonInput{std::move(runs.base), std::move(runs.target), std::move(base_rows), std::move(target_rows)};
}

Result<std::vector<HistoryPoint>> case_history(Database& db, const HistoryQuery& q) {
  std::string sql(dialect_sql(db, kHistorySelect));
  if (!q.dtype.empty()) sql += kHistoryDtype;
  if (!q.mode.empty()) sql += kHistoryMode;
  if (q.config) sql += kHistoryConfig;
  sql += kHistoryOrder;
  PT_ASSIGN(const std::string platform, stored_platform(db, q.platform));
  PT_ASSIGN(auto st, Statement::prepare(db, sql));
  st.bind(1, q.suite).bind(2, q.model).bind(3, platform);
  if (!q.dtype.empty()) st.bind(4, q.dtype);
  if (!q.mode.empty()) st.bind(5, q.mode);
  if (q.config) st.bind(6, *q.config);
  std::vector<HistoryPoint> out;
  for (;;) {
    PT_ASSIGN(const bool row, st.step());
    if (!row) break;
    if (st.text_view(6) == "accuracy") {  // sorted after the performance row of the same run and series
      if (!out.empty() && same_point(out.back(), st)) out.back().accuracy = st.text(13);
      continue;
    }
    HistoryPoint p;
    p.run_key = st.text(0);
    p.created_at = st.text(1);
    p.torch_version = st.text(2);
    p.dtype = st.text(3);
    p.mode = st.text(4);
    p.config = st.text(5);
    p.batch_size = st.int64(7);
    p.speedup = st.opt_real(8);
    p.speedup_text = st.text(9);
    p.compiled_ms = st.opt_real(10);
    p.eager_ms = st.opt_real(11);
    p.failed = st.int64(12) != 0;
    p.compilation_s = st.opt_real(14);
    p.compression_ratio = st.opt_real(15);
    out.push_back(std::move(p));
  }
  return out;
}

Result<BacklogData> backlog_rows(Database& db, const std::string& platform, double threshold) {
  PT_ASSIGN(auto tx, Transaction::begin(db, Transaction::Mode::deferred));
  BacklogData data;
  PT_ASSIGN(const std::string stored, stored_platform(db, platform));
  PT_ASSIGN(auto runs, list_runs(db, stored));
  data.runs.assign(std::make_move_iterator(runs.rbegin()), std::make_move_iterator(runs.rend()));
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kBacklogRows)));
  st.bind(1, stored).bind(2, threshold);
  PT_ASSIGN(data.rows, collect<BacklogRow>(st, [](const Statement& s) {
              return BacklogRow{s.int64(0), s.text(1),     s.text(2), s.text(3),      s.text(4),
                                s.text(5),  s.opt_real(6), s.text(7), s.int64(8) != 0};
            }));
  PT_TRY(tx.commit());
  return data;
}

Result<std::optional<CaseMeasurement>> latest_case_measurement(Database& db, const model::CaseRef& case_ref,
                                                               const std::string& platform) {
  PT_ASSIGN(const std::string stored, stored_platform(db, platform));
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kLatestCaseRow)));
  bind_case(st, case_ref).bind(5, stored);
  return first(st, read_case_measurement);
}

Result<std::optional<CaseMeasurement>> previous_case_measurement(Database& db, const model::CaseRef& case_ref,
                                                                 const CaseMeasurement& current) {
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kPreviousCaseRow)));
  bind_case(st, case_ref).bind(5, current.platform).bind(6, current.created_at).bind(7, current.run_id);
  return first(st, read_case_measurement);
}

}  // namespace perftriage::schema
