// GET /api/v1/cases/{suite}/{model}/history?platform=&dtype=&mode=&config=&metric=speedup|compiled_ms|eager_ms|
//   compilation_s|compression_ratio
//   one series per (dtype, mode, config), with the change points of the metric.
// GET /api/v1/backlog?platform=&threshold=   the "slower than eager" backlog of a platform.
#include <map>
#include <tuple>

#include "analyzers/compare/backlog.hpp"
#include "schema/artifact_store.hpp"
#include "schema/backlog_store.hpp"
#include "schema/data_stamps.hpp"
#include "analyzers/compare/change_detection.hpp"
#include "schema/history_store.hpp"
#include "schema/triage_store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/queries.hpp"
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

// "Slower than eager" (speedup < 1) is kept current at ingest (schema/backlog_store.hpp); other thresholds
// are computed from every run of the platform below.
Error no_run_for(const std::string& platform) {
  return make_error(ErrorKind::not_found, "no_run", "no run for platform '" + platform + "'", {}, 0, "platform");
}

json maintained_case_json(const schema::BacklogState& e, const schema::TriageCase* t) {
  json triage;
  if (t) {
    triage = {{"state", t->state},
              {"issue", t->issue},
              {"reason", t->reason},
              {"since_run", t->since_run},
              {"updated_by", t->updated_by}};
  }
  return {{"triage", std::move(triage)},
          {"suite", e.suite},
          {"dtype", e.dtype},
          {"mode", e.mode},
          {"config", e.config},
          {"model", e.model},
          {"status", e.status},
          {"first_seen", e.first_seen},
          {"last_seen", e.last_seen},
          {"fixed_in", e.fixed_in ? json(*e.fixed_in) : json()},
          {"latest_run", e.latest_run},
          {"latest_speedup", e.latest_speedup},
          {"worst_speedup", opt(e.worst_speedup)},
          {"runs_slow", e.runs_slow}};
}

Result<ApiResponse> maintained_backlog(schema::Store& store, const std::string& platform) {
  PT_ASSIGN(const std::int64_t runs, schema::count_platform_runs(store.db(), platform));
  if (runs == 0) return no_run_for(platform);
  PT_ASSIGN(const auto entries, schema::read_backlog(store.db(), platform));
  // Each case's triage state (schema/triage_store.hpp): the same cases, keyed alike.
  PT_ASSIGN(const auto triage, schema::list_triage(store.db(), platform));
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>, const schema::TriageCase*>
      by_case;
  for (const auto& t : triage) by_case[{t.suite, t.dtype, t.mode, t.config, t.model}] = &t;
  json cases = json::array();
  std::map<std::string, std::int64_t> counts{{"open", 0}, {"fixed", 0}, {"failing", 0}};
  std::map<std::string, std::int64_t> by_state;
  for (const auto s : schema::kTriageStates) by_state[std::string(s)] = 0;
  for (const auto& e : entries) {
    ++counts[e.status];
    const auto it = by_case.find({e.suite, e.dtype, e.mode, e.config, e.model});
    const schema::TriageCase* t = it == by_case.end() ? nullptr : it->second;
    if (t) ++by_state[t->state];
    cases.push_back(maintained_case_json(e, t));
  }
  return json_response(200, {{"platform", platform},
                             {"threshold", 1.0},
                             {"runs", runs},
                             {"open", counts["open"]},
                             {"fixed", counts["fixed"]},
                             {"failing", counts["failing"]},
                             {"by_state", by_state},
                             {"cases", std::move(cases)}});
}

// Any other threshold: computed from every run of the platform.
Result<ApiResponse> computed_backlog(schema::Store& store, const std::string& platform, double threshold) {
  PT_ASSIGN(const auto data, schema::backlog_rows(store.db(), platform, threshold));
  if (data.runs.empty()) return no_run_for(platform);
  std::map<std::int64_t, std::size_t> index;
  for (std::size_t i = 0; i < data.runs.size(); ++i) index[data.runs[i].id] = i;
  std::vector<cmp::BacklogObservation> observations;
  observations.reserve(data.rows.size());
  for (const auto& r : data.rows) {
    observations.push_back(
        {index.at(r.run_id), {r.suite, r.dtype, r.mode, r.config, r.model}, r.speedup, r.speedup_text, r.failed});
  }
  const auto entries = cmp::build_backlog(std::move(observations), threshold);
  const auto key = [&](std::size_t i) { return data.runs[i].meta.key; };
  json cases = json::array();
  std::map<std::string, std::int64_t> counts{{"open", 0}, {"fixed", 0}, {"failing", 0}};
  for (const auto& e : entries) {
    ++counts[e.status];
    cases.push_back({{"suite", e.key.suite},
                     {"dtype", e.key.dtype},
                     {"mode", e.key.mode},
                     {"config", e.key.config},
                     {"model", e.key.model},
                     {"status", e.status},
                     {"first_seen", key(e.first_seen)},
                     {"last_seen", key(e.last_seen)},
                     {"fixed_in", e.fixed_in ? json(key(*e.fixed_in)) : json()},
                     {"latest_run", key(e.latest)},
                     {"latest_speedup", e.latest_speedup_text},
                     {"worst_speedup", opt(e.worst_speedup)},
                     {"runs_slow", e.runs_slow}});
  }
  return json_response(200, {{"platform", platform},
                             {"threshold", threshold},
                             {"runs", data.runs.size()},
                             {"open", counts["open"]},
                             {"fixed", counts["fixed"]},
                             {"failing", counts["failing"]},
                             {"cases", std::move(cases)}});
}

Result<ApiResponse> get_backlog(const ApiRequest& req, AppContext& app) {
  const std::string platform = req.q("platform");
  if (platform.empty()) {
    return make_error(ErrorKind::invalid_input, "missing_parameter", "platform is required", {}, 0, "platform");
  }
  PT_ASSIGN(const double threshold, parse_threshold(req.q("threshold"), app.settings().slow_threshold));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto res, threshold == 1.0 ? maintained_backlog(*store, platform)  // the default: read, not recomputed
                                       : computed_backlog(*store, platform, threshold));
  res.data_scopes = {schema::stamp_scope_platform(platform)};
  return res;
}

}  // namespace

void register_history_routes(Router& router) {
  router.add("GET", "/api/v1/cases/{suite}/{model}/history", get_history,
             RouteOptions{}.params({"platform", "dtype", "mode", "config", "metric"}));
  router.add("GET", "/api/v1/backlog", get_backlog, RouteOptions{}.params({"platform", "threshold"}));
}

}  // namespace perftriage::server
