#include "analyzers/compare/compare_render.hpp"

#include <optional>
#include <string_view>

#include "analyzers/compare/text.hpp"
#include "common/json_writer.hpp"

namespace perftriage::analyzers::compare {
namespace {

std::string speedup_text(const CaseSide& s) {
  if (!s.present) return "";
  return s.speedup_text.empty() ? fixed(s.speedup, 6) : s.speedup_text;
}

std::string change_names(const std::vector<Change>& changes) {
  std::string out;
  for (const Change c : changes) {
    if (!out.empty()) out += ' ';
    out += to_string(c);
  }
  return out;
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
         fixed(g.base.mean_compilation_s, 1) + " | " + fixed(g.target.mean_compilation_s, 1) + " | " +
         fixed(g.base.geomean_compression_ratio, 2) + " | " + fixed(g.target.geomean_compression_ratio, 2) + " | " +
         std::to_string(g.regressions) + " | " + std::to_string(g.improvements) + " |\n";
}

// Each object's keys are written in byte order: the order the body had when it was an nlohmann::json document (a
// std::map), which clients and the tests see. tests/analyzers/compare checks it by dumping the parsed body again.
void write_case(JsonWriter& w, const CaseComparison& c) {
  const auto speed = [](const CaseSide& s) { return s.present ? s.speedup : std::nullopt; };
  const auto text_or_null = [&](std::string_view name, const std::string& v) {
    if (v.empty()) {
      w.key(name).null();
    } else {
      w.member(name, v);
    }
  };
  w.begin_object();
  w.member("base_compiled_ms", c.base.compiled_ms).member("base_eager_ms", c.base.eager_ms);
  w.member("base_speedup", speed(c.base));
  w.key("changes").begin_array();
  for (const Change ch : c.changes) {
    w.begin_object().member("change", to_string(ch)).member("dimension", dimension_of(ch));
    w.member("worse", is_worse(ch)).end_object();
  }
  w.end_array();
  w.member("compile_ratio", c.compile_ratio).member("config", c.key.config).member("dtype", c.key.dtype);
  w.member("eager_ratio", c.eager_ratio).member("inductor_ratio", c.inductor_ratio);
  w.member("memory_ratio", c.memory_ratio).member("mode", c.key.mode).member("model", c.key.model);
  w.key("moved").begin_array();
  for (const auto& m : c.moved) w.string(m);
  w.end_array();
  text_or_null("severity", c.severity);
  w.member("speedup_ratio", c.speedup_ratio());
  text_or_null("status_change", c.status_change);
  w.member("suite", c.key.suite);
  w.member("target_compiled_ms", c.target.compiled_ms).member("target_eager_ms", c.target.eager_ms);
  w.member("target_speedup", speed(c.target)).member("verdict", to_string(c.verdict));
  w.end_object();
}

void write_side(JsonWriter& w, std::string_view name, const SideSummary& s) {
  w.key(name).begin_object().member("cases", s.cases);
  w.member("geomean_compression_ratio", s.geomean_compression_ratio);
  w.key("geomean_speedup").begin_object();
  w.member("clipped_at_1_runner", s.geomean_speedup_clipped).member("unclipped_hud", s.geomean_speedup_unclipped);
  w.end_object();
  w.member("mean_compilation_s", s.mean_compilation_s);
  w.member("pass_rate", s.pass_rate).member("passing", s.passing).end_object();
}

void write_ratio(JsonWriter& w, std::string_view name, const std::optional<double>& geomean, std::int64_t cases) {
  w.key(name).begin_object().member("cases", cases).member("geomean", geomean).end_object();
}

void write_verdicts(JsonWriter& w, const GroupAggregate& g) {
  w.key("verdicts").begin_object();
  w.member("improvement", g.improvements).member("missing", g.missing).member("new", g.added);
  w.member("new_failed", g.new_failed).member("new_passed", g.new_passed).member("red", g.red);
  w.member("regression", g.regressions).member("unchanged", g.unchanged);
  w.end_object();
}

// The members of one group; `where` (suite, dtype, mode) goes in among them for the by_suite_dtype_mode entries.
void write_group(JsonWriter& w, const GroupAggregate& g, const SuiteDtypeMode* where = nullptr) {
  w.begin_object();
  write_side(w, "base", g.base);
  w.member("cases", g.cases).member("compared", g.compared);
  write_ratio(w, "compile_latency_ratio", g.compile_latency_ratio, g.compile_latency_cases);
  if (where) w.member("dtype", std::get<1>(*where));
  w.member("geomean_eager_ratio", g.geomean_eager_ratio).member("geomean_inductor_ratio", g.geomean_inductor_ratio);
  if (where) w.member("mode", std::get<2>(*where));
  write_ratio(w, "peak_memory_ratio", g.peak_memory_ratio, g.peak_memory_cases);
  if (where) w.member("suite", std::get<0>(*where));
  write_side(w, "target", g.target);
  write_verdicts(w, g);
  w.end_object();
}

void write_aggregates(JsonWriter& w, const Aggregates& a) {
  w.begin_object();
  w.key("by_suite").begin_object();
  for (const auto& [suite, g] : a.by_suite) write_group(w.key(suite), g);
  w.end_object();
  w.key("by_suite_dtype_mode").begin_array();
  for (const auto& [key, g] : a.by_suite_dtype_mode) write_group(w, g, &key);
  w.end_array();
  w.key("conventions").begin_object();
  w.member("clipped_at_1_runner", "geometric mean of max(speedup, 1) (runner.py, inductor_summary.py)");
  w.member("ratios", "base latency / target latency (< 1 = target slower), perf_comparison.py");
  w.member("set",
           "cases present and passing on both sides (HUD pass rule: accuracy pass, pass_due_to_skip or "
           "eager_variation, speedup != 0); pass_rate is passing / cases of each side");
  w.member("unclipped_hud", "geometric mean of speedup, not clipped (PyTorch HUD)");
  w.end_object();
  w.key("overall");
  write_group(w, a.overall);
  w.end_object();
}

}  // namespace

std::string compare_json_text(const std::string& base_key, const std::string& target_key, const Thresholds& t,
                              const std::vector<CaseComparison>& cases, const Aggregates& aggregates) {
  JsonWriter w(4096 + cases.size() * 512);  // a case is about 480 bytes
  w.begin_object();
  w.key("aggregates");
  write_aggregates(w, aggregates);
  w.member("base", base_key);
  w.key("cases").begin_array();
  for (const auto& c : cases) write_case(w, c);
  w.end_array();
  w.member("target", target_key);
  w.key("thresholds").begin_object();
  w.member("compile_improvement", t.compile_improvement).member("compile_regression", t.compile_regression);
  w.member("improvement", t.improvement).member("memory_improvement", t.memory_improvement);
  w.member("memory_regression", t.memory_regression).member("red", t.red).member("regression", t.regression);
  w.end_object();
  w.end_object();
  return w.take();
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
  out +=
      "Ratio = base latency / target latency per path (< 1 = target slower). Regression: anything tracked got "
      "worse: now slower than eager, the speedup or either latency ratio < " +
      fixed(t.regression, 2) + " (red < " + fixed(t.red, 2) + ", or now slower than eager), compile time ratio < " +
      fixed(t.compile_regression, 2) + ", memory compression ratio < " + fixed(t.memory_regression, 2) +
      "; improvement: something got better (above " + fixed(t.improvement, 2) + ", compile " +
      fixed(t.compile_improvement, 2) + ", memory " + fixed(t.memory_improvement, 2) +
      ") and nothing worse (docs/verdicts.md).\n\n";
  out +=
      "### Aggregates\n\nGeomeans over the cases present and passing on both sides. Speedup geomean: HUD = "
      "unclipped; runner.py = clipped at 1.\n\n";
  out +=
      "| group | cases | compared | base pass rate | target pass rate | base speedup (HUD) | target speedup (HUD) | "
      "base speedup (runner.py) | target speedup (runner.py) | inductor ratio | eager ratio | base compile s | "
      "target compile s | base compression | target compression | regressions | improvements |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
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
      "status_change,verdict,severity,moved,compile_ratio,memory_ratio,changes\n";
  for (const auto& c : cases) {
    out += csv_cell(c.key.suite) + "," + csv_cell(c.key.dtype) + "," + csv_cell(c.key.mode) + "," +
           csv_cell(c.key.config) + "," + csv_cell(c.key.model) + "," + speedup_text(c.base) + "," +
           speedup_text(c.target) + "," + fixed(c.inductor_ratio, 6) + "," + fixed(c.eager_ratio, 6) + "," +
           c.status_change + "," + std::string(to_string(c.verdict)) + "," + c.severity + "," +
           csv_cell(join(c.moved, "; ")) + "," + fixed(c.compile_ratio, 6) + "," + fixed(c.memory_ratio, 6) + "," +
           csv_cell(change_names(c.changes)) + "\n";
  }
  return out;
}

}  // namespace perftriage::analyzers::compare
