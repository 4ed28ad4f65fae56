#include "analyzers/compare/report.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyzers/compare/compare_render.hpp"
#include "analyzers/compare/grouping.hpp"
#include "analyzers/compare/text.hpp"
#include "analyzers/flags/slow_table.hpp"

namespace perftriage::analyzers::compare {
namespace {

std::string platform_line(const std::string& platform) {
  static const std::map<std::string, std::string> kNames = {{"BMG", "Battlemage"},  {"PVC", "Ponte Vecchio"},
                                                            {"LNL", "Lunar Lake"},  {"ARL", "Arrow Lake"},
                                                            {"MTL", "Meteor Lake"}, {"ACM", "Alchemist"}};
  const auto it = kNames.find(platform);
  return it == kNames.end() ? platform : platform + " (" + it->second + ")";
}

bool is_release(const model::RunRecord& run) {
  return std::any_of(run.meta.tags.begin(), run.meta.tags.end(),
                     [](const std::string& t) { return t.rfind("release", 0) == 0; });
}

// "PyTorch 2.12" or, without a parsable torch version, "run KEY".
std::string pytorch_name(const model::RunRecord& run) {
  const auto label = release_label(run.meta.torch_version);
  return label.empty() ? "run " + run.meta.key : "PyTorch " + label;
}

std::string threshold_text(double threshold) { return fmt::format("{:g}", threshold); }

// "inference workloads (10 of 11 cases)" for the biggest share of one axis.
template <class Field>
std::pair<std::string, std::size_t> biggest(const std::vector<model::ResultRecord>& rows, Field field) {
  std::map<std::string, std::size_t> counts;
  for (const auto& r : rows) ++counts[field(r)];
  auto best =
      std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return *best;
}

std::string slow_notes(const std::vector<model::ResultRecord>& rows) {
  if (rows.empty()) return "- No case is slower than eager in this run.\n";
  const std::size_t n = rows.size();
  std::string out;
  const auto [mode, in_mode] = biggest(rows, [](const model::ResultRecord& r) { return r.mode; });
  const auto [suite_mode, in_suite_mode] =
      biggest(rows, [](const model::ResultRecord& r) { return r.suite + " " + r.mode; });
  out += fmt::format("- The pattern is concentrated in {} workloads ({} of {} cases), especially {} ({} cases).\n",
                     mode, in_mode, n, suite_mode, in_suite_mode);
  const auto [suite, in_suite] = biggest(rows, [](const model::ResultRecord& r) { return r.suite; });
  out += fmt::format("- By suite: {} has {} of {} cases.\n", suite, in_suite, n);
  std::vector<CaseKey> keys;
  for (const auto& r : rows) keys.push_back({r.suite, r.dtype, r.mode, r.config, r.model});
  for (const auto& p : find_patterns(keys)) {
    if (p.kind == "suite_mode") continue;
    const char* what = p.kind == "model_across_dtypes" ? "same model in several dtypes/modes"
                       : p.kind == "family"            ? "one model family"
                                                       : "one task head";
    out += std::string("- ") + what + ": " + md_cell(p.label) + " (" + std::to_string(p.members.size()) + " cases).\n";
  }
  out += "- Failed rows (speedup 0) are failures, not slow cases, and are not listed.\n";
  return out;
}

std::string verdict_counts(const GroupAggregate& g) {
  return fmt::format(
      "- Regressions: {} (red: {}); improvements: {}; unchanged: {}\n"
      "- New failures: {}; new passes: {}; missing in the target: {}; new in the target: {}\n",
      g.regressions, g.red, g.improvements, g.unchanged, g.new_failed, g.new_passed, g.missing, g.added);
}

std::string geomean_table(const Aggregates& a) {
  std::string out =
      "| group | compared | inductor ratio | eager ratio | base speedup (HUD, unclipped) | "
      "target speedup (HUD, unclipped) | base speedup (runner.py, clipped at 1) | "
      "target speedup (runner.py, clipped at 1) | base compile s (mean) | target compile s (mean) | "
      "base memory compression (geomean) | target memory compression (geomean) |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  auto row = [&](const std::string& label, const GroupAggregate& g) {
    out += "| " + md_cell(label) + " | " + std::to_string(g.compared) + " | " + fixed(g.geomean_inductor_ratio) +
           " | " + fixed(g.geomean_eager_ratio) + " | " + fixed(g.base.geomean_speedup_unclipped) + " | " +
           fixed(g.target.geomean_speedup_unclipped) + " | " + fixed(g.base.geomean_speedup_clipped) + " | " +
           fixed(g.target.geomean_speedup_clipped) + " | " + fixed(g.base.mean_compilation_s, 1) + " | " +
           fixed(g.target.mean_compilation_s, 1) + " | " + fixed(g.base.geomean_compression_ratio, 2) + " | " +
           fixed(g.target.geomean_compression_ratio, 2) + " |\n";
  };
  row("overall", a.overall);
  for (const auto& [suite, g] : a.by_suite) row(suite, g);
  return out;
}

std::string section(const std::string& heading, const std::vector<const CaseComparison*>& cases) {
  return "## " + heading + ": " + std::to_string(cases.size()) + "\n\n" +
         (cases.empty() ? std::string("None.\n") : case_table_markdown(cases)) + "\n";
}

std::string pattern_sections(const std::string& heading, const std::string& kind,
                             const std::vector<const CaseComparison*>& regressions) {
  std::vector<CaseKey> keys;
  for (const auto* c : regressions) keys.push_back(c->key);
  std::string body;
  std::size_t count = 0;
  for (const auto& p : find_patterns(keys)) {
    if (p.kind != kind && !(kind == "family" && p.kind == "task_head")) continue;
    ++count;
    std::vector<const CaseComparison*> members;
    for (auto i : p.members) members.push_back(regressions[i]);
    body += "### " + md_cell(p.label) + " — " + std::to_string(members.size()) + " cases\n\n" +
            case_table_markdown(members) + "\n";
  }
  return "## " + heading + ": " + std::to_string(count) + "\n\n" + (count ? body : std::string("None.\n\n"));
}

}  // namespace

