#include "server/app/case_history.hpp"

#include <array>
#include <vector>

#include "analyzers/compare/change_detection.hpp"
#include "common/strings.hpp"
#include "schema/artifact_store.hpp"

namespace perftriage::server {
namespace {

namespace cmp = analyzers::compare;
using nlohmann::json;

constexpr std::array kMetrics{HistoryMetric::speedup, HistoryMetric::compiled_ms, HistoryMetric::eager_ms,
                              HistoryMetric::compilation_s, HistoryMetric::compression_ratio};

// A step up is worse for times, better for ratios.
bool higher_is_better(HistoryMetric m) { return m == HistoryMetric::speedup || m == HistoryMetric::compression_ratio; }

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }

const std::optional<double>& metric_of(const schema::HistoryPoint& p, HistoryMetric metric) {
  switch (metric) {
    case HistoryMetric::compiled_ms: return p.compiled_ms;
    case HistoryMetric::eager_ms: return p.eager_ms;
    case HistoryMetric::compilation_s: return p.compilation_s;
    case HistoryMetric::compression_ratio: return p.compression_ratio;
    case HistoryMetric::speedup: break;
  }
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

json series_json(const std::vector<const schema::HistoryPoint*>& points, HistoryMetric metric,
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
                       {"worse", higher_is_better(metric) ? !up : up}});
  }
  const auto& first = *points.front();
  return {{"dtype", first.dtype},
          {"mode", first.mode},
          {"config", first.config},
          {"points", std::move(list)},
          {"change_points", std::move(changes)}};
}

// Consecutive points of one (dtype, mode, config) make one series (the store returns them grouped).
json all_series(const std::vector<schema::HistoryPoint>& points, HistoryMetric metric, const cmp::NoiseParams& params) {
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

}  // namespace

std::string_view to_string(HistoryMetric m) {
  switch (m) {
    case HistoryMetric::compiled_ms: return "compiled_ms";
    case HistoryMetric::eager_ms: return "eager_ms";
    case HistoryMetric::compilation_s: return "compilation_s";
    case HistoryMetric::compression_ratio: return "compression_ratio";
    case HistoryMetric::speedup: break;
  }
  return "speedup";
}

std::optional<HistoryMetric> history_metric(std::string_view name) {
  for (auto m : kMetrics)
    if (name == to_string(m)) return m;
  return std::nullopt;
}

std::string history_metric_names() {
  std::vector<std::string_view> names;
  for (auto m : kMetrics) names.push_back(to_string(m));
  return join_or(names);
}

Result<json> case_history(schema::Store& store, const schema::HistoryQuery& q, HistoryMetric metric) {
  PT_ASSIGN(const auto points, schema::case_history(store.db(), q));
  if (points.empty()) {
    return make_error(ErrorKind::not_found, "no_history",
                      "no " + q.platform + " result for " + q.suite + "/" + q.model);
  }
  const cmp::NoiseParams params;
  json series = all_series(points, metric, params);
  PT_ASSIGN(json findings, model_findings(store.db(), q));
  return json{{"suite", q.suite},
              {"model", q.model},
              {"platform", q.platform},
              {"metric", to_string(metric)},
              {"method", cmp::describe(params)},
              {"series", std::move(series)},
              {"findings", std::move(findings)}};
}

}  // namespace perftriage::server
