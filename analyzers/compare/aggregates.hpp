#pragma once
// Summary numbers of a comparison, overall, per suite and per suite+dtype+mode. Geomeans are taken over the
// cases present and passing on BOTH sides only (perf_comparison.py), and the speedup geomean is given in both
// peer conventions: unclipped (PyTorch HUD) and clipped at 1 (runner.py / inductor_summary.py).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "analyzers/compare/case_compare.hpp"

namespace perftriage::analyzers::compare {

// exp(mean(log x)); nullopt for an empty set or a value <= 0.
std::optional<double> geomean(const std::vector<double>& values);
// runner.py: every value below `floor` counts as `floor` (slowdowns count as 1).
std::optional<double> geomean_clipped(const std::vector<double>& values, double floor = 1.0);

struct SideSummary {
  std::int64_t cases = 0;                           // cases with a performance row on this side
  std::int64_t passing = 0;                         // of those, passing (HUD rule)
  std::optional<double> pass_rate;                  // passing / cases (HUD)
  std::optional<double> geomean_speedup_unclipped;  // HUD, over the cases passing on both sides
  std::optional<double> geomean_speedup_clipped;    // runner.py (clipped at 1), same cases
  // HUD's other two headline metrics, over the same cases where measured: mean compilation seconds, and the geomean
  // of the peak-memory compression ratio (eager peak / compiled peak: higher is better).
  std::optional<double> mean_compilation_s;
  std::optional<double> geomean_compression_ratio;
};

struct GroupAggregate {
  std::int64_t cases = 0;     // cases on either side
  std::int64_t compared = 0;  // present and passing on both sides: the set every geomean below is over
  SideSummary base, target;
  std::optional<double> geomean_inductor_ratio, geomean_eager_ratio;
  std::optional<double> compile_latency_ratio;  // base / target compilation seconds, where both measured
  std::int64_t compile_latency_cases = 0;
  std::optional<double> peak_memory_ratio;  // base / target compiled peak memory, where both measured
  std::int64_t peak_memory_cases = 0;
  std::int64_t regressions = 0, red = 0, improvements = 0, unchanged = 0, new_failed = 0, new_passed = 0, missing = 0,
               added = 0;
};

using SuiteDtypeMode = std::tuple<std::string, std::string, std::string>;

struct Aggregates {
  GroupAggregate overall;
  std::map<std::string, GroupAggregate> by_suite;
  std::map<SuiteDtypeMode, GroupAggregate> by_suite_dtype_mode;
};

GroupAggregate aggregate_group(const std::vector<const CaseComparison*>& cases);
Aggregates aggregate(const std::vector<CaseComparison>& cases);

}  // namespace perftriage::analyzers::compare