std::string release_label(std::string_view v) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t start = i;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
    return i > start;
  };
  if (!digits() || i >= v.size() || v[i] != '.') return {};
  ++i;
  if (!digits()) return {};
  return std::string(v.substr(0, i));
}

std::string environment_line(const std::string& environment_json) {
  const auto env = nlohmann::json::parse(environment_json, nullptr, false);
  if (!env.is_object()) return {};
  std::vector<std::string> parts;
  auto text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  if (env.contains("os") && !text(env["os"]).empty()) parts.push_back(text(env["os"]));
  for (const auto& [name, value] : env.items()) {
    if (name != "os") parts.push_back(name + " " + text(value));
  }
  return join(parts, ", ");
}

std::string slow_report_title(const model::RunRecord& run, double threshold) {
  return "[" + run.meta.platform + "] " + pytorch_name(run) +
         " performance cases where inductor is slower than eager (speedup < " + threshold_text(threshold) + ")";
}

std::string slow_report_markdown(const model::RunRecord& run, const std::vector<model::ResultRecord>& rows,
                                 double threshold) {
  const std::string name = pytorch_name(run);
  const std::string kind = is_release(run) ? " release" : "";
  const std::string below = "speedup < " + threshold_text(threshold);
  std::string out = slow_report_title(run, threshold) + "\n\n## Summary\n\n";
  out += fmt::format("{} {}{} performance results contain {} case{} where inductor is slower than eager ({}).\n\n",
                     run.meta.platform, name, kind, rows.size(), rows.size() == 1 ? "" : "s", below);
  out += fmt::format("These are {}{} performance results collected from the raw performance artifacts (run `{}`):\n\n",
                     name, kind, run.meta.key);
  out += "- Platform: " + platform_line(run.meta.platform) + "\n";
  if (!run.meta.torch_version.empty()) out += "- PyTorch: torch " + run.meta.torch_version + "\n";
  if (const auto env = environment_line(run.meta.environment_json); !env.empty()) out += "- Environment: " + env + "\n";
  out += "\n## Representative Cases\n\n";
  out += fmt::format(
      "The rows below come directly from the raw {} performance CSVs and show {}, which means inductor "
      "is slower than eager on the same workload.\n\n",
      name, below);
  out += slow_table_markdown(rows);
  out += "\n## Notes\n\n" + slow_notes(rows);
  out += fmt::format(
      "\n## Ask\n\nPlease review these {} {} cases and track the inductor performance gaps where eager "
      "is still faster than inductor.\n",
      run.meta.platform, name);
  return out;
}

