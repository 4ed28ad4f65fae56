#include "analyzers/compare/compare_render.hpp"

#include "analyzers/compare/text.hpp"

namespace perftriage::analyzers::compare {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }

json side_json(const SideSummary& s) {
  return {
      {"cases", s.cases},
      {"passing", s.passing},
      {"pass_rate", opt(s.pass_rate)},
      {"geomean_speedup",
       {{"unclipped_hud", opt(s.geomean_speedup_unclipped)}, {"clipped_at_1_runner", opt(s.geomean_speedup_clipped)}}}};
}

std::string speedup_text(const CaseSide& s) {
  if (!s.present) return "";
  return s.speedup_text.empty() ? fixed(s.speedup, 6) : s.speedup_text;
}

std::string verdict_cell(const CaseComparison& c) {
  std::string v(to_string(c.verdict));
  return c.severity.empty() ? v : v + " (" + c.severity + ")";
}

std::string aggregate_row(const std::string& label, const GroupAggregate& g) {
  return "| " + md_cell(label) + " | " + std::to_string(g.cases) + " | " + std::to_string(g.compared) + " | " +
         percent(g.base.pass_rate) + " | " + percent(g.target.pass_rate) + " | " +
         fixed(g.base.geomean_speedup_unclipped) + " | " + fixed(g.target.geomean_speedup_unclipped) + " | " +
         fixed(g.base.geomean_speedup_clipped) + " | " + fixed(g.target.geomean_speedup_clipped) + " | " +
         fixed(g.geomean_inductor_ratio) + " | " + fixed(g.geomean_eager_ratio) + " | " +
         std::to_string(g.regressions) + " | " + std::to_string(g.improvements) + " |\n";
}

}  // namespace

// Built key by key: an initializer list would first build a two-element array per key (6,000 cases a nightly).
json case_json(const CaseComparison& c) {
  const auto speed = [](const CaseSide& s) { return s.present ? opt(s.speedup) : json(); };
  json j(json::value_t::object);
  auto& o = *j.get_ptr<json::object_t*>();
  o.emplace("suite", c.key.suite);
  o.emplace("dtype", c.key.dtype);
  o.emplace("mode", c.key.mode);
  o.emplace("config", c.key.config);
  o.emplace("model", c.key.model);
  o.emplace("base_speedup", speed(c.base));
  o.emplace("target_speedup", speed(c.target));
  o.emplace("base_compiled_ms", opt(c.base.compiled_ms));
  o.emplace("target_compiled_ms", opt(c.target.compiled_ms));
  o.emplace("base_eager_ms", opt(c.base.eager_ms));
  o.emplace("target_eager_ms", opt(c.target.eager_ms));
  o.emplace("inductor_ratio", opt(c.inductor_ratio));
  o.emplace("eager_ratio", opt(c.eager_ratio));
  o.emplace("speedup_ratio", opt(c.speedup_ratio()));
  o.emplace("status_change", c.status_change.empty() ? json() : json(c.status_change));
  o.emplace("verdict", to_string(c.verdict));
  o.emplace("severity", c.severity.empty() ? json() : json(c.severity));
  o.emplace("moved", c.moved);
  return j;
}

json group_json(const GroupAggregate& g) {
  return {{"cases", g.cases},
          {"compared", g.compared},
          {"base", side_json(g.base)},
          {"target", side_json(g.target)},
          {"geomean_inductor_ratio", opt(g.geomean_inductor_ratio)},
          {"geomean_eager_ratio", opt(g.geomean_eager_ratio)},
          {"compile_latency_ratio", {{"geomean", opt(g.compile_latency_ratio)}, {"cases", g.compile_latency_cases}}},
          {"peak_memory_ratio", {{"geomean", opt(g.peak_memory_ratio)}, {"cases", g.peak_memory_cases}}},
          {"verdicts",
           {{"regression", g.regressions},
            {"red", g.red},
            {"improvement", g.improvements},
            {"unchanged", g.unchanged},
            {"new_failed", g.new_failed},
            {"new_passed", g.new_passed},
            {"missing", g.missing},
            {"new", g.added}}}};
}

json aggregates_json(const Aggregates& a) {
  json by_suite = json::object();
  for (const auto& [suite, g] : a.by_suite) by_suite[suite] = group_json(g);
  json groups = json::array();
  for (const auto& [key, g] : a.by_suite_dtype_mode) {
    json j = {{"suite", std::get<0>(key)}, {"dtype", std::get<1>(key)}, {"mode", std::get<2>(key)}};
    j.update(group_json(g));
    groups.push_back(std::move(j));
  }
  return {{"conventions",
           {{"set",
             "cases present and passing on both sides (HUD pass rule: accuracy pass, pass_due_to_skip or "
             "eager_variation, speedup != 0); pass_rate is passing / cases of each side"},
            {"unclipped_hud", "geometric mean of speedup, not clipped (PyTorch HUD)"},
            {"clipped_at_1_runner", "geometric mean of max(speedup, 1) (runner.py, inductor_summary.py)"},
            {"ratios", "base latency / target latency (< 1 = target slower), perf_comparison.py"}}},
          {"overall", group_json(a.overall)},
          {"by_suite", by_suite},
          {"by_suite_dtype_mode", groups}};
}

