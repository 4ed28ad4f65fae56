// Read-only aggregates the dashboard needs and no other endpoint gives:
// GET /api/v1/dashboard/overview[?threshold=&runs=30]  each platform's latest run (geomean speedup HUD and runner.py,
//   pass rate, slow / failed / accuracy-failed counts), the change against its previous run, and the last `runs` runs
//   (oldest first) for a sparkline; all of them runs with performance results (schema/store.hpp RunsWith), so a
//   references-only upload never replaces the newest measured run. A platform without one is left out.
// GET /api/v1/dashboard/matrix?run=KEY[&threshold=]    the run's suite x dtype x mode cells with geomean speedups.
// GET /api/v1/dashboard/runs[?platform=&limit=]        runs without counts (cheap, for pickers), platforms, tags.
// Per-run statistics are cached in memory, keyed by the database, the run, its live files and the threshold: a run's
// rows change only when one of its files is stored or superseded, which changes the key.
#include <charconv>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

#include "schema/dashboard_queries.hpp"
#include "schema/data_stamps.hpp"
#include "server/app/app_context.hpp"
#include "server/app/queries.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

namespace dq = schema::dashboard;
using nlohmann::json;

class StatsCache {
 public:
  Result<std::vector<dq::GroupStats>> get(schema::Database& db, const std::string& db_path, std::int64_t run_id,
                                          double threshold, Observability& obs) {
    PT_ASSIGN(const auto stamp, dq::run_stamp(db, run_id));
    const Key key{db_path, run_id, stamp.live_files, stamp.max_file_id, stamp.last_audit_id, threshold};
    {
      std::lock_guard lock(mutex_);
      if (auto it = entries_.find(key); it != entries_.end()) {
        obs.cache_lookup("dashboard", true);
        return it->second;
      }
    }
    obs.cache_lookup("dashboard", false);
    PT_ASSIGN(auto stats, dq::run_group_stats(db, run_id, threshold));
    std::lock_guard lock(mutex_);
    if (entries_.size() >= kMaxEntries) entries_.clear();
    entries_.emplace(key, stats);
    return stats;
  }

 private:
  using Key = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, std::int64_t, double>;
  static constexpr std::size_t kMaxEntries = 8192;
  std::mutex mutex_;
  std::map<Key, std::vector<dq::GroupStats>> entries_;
};

StatsCache& cache() {
  static StatsCache instance;
  return instance;
}

json opt_number(double v, bool present) { return present ? json(v) : json(); }

struct Summary {
  std::int64_t perf_rows = 0, measured = 0, slow = 0, failed = 0, accuracy_rows = 0, accuracy_failed = 0;
  double log_sum = 0, log_sum_clipped = 0;

  void add(const dq::GroupStats& g) {
    if (g.kind == "performance") {
      perf_rows += g.rows;
      measured += g.measured;
      slow += g.slow;
      failed += g.failed;
      log_sum += g.log_sum;
      log_sum_clipped += g.log_sum_clipped;
    } else if (g.kind == "accuracy") {
      accuracy_rows += g.rows;
      accuracy_failed += g.accuracy_failed;
    }
  }
  [[nodiscard]] double hud() const { return std::exp(log_sum / static_cast<double>(measured)); }
  [[nodiscard]] double runner() const { return std::exp(log_sum_clipped / static_cast<double>(measured)); }
  // Accuracy pass rate when the run has accuracy rows, else the share of performance rows that ran.
  [[nodiscard]] bool has_pass_rate() const { return accuracy_rows > 0 || perf_rows > 0; }
  [[nodiscard]] double pass_rate() const {
    if (accuracy_rows > 0) {
      return static_cast<double>(accuracy_rows - accuracy_failed) / static_cast<double>(accuracy_rows);
    }
    return perf_rows > 0 ? static_cast<double>(perf_rows - failed) / static_cast<double>(perf_rows) : 0.0;
  }
  [[nodiscard]] json to_json() const {
    return {{"performance_rows", perf_rows},
            {"measured", measured},
            {"slow", slow},
            {"failed", failed},
            {"accuracy_rows", accuracy_rows},
            {"accuracy_failed", accuracy_failed},
            {"geomean_speedup_hud", opt_number(hud(), measured > 0)},
            {"geomean_speedup_runner", opt_number(runner(), measured > 0)},
            {"pass_rate", opt_number(pass_rate(), has_pass_rate())},
            {"pass_rate_basis", accuracy_rows > 0 ? "accuracy" : "performance"}};
  }
};

json brief_json(const dq::RunBrief& r) {
  json tags = json::parse(r.tags_json, nullptr, false);
  if (!tags.is_array()) tags = json::array();
  return {{"key", r.key},       {"platform", r.platform},     {"device", r.device}, {"torch_version", r.torch_version},
          {"commit", r.commit}, {"created_at", r.created_at}, {"tags", tags}};
}

Result<Summary> run_summary(schema::Database& db, const AppContext& app, std::int64_t run_id, double threshold) {
  PT_ASSIGN(const auto stats, cache().get(db, app.settings().db_path, run_id, threshold, app.obs()));
  Summary s;
  for (const auto& g : stats) s.add(g);
  return s;
}

