#include "schema/history_store.hpp"

#include <algorithm>
#include <map>

namespace perftriage::schema {
namespace {

// The file paths are read once per run (kRunFilePaths) instead of joined into every row.
constexpr std::string_view kComparisonRows =
    "SELECT suite, dtype, mode, kind, config, model, batch_size, speedup, speedup_text, abs_latency_ms, "
    "eager_latency_ms, compilation_latency_s, dynamo_peak_mem_gb, accuracy, failed, accuracy_failed, file_id "
    "FROM results WHERE run_id = ?1";
constexpr std::string_view kRunFilePaths = "SELECT id, path FROM result_files WHERE run_id = ?1";
// Sizes the vector up front: growing a vector of model::ResultRecord (a large struct) costs more than this count.
constexpr std::string_view kRunRowCount = "SELECT count(*) FROM results WHERE run_id = ?1";
// CROSS JOIN keeps results outermost, so the lookup goes through results_case (suite, model, dtype, mode, kind)
// instead of scanning every result of the platform's runs.
constexpr std::string_view kHistorySelect =
    "SELECT r.key, r.created_at, r.torch_version, x.dtype, x.mode, x.config, x.kind, x.batch_size, x.speedup, "
    "x.speedup_text, x.abs_latency_ms, x.eager_latency_ms, x.failed, x.accuracy "
    "FROM results x CROSS JOIN runs r ON r.id = x.run_id "
    "WHERE x.suite = ?1 AND x.model = ?2 AND r.platform = ?3";
constexpr std::string_view kHistoryDtype = " AND x.dtype = ?4";
constexpr std::string_view kHistoryMode = " AND x.mode = ?5";
constexpr std::string_view kHistoryConfig = " AND x.config = ?6";
constexpr std::string_view kHistoryOrder = " ORDER BY x.dtype, x.mode, x.config, r.created_at, r.id, x.kind DESC";
// The cases ever slow on the platform, then every performance row of those cases in the platform's runs.
constexpr std::string_view kBacklogRows =
    "WITH platform_runs AS (SELECT id FROM runs WHERE platform = ?1), "
    "ever_slow AS (SELECT DISTINCT suite, dtype, mode, config, model FROM results "
    "  WHERE run_id IN platform_runs AND kind = 'performance' AND speedup > 0 AND speedup < ?2) "
    "SELECT x.run_id, x.suite, x.dtype, x.mode, x.config, x.model, x.speedup, x.speedup_text, x.failed "
    "FROM ever_slow s JOIN results x ON x.suite = s.suite AND x.dtype = s.dtype AND x.mode = s.mode "
    " AND x.config = s.config AND x.model = s.model AND x.kind = 'performance' "
    "WHERE x.run_id IN platform_runs";

void read_comparison_row(const Statement& st, const std::map<std::int64_t, std::string>& paths, model::ResultRecord& r) {
  r.suite = st.text(0);
  r.dtype = st.text(1);
  r.mode = st.text(2);
  r.kind = st.text(3);
  r.config = st.text(4);
  r.model = st.text(5);
  r.batch_size = st.int64(6);
  r.speedup = st.opt_real(7);
  r.speedup_text = st.text(8);
  r.abs_latency_ms = st.opt_real(9);
  r.eager_latency_ms = st.opt_real(10);
  r.compilation_latency_s = st.opt_real(11);
  r.dynamo_peak_mem_gb = st.opt_real(12);
  r.accuracy = st.text(13);
  r.failed = st.int64(14) != 0;
  r.accuracy_failed = st.int64(15) != 0;
  if (const auto it = paths.find(st.int64(16)); it != paths.end()) r.source = it->second;
}

bool same_point(const HistoryPoint& p, const Statement& st) {
  return p.run_key == st.text_view(0) && p.dtype == st.text_view(3) && p.mode == st.text_view(4) &&
         p.config == st.text_view(5);
}

}  // namespace

Result<model::RunRecord> require_run(Store& store, const std::string& key, const std::string& parameter) {
  if (key.empty()) {
    return make_error(ErrorKind::invalid_input, "missing_parameter", parameter + " is required", {}, 0, parameter);
  }
  auto run = store.find_run(key);
  if (!run) return std::move(run).error();
  if (!*run) return make_error(ErrorKind::not_found, "no_run", "no run with key '" + key + "'", {}, 0, parameter);
  return std::move(**run);
}

Result<model::RunRecord> resolve_base_run(Store& store, const std::string& rule, const model::RunRecord& target) {
  if (rule.empty()) {
    return make_error(ErrorKind::invalid_input, "missing_parameter", "base is required", {}, 0, "base");
  }
  if (rule == "previous") {
    auto previous = store.previous_run(target);
    if (!previous) return std::move(previous).error();
    if (!*previous) {
      return make_error(ErrorKind::not_found, "no_previous_run",
                        "run '" + target.meta.key + "' has no previous run on " + target.meta.platform, {}, 0, "base");
    }
    return std::move(**previous);
  }
  auto runs = store.list_runs(target.meta.platform);  // newest first
  if (!runs) return std::move(runs).error();
  for (auto& r : *runs) {
    if (r.id != target.id && std::find(r.meta.tags.begin(), r.meta.tags.end(), rule) != r.meta.tags.end()) {
      return std::move(r);
    }
  }
  auto run = require_run(store, rule, "base");
  if (!run && run.error().kind == ErrorKind::not_found) {
    return make_error(ErrorKind::not_found, "no_run",
                      "base '" + rule + "' is neither 'previous', a tag of a " + target.meta.platform +
                          " run, nor a run key",
                      {}, 0, "base");
  }
  return run;
}

Result<std::vector<model::ResultRecord>> comparison_rows(Store& store, std::int64_t run_id) {
  std::map<std::int64_t, std::string> paths;
  auto files = Statement::prepare(store.db(), kRunFilePaths);
  if (!files) return std::move(files).error();
  files->bind(1, run_id);
  for (;;) {
    auto row = files->step();
    if (!row) return std::move(row).error();
    if (!*row) break;
    paths.emplace(files->int64(0), files->text(1));
  }
  auto count = Statement::prepare(store.db(), kRunRowCount);
  if (!count) return std::move(count).error();
  count->bind(1, run_id);
  auto counted = count->step();
  if (!counted) return std::move(counted).error();
  std::vector<model::ResultRecord> out;
  out.reserve(static_cast<std::size_t>(count->int64(0)));
  auto st = Statement::prepare(store.db(), kComparisonRows);
  if (!st) return std::move(st).error();
  st->bind(1, run_id);
  for (;;) {
    auto row = st->step();
    if (!row) return std::move(row).error();
    if (!*row) return out;
    read_comparison_row(*st, paths, out.emplace_back());
  }
}

Result<ComparisonInput> load_comparison(Store& store, const std::string& base_rule, const std::string& target_key) {
  auto tx = Transaction::begin(store.db(), Transaction::Mode::deferred);
  if (!tx) return std::move(tx).error();
  auto target = require_run(store, target_key, "target");
  if (!target) return std::move(target).error();
  auto base = resolve_base_run(store, base_rule, *target);
  if (!base) return std::move(base).error();
  auto base_rows = comparison_rows(store, base->id);
  if (!base_rows) return std::move(base_rows).error();
  auto target_rows = comparison_rows(store, target->id);
  if (!target_rows) return std::move(target_rows).error();
  PT_TRY(tx->commit());
  return ComparisonInput{std::move(*base), std::move(*target), std::move(*base_rows), std::move(*target_rows)};
}

Result<std::vector<HistoryPoint>> case_history(Store& store, const HistoryQuery& q) {
  std::string sql(kHistorySelect);
  if (!q.dtype.empty()) sql += kHistoryDtype;
  if (!q.mode.empty()) sql += kHistoryMode;
  if (q.config) sql += kHistoryConfig;
  sql += kHistoryOrder;
  auto st = Statement::prepare(store.db(), sql);
  if (!st) return std::move(st).error();
  st->bind(1, q.suite).bind(2, q.model).bind(3, q.platform);
  if (!q.dtype.empty()) st->bind(4, q.dtype);
  if (!q.mode.empty()) st->bind(5, q.mode);
  if (q.config) st->bind(6, *q.config);
  std::vector<HistoryPoint> out;
  for (;;) {
    auto row = st->step();
    if (!row) return std::move(row).error();
    if (!*row) break;
    if (st->text_view(6) == "accuracy") {  // sorted after the performance row of the same run and series
      if (!out.empty() && same_point(out.back(), *st)) out.back().accuracy = st->text(13);
      continue;
    }
    HistoryPoint p;
    p.run_key = st->text(0);
    p.created_at = st->text(1);
    p.torch_version = st->text(2);
    p.dtype = st->text(3);
    p.mode = st->text(4);
    p.config = st->text(5);
    p.batch_size = st->int64(7);
    p.speedup = st->opt_real(8);
    p.speedup_text = st->text(9);
    p.compiled_ms = st->opt_real(10);
    p.eager_ms = st->opt_real(11);
    p.failed = st->int64(12) != 0;
    out.push_back(std::move(p));
  }
  return out;
}

Result<BacklogData> backlog_rows(Store& store, const std::string& platform, double threshold) {
  auto tx = Transaction::begin(store.db(), Transaction::Mode::deferred);
  if (!tx) return std::move(tx).error();
  BacklogData data;
  auto runs = store.list_runs(platform);
  if (!runs) return std::move(runs).error();
  data.runs.assign(runs->rbegin(), runs->rend());
  auto st = Statement::prepare(store.db(), kBacklogRows);
  if (!st) return std::move(st).error();
  st->bind(1, platform).bind(2, threshold);
  auto rows = collect<BacklogRow>(*st, [](const Statement& s) {
    return BacklogRow{s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5),
                      s.opt_real(6), s.text(7), s.int64(8) != 0};
  });
  if (!rows) return std::move(rows).error();
  data.rows = std::move(*rows);
  PT_TRY(tx->commit());
  return data;
}

}  // namespace perftriage::schema
