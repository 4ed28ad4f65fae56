// GET /api/v1/cases/{suite}/{model}/history?platform=&dtype=&mode=&config=&metric=speedup|compiled_ms|eager_ms|
//   compilation_s|compression_ratio
//   one series per (dtype, mode, config), with the change points of the metric (server/app/case_history.hpp).
#include "schema/data_stamps.hpp"
#include "server/app/app_context.hpp"
#include "server/app/case_history.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

Result<ApiResponse> get_history(const ApiRequest& req, AppContext& app) {
  schema::HistoryQuery q;
  q.suite = req.params.at(0);
  q.model = req.params.at(1);
  q.platform = req.q("platform");
  q.dtype = req.q("dtype");
  q.mode = req.q("mode");
  if (req.query.count("config")) q.config = req.q("config");
  if (q.platform.empty()) {
    return make_error(ErrorKind::invalid_input, "missing_parameter", "platform is required", {}, 0, "platform");
  }
  const auto metric = history_metric(req.q("metric", "speedup"));
  if (!metric) {
    return make_error(ErrorKind::invalid_input, "bad_metric", "metric must be " + history_metric_names(), {}, 0,
                      "metric");
  }
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto history, case_history(*store, q, *metric));
  auto res = json_response(200, history);
  res.data_scopes = {schema::stamp_scope_platform(q.platform)};
  return res;
}

}  // namespace

void register_history_routes(Router& router) {
  router.add("GET", "/api/v1/cases/{suite}/{model}/history", get_history,
             RouteOptions{}.params({"platform", "dtype", "mode", "config", "metric"}));
}

}  // namespace perftriage::server
