#include "analyzers/compare/aggregates.hpp"

#include <algorithm>
#include <cmath>

namespace perftriage::analyzers::compare {
namespace {

bool positive(const std::optional<double>& v) { return v && std::isfinite(*v) && *v > 0; }

SideSummary summarize_side(const std::vector<const CaseComparison*>& cases, bool base_side) {
  SideSummary s;
  std::vector<double> speedups, compression;
  double compile_sum = 0;
  std::size_t compiles = 0;
  for (const auto* c : cases) {
    const CaseSide& side = base_side ? c->base : c->target;
    if (!side.present) continue;
    ++s.cases;
    if (side.passing()) ++s.passing;
    if (!c->both_passing()) continue;
    speedups.push_back(*side.speedup);
    if (positive(side.compression_ratio)) compression.push_back(*side.compression_ratio);
    if (positive(side.compilation_s)) {
      compile_sum += *side.compilation_s;
      ++compiles;
    }
  }
  if (s.cases > 0) s.pass_rate = static_cast<double>(s.passing) / static_cast<double>(s.cases);
  s.geomean_speedup_unclipped = geomean(speedups);
  s.geomean_speedup_clipped = geomean_clipped(speedups);
  if (compiles > 0) s.mean_compilation_s = compile_sum / static_cast<double>(compiles);
  s.geomean_compression_ratio = geomean(compression);
  return s;
}

void count_verdict(GroupAggregate& g, const CaseComparison& c) {
  switch (c.verdict) {
    case Verdict::regression:
      ++g.regressions;
      if (c.severity == "red") ++g.red;
      break;
    case Verdict::improvement: ++g.improvements; break;
    case Verdict::unchanged: ++g.unchanged; break;
    case Verdict::new_failed: ++g.new_failed; break;
    case Verdict::new_passed: ++g.new_passed; break;
    case Verdict::missing: ++g.missing; break;
    case Verdict::added: ++g.added; break;
  }
}

}  // namespace

std::optional<double> geomean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double sum = 0;
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
    sum += std::log(v);
  }
  return std::exp(sum / static_cast<double>(values.size()));
}

std::optional<double> geomean_clipped(const std::vector<double>& values, double floor) {
  std::vector<double> clipped(values.size());
  std::transform(values.begin(), values.end(), clipped.begin(), [&](double v) { return std::max(v, floor); });
  return geomean(clipped);
}

GroupAggregate aggregate_group(const std::vector<const CaseComparison*>& cases) {
  GroupAggregate g;
  g.cases = static_cast<std::int64_t>(cases.size());
  std::vector<double> inductor, eager, compile, memory;
  for (const auto* c : cases) {
    count_verdict(g, *c);
    if (!c->both_passing()) continue;
    ++g.compared;
    if (c->inductor_ratio) inductor.push_back(*c->inductor_ratio);
    if (c->eager_ratio) eager.push_back(*c->eager_ratio);
    if (positive(c->base.compilation_s) && positive(c->target.compilation_s)) {
      compile.push_back(*c->base.compilation_s / *c->target.compilation_s);
    }
    if (positive(c->base.dynamo_peak_mem_gb) && positive(c->target.dynamo_peak_mem_gb)) {
      memory.push_back(*c->base.dynamo_peak_mem_gb / *c->target.dynamo_peak_mem_gb);
    }
  }
  g.base = summarize_side(cases, true);
  g.target = summarize_side(cases, false);
  g.geomean_inductor_ratio = geomean(inductor);
  g.geomean_eager_ratio = geomean(eager);
  g.compile_latency_ratio = geomean(compile);
  g.compile_latency_cases = static_cast<std::int64_t>(compile.size());
  g.peak_memory_ratio = geomean(memory);
  g.peak_memory_cases = static_cast<std::int64_t>(memory.size());
  return g;
}

Aggregates aggregate(const std::vector<CaseComparison>& cases) {
  std::vector<const CaseComparison*> all;
  std::map<std::string, std::vector<const CaseComparison*>> suites;
  std::map<SuiteDtypeMode, std::vector<const CaseComparison*>> groups;
  all.reserve(cases.size());
  for (const auto& c : cases) {
    all.push_back(&c);
    suites[c.key.suite].push_back(&c);
    groups[{c.key.suite, c.key.dtype, c.key.mode}].push_back(&c);
  }
  Aggregates out;
  out.overall = aggregate_group(all);
  for (const auto& [suite, members] : suites) out.by_suite.emplace(suite, aggregate_group(members));
  for (const auto& [key, members] : groups) out.by_suite_dtype_mode.emplace(key, aggregate_group(members));
  return out;
}

}  // namespace perftriage::analyzers::compare
