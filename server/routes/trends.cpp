// GET /api/v1/trends?platform=P[&runs=30]: PyTorch HUD's four compiler metrics per suite x dtype x mode over the
// platform's last `runs` runs, oldest first: pass rate, geomean speedup, mean compilation seconds and geomean
// peak-memory compression ratio (schema/trend_queries.hpp), for the dashboard's Trends page.
#include "schema/dashboard_queries.hpp"
#include "schema/data_stamps.hpp"
#include "schema/store.hpp"
#include "schema/trend_queries.hpp"
#include "server/app/app_context.hpp"
#include "server/app/queries.hpp"
#include "server/routes/routes.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace perftriage::server {
namespace {

using nlohmann::json;
namespace dq = schema::dashboard;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }

json point(const std::string& run, const schema::trends::GroupMetrics& g) {
  return {{"run", run},
          {"rows", g.rows},
          {"passing", g.passing},
          {"pass_rate", opt(g.pass_rate())},
          {"geomean_speedup", opt(g.geomean_speedup())},
          {"mean_compilation_s", opt(g.mean_compilation_s())},
          {"geomean_compression_ratio", opt(g.geomean_compression_ratio())}};
}

const json& definitions() {
  static const json d = {
      {"pass_rate", "performance rows that ran (speedup > 0) and whose accuracy, when measured, passed / all of them"},
      {"geomean_speedup", "geometric mean of eager / compiled latency over the passing rows (HUD: unclipped)"},
      {"mean_compilation_s", "arithmetic mean of compilation_latency over the passing rows that measured it"},
      {"geomean_compression_ratio",
       "geometric mean of eager peak memory / compiled peak memory over the passing rows that measured it (higher "
       "is better; XPU runs often leave it unmeasured)"}};
  return d;
}

Result<ApiResponse> get_trends(const ApiRequest& req, AppContext& app) {
  const std::string platform = req.q("platform");
  if (platform.empty()) {
    return make_error(ErrorKind::invalid_input, "missing_parameter", "platform is required", {}, 0, "platform");
  }
  PT_ASSIGN(const std::int64_t limit, parse_limit(req.q("runs"), "runs", 30, 200));
  PT_ASSIGN(auto store, app.store());
  auto& db = store->db();
  PT_ASSIGN(const std::string stored, schema::stored_platform(db, platform));  // any spelling of it
  PT_ASSIGN(auto runs, dq::list_runs(db, platform, limit));
  std::reverse(runs.begin(), runs.end());  // oldest first: the x axis
  json run_list = json::array();
  std::map<std::tuple<std::string, std::string, std::string>, json> groups;
  for (const auto& run : runs) {
    run_list.push_back({{"key", run.key}, {"created_at", run.created_at}, {"torch_version", run.torch_version}});
    PT_ASSIGN(const auto metrics, schema::trends::run_metrics(db, run.id));
    for (const auto& g : metrics) {
      auto& points = groups[{g.suite, g.dtype, g.mode}];
      if (points.is_null()) points = json::array();
      points.push_back(point(run.key, g));
    }
  }
  json group_list = json::array();
  for (auto& [axes, points] : groups) {
    const auto& [suite, dtype, mode] = axes;
    group_list.push_back({{"suite", suite}, {"dtype", dtype}, {"mode", mode}, {"points", std::move(points)}});
  }
  auto res = json_response(200, {{"platform", stored},
                                 {"runs", std::move(run_list)},
                                 {"groups", std::move(group_list)},
                                 {"metrics", definitions()}});
  res.data_scopes = {schema::stamp_scope_platform(stored)};
  return res;
}

}  // namespace

void register_trend_routes(Router& router) {
  router.add("GET", "/api/v1/trends", get_trends, RouteOptions{}.params({"platform", "runs"}));
}

}  // namespace perftriage::server
