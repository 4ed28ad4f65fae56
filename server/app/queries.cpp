#include "server/app/queries.hpp"

#include <charconv>
#include <cmath>

#include "analyzers/flags/flags.hpp"
#include "common/strings.hpp"
#include "analyzers/flags/slow_table.hpp"

namespace perftriage::server {

using nlohmann::json;

namespace {

// Why a platform has no latest run: no run at all, or none with performance results (naming its newest run).
Error no_latest_run(schema::Store& store, const std::string& platform) {
  auto newest = schema::latest_run(store.db(), platform, schema::RunsWith::anything);
  if (!newest) return std::move(newest).error();
  if (!*newest) {
    return make_error(ErrorKind::not_found, "no_run", "no run for platform '" + platform + "'", {}, 0, "platform");
  }
  return make_error(ErrorKind::not_found, "no_performance_run",
                    "no run with performance results for platform '" + platform + "': its newest run '" +
                        (*newest)->meta.key + "' has none (reference or accuracy files only, or no row parsed)",
                    {}, 0, "platform");
}

}  // namespace

Result<std::vector<model::RunRecord>> resolve_runs(schema::Store& store, const std::string& run_key,
                                                   const std::string& platform) {
  if (!run_key.empty()) {
    PT_ASSIGN(auto run, schema::find_run(store.db(), run_key));
    if (!run) return make_error(ErrorKind::not_found, "no_run", "no run with key '" + run_key + "'", {}, 0, "run");
    if (!platform.empty() && !iequals(run->meta.platform, platform)) {
      return make_error(ErrorKind::invalid_input, "run_platform_mismatch",
                        "run '" + run_key + "' is on platform " + run->meta.platform + ", not " + platform);
    }
    return std::vector<model::RunRecord>{std::move(*run)};
  }
  if (!platform.empty()) {
    PT_ASSIGN(auto run, schema::latest_run(store.db(), platform));
    if (!run) return no_latest_run(store, platform);
    return std::vector<model::RunRecord>{std::move(*run)};
  }
  PT_ASSIGN(auto all, schema::list_runs(store.db(), {}, schema::RunsWith::performance));
  std::vector<model::RunRecord> latest;  // list_runs is newest first: keep the first of each platform
  for (auto& r : all) {
    const bool seen = std::any_of(latest.begin(), latest.end(),
                                  [&](const model::RunRecord& l) { return l.meta.platform == r.meta.platform; });
    if (!seen) latest.push_back(std::move(r));
  }
  return latest;
}

Result<std::optional<Error>> no_results_warning(schema::Store& store, const model::RunRecord& run) {
  PT_ASSIGN(const bool measured, schema::has_performance_results(store.db(), run.id));
  if (measured) return std::optional<Error>{};
  return std::optional<Error>(make_error(ErrorKind::not_found, "no_performance_results",
                                         "run '" + run.meta.key +
                                             "' has no performance results (reference or accuracy files only, or no "
                                             "row parsed): its slow table is empty because nothing was measured"));
}

Result<std::vector<model::ResultRecord>> slow_cases(schema::Store& store, const std::vector<model::RunRecord>& runs,
                                                    double threshold) {
  schema::ResultFilter filter;
  filter.flag = schema::ResultFlag::slow;
  filter.threshold = threshold;
  for (const auto& r : runs) filter.run_ids.push_back(r.id);
  if (filter.run_ids.empty()) return std::vector<model::ResultRecord>{};
  auto rows = schema::results(store.db(), filter);
  if (!rows) return rows;
  analyzers::sort_slow_cases(*rows);
  return rows;
}

Result<std::int64_t> parse_limit(const std::string& text, const char* name, std::int64_t fallback, std::int64_t max) {
  if (text.empty()) return fallback;
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v <= 0 || v > max) {
    return make_error(
        ErrorKind::invalid_input, "bad_number",
        std::string(name) + " must be an integer from 1 to " + std::to_string(max) + ", got '" + text + "'", {}, 0,
        name);
  }
  return v;
}

Result<double> parse_threshold(const std::string& text, double fallback) {
  if (text.empty()) return fallback;
  double v = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v) || v <= 0) {
    return make_error(ErrorKind::invalid_input, "bad_threshold",
                      "threshold must be a positive number, got '" + text + "'", {}, 0, "threshold");
  }
  return v;
}

json run_json(const model::RunRecord& run, const model::RunCounts& counts) {
  json env = json::parse(run.meta.environment_json, nullptr, false);
  if (env.is_discarded()) env = json::object();
  return {{"key", run.meta.key},
          {"platform", run.meta.platform},
          {"device", run.meta.device},
          {"torch_version", run.meta.torch_version},
          {"commit", run.meta.commit},
          {"created_at", run.meta.created_at},
          {"tags", run.meta.tags},
          {"environment", env},
          {"counts",
           {{"files", counts.files},
            {"rows", counts.rows},
            {"slow", counts.slow},
            {"failed", counts.failed},
            {"accuracy_failed", counts.accuracy_failed},
            {"unreliable", counts.unreliable},
            {"deviates", counts.deviates},
            {"invalid", counts.invalid}}}};
}

