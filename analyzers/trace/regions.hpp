#pragma once
// Kernel census per record_function region (ProfilerStep#N, the harness's eager / compiled regions):
// each device kernel is attributed to the innermost user_annotation range open at its launch.
#include <nlohmann/json.hpp>

#include "analyzers/trace/census.hpp"
#include "analyzers/trace/trace_model.hpp"

namespace perftriage::analyzers::trace {

inline constexpr std::size_t kMaxRegionRows = 64;  // distinct region names reported, in order of first use

// [{"name", "occurrences", "kernels", "kernel_time_us", "evidence"}]; kernels outside every region are
// reported under "(outside regions)" when some kernels are inside one. Empty when the trace has no regions.
[[nodiscard]] nlohmann::json region_census(const Census& census, const TraceModel& model);

}  // namespace perftriage::analyzers::trace