std::string regression_report_title(const model::RunRecord& base, const model::RunRecord& target,
                                    std::size_t regressions) {
  const auto b = release_label(base.meta.torch_version), t = release_label(target.meta.torch_version);
  const std::string versus =
      !b.empty() && !t.empty() && b != t ? "release " + t + " vs " + b : target.meta.key + " vs " + base.meta.key;
  return fmt::format("[{}] {} E2E inductor performance regression{}: {}", target.meta.platform, regressions,
                     regressions == 1 ? "" : "s", versus);
}

std::string regression_report_markdown(const model::RunRecord& base, const model::RunRecord& target,
                                       const std::vector<CaseComparison>& cases, const Aggregates& aggregates,
                                       const Thresholds& t) {
  std::vector<const CaseComparison*> regressions, slower_than_eager, speedup, inductor_path, eager_path, compile_time,
      memory, new_failed;
  const auto has = [](const CaseComparison& c, Change ch) {
    return std::find(c.changes.begin(), c.changes.end(), ch) != c.changes.end();
  };
  for (const auto& c : cases) {
    if (c.verdict == Verdict::new_failed) new_failed.push_back(&c);
    if (c.verdict != Verdict::regression) continue;
    regressions.push_back(&c);
    if (has(c, Change::newly_slower_than_eager)) slower_than_eager.push_back(&c);
    if (has(c, Change::speedup_dropped) && !has(c, Change::compiled_slower)) speedup.push_back(&c);
    if (has(c, Change::compiled_slower)) inductor_path.push_back(&c);
    if (has(c, Change::eager_slower)) eager_path.push_back(&c);
    if (has(c, Change::compile_slower)) compile_time.push_back(&c);
    if (has(c, Change::memory_worse)) memory.push_back(&c);
  }
  auto worst_first = [](const CaseComparison* a, const CaseComparison* b) {
    const double ra = std::min(a->inductor_ratio.value_or(1), a->eager_ratio.value_or(1));
    const double rb = std::min(b->inductor_ratio.value_or(1), b->eager_ratio.value_or(1));
    return ra < rb || (ra == rb && a->key < b->key);
  };
  for (auto* list : {&slower_than_eager, &speedup, &inductor_path, &eager_path}) {
    std::stable_sort(list->begin(), list->end(), worst_first);
  }

  auto run_line = [](const char* role, const model::RunRecord& r) {
    std::string s = fmt::format("- {}: `{}`", role, r.meta.key);
    if (!r.meta.torch_version.empty()) s += " (torch " + r.meta.torch_version + ")";
    return s + "\n";
  };
  std::string out = regression_report_title(base, target, regressions.size()) + "\n\n## Summary\n\n";
  out += "- Platform: " + platform_line(target.meta.platform) + "\n";
  out += run_line("Baseline", base) + run_line("Target", target);
  out += fmt::format(
      "- Method (torch-xpu-ops perf_comparison.py): ratio = baseline latency / target latency for the "
      "inductor path and for the eager path (< 1 = target slower); a case regressed when anything tracked got "
      "worse (docs/verdicts.md): it became slower than eager, the speedup or either ratio < {} (red below {}), "
      "compile time ratio < {}, memory compression ratio < {}; improvement only when something got better and "
      "nothing worse.\n",
      fixed(t.regression, 2), fixed(t.red, 2), fixed(t.compile_regression, 2), fixed(t.memory_regression, 2));
  out += verdict_counts(aggregates.overall);
  out += "\n### Geomeans (cases present and passing on both sides)\n\n" + geomean_table(aggregates) + "\n";
  out += section("Now slower than eager (speedup was >= 1, is < 1)", slower_than_eager);
  out += section("Speedup lost while the compiled path held (eager got faster, inductor did not follow)", speedup);
  out += section("Inductor-path regressions (compiled got slower)", inductor_path);
  out += section("Eager-path regressions (eager got slower)", eager_path);
  out += section("Compile-time regressions (compiles slower)", compile_time);
  out += section("Memory regressions (peak-memory compression ratio down)", memory);
  out += pattern_sections("Regressions sharing one model across dtypes", "model_across_dtypes", regressions);
  out += pattern_sections("Regressions in one family of models", "family", regressions);
  out += section("New failures", new_failed);
  return out;
}

}  // namespace perftriage::analyzers::compare