json file_json(const model::FileRecord& f) {
  return {{"path", f.path},
          {"format", f.format},
          {"suite", f.axes.suite},
          {"dtype", f.axes.dtype},
          {"mode", f.axes.mode},
          {"kind", f.axes.kind},
          {"device", f.axes.device},
          {"config", f.axes.config},
          {"sha256", f.sha256},
          {"size", f.size},
          {"rows", f.row_count},
          {"duplicates_dropped", f.duplicates_dropped},
          {"uploaded_at", f.uploaded_at},
          {"raw_dropped", f.raw_dropped}};
}

json result_json(const model::ResultRecord& r, double threshold) {
  auto opt = [](const auto& v) { return v ? json(*v) : json(); };
  json j = {{"run", r.run_key},
            {"platform", r.platform},
            {"source", r.source},
            {"suite", r.suite},
            {"dtype", r.dtype},
            {"mode", r.mode},
            {"kind", r.kind},
            {"config", r.config},
            {"model", r.model},
            {"line", r.line},
            {"dev", r.dev},
            {"batch_size", r.batch_size},
            {"speedup", opt(r.speedup)},
            {"speedup_text", r.speedup_text},
            {"abs_latency_ms", opt(r.abs_latency_ms)},
            {"eager_latency_ms", opt(r.eager_latency_ms)},
            {"compilation_latency_s", opt(r.compilation_latency_s)},
            {"compression_ratio", opt(r.compression_ratio)},
            {"eager_peak_mem_gb", opt(r.eager_peak_mem_gb)},
            {"dynamo_peak_mem_gb", opt(r.dynamo_peak_mem_gb)},
            {"calls_captured", opt(r.calls_captured)},
            {"unique_graphs", opt(r.unique_graphs)},
            {"graph_breaks", opt(r.graph_breaks)},
            {"unique_graph_breaks", opt(r.unique_graph_breaks)},
            {"autograd_captures", opt(r.autograd_captures)},
            {"autograd_compiles", opt(r.autograd_compiles)},
            {"cudagraph_skips", opt(r.cudagraph_skips)},
            {"fallbacks_to_eager", opt(r.fallbacks_to_eager)},
            {"accuracy", r.accuracy.empty() ? json() : json(r.accuracy)},
            {"expected_accuracy", opt(r.expected_accuracy)}};
  json flags = json::array();
  if (r.kind == "performance" && !r.failed && !r.invalid && analyzers::is_slow(r.speedup, threshold))
    flags.push_back("slow");
  if (r.failed) flags.push_back("failed");
  if (r.accuracy_failed) flags.push_back("accuracy_failed");
  if (r.unreliable) flags.push_back("unreliable");
  if (r.deviates) flags.push_back("deviates");
  if (r.invalid) flags.push_back("invalid");
  if (r.short_row) flags.push_back("short_row");
  j["flags"] = flags;
  json extra = json::parse(r.extra_json, nullptr, false);
  j["extra"] = extra.is_object() ? extra : json::object();
  return j;
}

json missing_json(const model::MissingRecord& m) {
  return {{"suite", m.suite},   {"dtype", m.dtype}, {"mode", m.mode},     {"kind", m.kind},
          {"config", m.config}, {"model", m.model}, {"reason", m.reason}, {"evidence", m.evidence}};
}

Result<RunDetail> run_detail(schema::Store& store, const std::string& key, double threshold) {
  auto& db = store.db();
  PT_ASSIGN(const auto runs, resolve_runs(store, key, {}));
  const auto& run = runs.front();
  PT_ASSIGN(const auto counts, schema::run_counts(db, run.id, threshold));
  PT_ASSIGN(const auto files, schema::run_files(db, run.id));
  PT_ASSIGN(const auto missing, schema::missing(db, run));
  PT_ASSIGN(const auto previous, schema::previous_run(db, run));
  nlohmann::json j = run_json(run, counts);
  j["files"] = nlohmann::json::array();
  for (const auto& f : files) j["files"].push_back(file_json(f));
  j["missing"] = nlohmann::json::array();
  for (const auto& m : missing) j["missing"].push_back(missing_json(m));
  j["counts"]["missing"] = missing.size();
  j["previous_run"] = previous ? nlohmann::json(previous->meta.key) : nlohmann::json();
  return RunDetail{std::move(j), run.meta.platform};
}

}  // namespace perftriage::server