json thresholds_json(const Thresholds& t) {
  return {{"regression", t.regression}, {"red", t.red}, {"improvement", t.improvement}};
}

json compare_json(const std::string& base_key, const std::string& target_key, const Thresholds& t,
                  const std::vector<CaseComparison>& cases, const Aggregates& aggregates) {
  json list(json::value_t::array);
  auto& items = *list.get_ptr<json::array_t*>();
  items.reserve(cases.size());
  for (const auto& c : cases) items.push_back(case_json(c));
  return {{"base", base_key},
          {"target", target_key},
          {"thresholds", thresholds_json(t)},
          {"aggregates", aggregates_json(aggregates)},
          {"cases", std::move(list)}};
}

std::string case_table_markdown(const std::vector<const CaseComparison*>& cases) {
  std::string out =
      "| suite | dtype | mode | model | base speedup | target speedup | inductor ratio | eager ratio | "
      "verdict | moved |\n|---|---|---|---|---:|---:|---:|---:|---|---|\n";
  for (const auto* c : cases) {
    out += "| " + md_cell(c->key.suite) + " | " + md_cell(c->key.dtype) + " | " + md_cell(c->key.mode) + " | " +
           md_cell(c->key.config.empty() ? c->key.model : c->key.model + " [" + c->key.config + "]") + " | " +
           speedup_text(c->base) + " | " + speedup_text(c->target) + " | " + fixed(c->inductor_ratio) + " | " +
           fixed(c->eager_ratio) + " | " + verdict_cell(*c) + " | " + md_cell(join(c->moved, ", ")) + " |\n";
  }
  return out;
}

std::string compare_markdown(const std::string& base_key, const std::string& target_key, const Thresholds& t,
                             const std::vector<CaseComparison>& cases, const Aggregates& aggregates) {
  std::string out = "## Compare: " + md_cell(base_key) + " → " + md_cell(target_key) + "\n\n";
  out += "Ratio = base latency / target latency per path (< 1 = target slower). Regression: either ratio < " +
         fixed(t.regression, 2) + " (red < " + fixed(t.red, 2) + "); improvement: either ratio > " +
         fixed(t.improvement, 2) + ".\n\n";
  out +=
      "### Aggregates\n\nGeomeans over the cases present and passing on both sides. Speedup geomean: HUD = "
      "unclipped; runner.py = clipped at 1.\n\n";
  out +=
      "| group | cases | compared | base pass rate | target pass rate | base speedup (HUD) | target speedup (HUD) | "
      "base speedup (runner.py) | target speedup (runner.py) | inductor ratio | eager ratio | regressions | "
      "improvements |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  out += aggregate_row("overall", aggregates.overall);
  for (const auto& [suite, g] : aggregates.by_suite) out += aggregate_row(suite, g);
  for (const auto& [key, g] : aggregates.by_suite_dtype_mode) {
    out += aggregate_row(std::get<0>(key) + " " + std::get<1>(key) + " " + std::get<2>(key), g);
  }
  std::vector<const CaseComparison*> changed;
  for (const auto& c : cases) {
    if (c.verdict != Verdict::unchanged) changed.push_back(&c);
  }
  out += "\n### Changed cases (" + std::to_string(changed.size()) + " of " + std::to_string(cases.size()) +
         "; unchanged cases omitted)\n\n";
  out += case_table_markdown(changed);
  return out;
}

std::string compare_csv(const std::vector<CaseComparison>& cases) {
  std::string out =
      "suite,dtype,mode,config,model,base_speedup,target_speedup,inductor_ratio,eager_ratio,"
      "status_change,verdict,severity,moved\n";
  for (const auto& c : cases) {
    out += csv_cell(c.key.suite) + "," + csv_cell(c.key.dtype) + "," + csv_cell(c.key.mode) + "," +
           csv_cell(c.key.config) + "," + csv_cell(c.key.model) + "," + speedup_text(c.base) + "," +
           speedup_text(c.target) + "," + fixed(c.inductor_ratio, 6) + "," + fixed(c.eager_ratio, 6) + "," +
           c.status_change + "," + std::string(to_string(c.verdict)) + "," + c.severity + "," +
           csv_cell(join(c.moved, "; ")) + "\n";
  }
  return out;
}

}  // namespace perftriage::analyzers::compare
