// GET /api/v1/cases/{suite}/{model}/history?platform=&dtype=&mode=&config=&metric=speedup|compiled_ms|eager_ms|
//   compilation_s|compression_ratio
//   one series per (dtype, mode, config), with the change points of the metric.
#include "schema/artifact_store.hpp"
#include "schema/data_stamps.hpp"
#include "analyzers/compare/change_detection.hpp"
#include "schema/history_store.hpp"
#include "server/app/app_context.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

namespace cmp = analyzers::compare;
using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }

const std::optional<double>& metric_of(const schema::HistoryPoint& p, const std::string& metric) {
  if (metric == "compiled_ms") return p.compiled_ms;
  if (metric == "eager_ms") return p.eager_ms;
  if (metric == "compilation_s") return p.compilation_s;
  if (metric == "compression_ratio") return p.compression_ratio;
  return p.speedup;
}

json point_json(const schema::HistoryPoint& p) {
  return {{"run", p.run_key},
          {"created_at", p.created_at},
          {"torch_version", p.torch_version},
          {"batch_size", p.batch_size},
          {"speedup", opt(p.speedup)},
          {"speedup_text", p.speedup_text},
          {"compiled_ms", opt(p.compiled_ms)},
          {"eager_ms", opt(p.eager_ms)},
          {"compilation_s", opt(p.compilation_s)},
          {"compression_ratio", opt(p.compression_ratio)},
          {"failed", p.failed},
          {"accuracy", p.accuracy.empty() ? json() : json(p.accuracy)}};
}

json series_json(const std::vector<const schema::HistoryPoint*>& points, const std::string& metric,
                 const cmp::NoiseParams& params) {
  std::vector<std::optional<double>> values;
  json list = json::array();
  for (const auto* p : points) {
    // A failed run has no meaningful metric: it is a gap, never a step.
    values.push_back(p->failed ? std::nullopt : metric_of(*p, metric));
    list.push_back(point_json(*p));
  }
  json changes = json::array();
  for (const auto& c : cmp::detect_changes(values, params)) {
    const bool up = c.relative_change > 0;
    changes.push_back({{"index", c.index},
                       {"run", points[c.index]->run_key},
                       {"created_at", points[c.index]->created_at},
                       {"before", c.before},
                       {"after", c.after},
                       {"relative_change", c.relative_change},
                       {"direction", up ? "up" : "down"},
                       {"worse", metric == "speedup" || metric == "compression_ratio" ? !up : up}});
  }
  const auto& first = *points.front();
  return {{"dtype", first.dtype},
          {"mode", first.mode},
          {"config", first.config},
          {"points", std::move(list)},
          {"change_points", std::move(changes)}};
}

// Consecutive points of one (dtype, mode, config) make one series (the store returns them grouped).
json all_series(const std::vector<schema::HistoryPoint>& points, const std::string& metric,
                const cmp::NoiseParams& params) {
  json series = json::array();
  std::vector<const schema::HistoryPoint*> current;
  for (std::size_t i = 0; i <= points.size(); ++i) {
    const bool end = i == points.size();
    if (!current.empty() && (end || points[i].dtype != current.front()->dtype ||
                             points[i].mode != current.front()->mode || points[i].config != current.front()->config)) {
      series.push_back(series_json(current, metric, params));
      current.clear();
    }
    if (!end) current.push_back(&points[i]);
  }
  return series;
}

// What the classifiers found for this model on the platform, run by run (artifacts attached to cases).
Result<json> model_findings(schema::Database& db, const schema::HistoryQuery& q) {
  PT_ASSIGN(const auto artifacts, schema::model_artifact_findings(db, q.platform, q.suite, q.model));
  json findings = json::array();
  for (const auto& a : artifacts) {
    if ((!q.dtype.empty() && a.case_ref.dtype != q.dtype) || (!q.mode.empty() && a.case_ref.mode != q.mode)) continue;
    const json list = json::parse(a.findings_json, nullptr, false);
    if (!list.is_array()) continue;
    for (const auto& f : list) {
      findings.push_back({{"run", a.run_key},
                          {"dtype", a.case_ref.dtype},
                          {"mode", a.case_ref.mode},
                          {"config", a.case_ref.config},
                          {"artifact_id", a.id},
                          {"artifact", a.name},
                          {"role", a.role},
                          {"classifier", f.value("classifier", "")},
                          {"verdict", f.value("verdict", "")},
                          {"evidence", f.value("evidence", "")}});
    }
  }
  return findings;
}

Result<ApiResponse> get_history(const ApiRequest& req, AppContext& app) {
  schema::HistoryQuery q;
  q.suite = req.params.at(0);
  q.model = req.params.at(1);
  q.platform = req.q("platform");
  q.dtype = req.q("dtype");
  q.mode = req.q("mode");
  if (req.query.count("config")) q.config = req.q("config");
  const std::string metric = req.q("metric", "speedup");
  if (q.platform.empty()) {
    return make_error(ErrorKind::invalid_input, "missing_parameter", "platform is required", {}, 0, "platform");
  }
  if (metric != "speedup" && metric != "compiled_ms" && metric != "eager_ms" && metric != "compilation_s" &&
      metric != "compression_ratio") {
    return make_error(ErrorKind::invalid_input, "bad_metric",
                      "metric must be speedup, compiled_ms, eager_ms, compilation_s or compression_ratio", {}, 0,
                      "metric");
  }
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(const auto points, schema::case_history(store->db(), q));
  if (points.empty()) {
    return make_error(ErrorKind::not_found, "no_history",
                      "no " + q.platform + " result for " + q.suite + "/" + q.model);
  }
  const cmp::NoiseParams params;
  json series = all_series(points, metric, params);
  PT_ASSIGN(json findings, model_findings(store->db(), q));
  auto res = json_response(200, {{"suite", q.suite},
                                 {"model", q.model},
                                 {"platform", q.platform},
                                 {"metric", metric},
                                 {"method", cmp::describe(params)},
                                 {"series", std::move(series)},
                                 {"findings", std::move(findings)}});
  res.data_scopes = {schema::stamp_scope_platform(q.platform)};
  return res;
}

}  // namespace

void register_history_routes(Router& router) {
  router.add("GET", "/api/v1/cases/{suite}/{model}/history", get_history,
             RouteOptions{}.params({"platform", "dtype", "mode", "config", "metric"}));
}

}  // namespace perftriage::server