// One platform of the overview: its latest run, the change against the previous one, and `runs` (newest first) as a
// series, oldest first.
Result<json> platform_overview(schema::Database& db, const AppContext& app, const std::string& platform,
                               const std::vector<dq::RunBrief>& runs, double threshold) {
  json series = json::array();
  std::vector<Summary> summaries;
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {  // oldest first
    PT_ASSIGN(const Summary s, run_summary(db, app, it->id, threshold));
    series.push_back({{"run", it->key},
                      {"created_at", it->created_at},
                      {"geomean_speedup_hud", opt_number(s.hud(), s.measured > 0)},
                      {"geomean_speedup_runner", opt_number(s.runner(), s.measured > 0)},
                      {"pass_rate", opt_number(s.pass_rate(), s.has_pass_rate())},
                      {"slow", s.slow}});
    summaries.push_back(s);
  }
  const Summary& latest = summaries.back();
  json entry{{"platform", platform},        {"latest", brief_json(runs.front())},
             {"summary", latest.to_json()}, {"history", std::move(series)},
             {"previous", nullptr},         {"change", nullptr}};
  if (summaries.size() >= 2) {
    const Summary& prev = summaries[summaries.size() - 2];
    entry["previous"] = brief_json(runs[1]);
    entry["previous_summary"] = prev.to_json();
    const bool both = latest.measured > 0 && prev.measured > 0;
    entry["change"] = {{"geomean_speedup_hud", opt_number(latest.hud() / prev.hud() - 1.0, both)},
                       {"geomean_speedup_runner", opt_number(latest.runner() / prev.runner() - 1.0, both)},
                       {"pass_rate", opt_number(latest.pass_rate() - prev.pass_rate(),
                                                latest.has_pass_rate() && prev.has_pass_rate())},
                       {"slow", latest.slow - prev.slow},
                       {"failed", latest.failed - prev.failed},
                       {"accuracy_failed", latest.accuracy_failed - prev.accuracy_failed}};
  }
  return entry;
}

Result<ApiResponse> get_overview(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const double threshold, parse_threshold(req.q("threshold"), app.settings().slow_threshold));
  PT_ASSIGN(const std::int64_t history, parse_limit(req.q("runs"), "runs", 30, 200));
  PT_ASSIGN(auto store, app.store());
  auto& db = store->db();
  PT_ASSIGN(const auto platforms, dq::platforms(db));
  json out = json::array();
  for (const auto& platform : platforms) {
    PT_ASSIGN(const auto runs, dq::list_runs(db, platform, history, schema::RunsWith::performance));
    if (runs.empty()) continue;
    PT_ASSIGN(json entry, platform_overview(db, app, platform, runs, threshold));
    out.push_back(std::move(entry));
  }
  auto res = json_response(200, {{"threshold", threshold}, {"platforms", std::move(out)}});
  res.data_scopes = {std::string(schema::kStampAll)};  // every platform's recent runs, and nothing else
  return res;
}

Result<ApiResponse> get_matrix(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const double threshold, parse_threshold(req.q("threshold"), app.settings().slow_threshold));
  const std::string key = req.q("run");
  if (key.empty()) return make_error(ErrorKind::invalid_input, "missing_parameter", "run is required", {}, 0, "run");
  PT_ASSIGN(auto store, app.store());
  auto& db = store->db();
  PT_ASSIGN(const auto run, dq::find_run(db, key));
  if (!run) return make_error(ErrorKind::not_found, "no_run", "no run '" + key + "'", {}, 0, "run");
  PT_ASSIGN(const auto stats, cache().get(db, app.settings().db_path, run->id, threshold, app.obs()));
  std::map<std::tuple<std::string, std::string, std::string>, Summary> cells;
  Summary total;
  for (const auto& g : stats) {
    cells[{g.suite, g.dtype, g.mode}].add(g);
    total.add(g);
  }
  json list = json::array();
  std::map<std::string, int> suites, dtypes, modes;
  for (const auto& [axes, s] : cells) {
    const auto& [suite, dtype, mode] = axes;
    ++suites[suite];
    ++dtypes[dtype];
    ++modes[mode];
    json cell = s.to_json();
    cell["suite"] = suite;
    cell["dtype"] = dtype;
    cell["mode"] = mode;
    list.push_back(std::move(cell));
  }
  const auto names = [](const std::map<std::string, int>& m) {
    json a = json::array();
    for (const auto& [k, n] : m) a.push_back(k);
    return a;
  };
  return json_response(200, {{"run", brief_json(*run)},
                             {"threshold", threshold},
                             {"summary", total.to_json()},
                             {"suites", names(suites)},
                             {"dtypes", names(dtypes)},
                             {"modes", names(modes)},
                             {"cells", std::move(list)}});
}

Result<ApiResponse> get_runs(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const std::int64_t limit, parse_limit(req.q("limit"), "limit", 500, 10000));
  PT_ASSIGN(auto store, app.store());
  auto& db = store->db();
  PT_ASSIGN(const auto runs, dq::list_runs(db, req.q("platform"), limit));
  PT_ASSIGN(const auto platforms, dq::platforms(db));
  PT_ASSIGN(const auto tags, dq::tags(db));
  json list = json::array();
  for (const auto& r : runs) list.push_back(brief_json(r));
  return json_response(200, {{"runs", std::move(list)}, {"platforms", platforms}, {"tags", tags}});
}

}  // namespace

void register_dashboard_routes(Router& router) {
  router.add("GET", "/api/v1/dashboard/overview", get_overview, RouteOptions{}.params({"threshold", "runs"}));
  router.add("GET", "/api/v1/dashboard/matrix", get_matrix, RouteOptions{}.params({"run", "threshold"}));
  router.add("GET", "/api/v1/dashboard/runs", get_runs, RouteOptions{}.params({"platform", "limit"}));
}

}  // namespace perftriage::server
