#pragma once
// attention verdict: fused | math_fallback | unfused | none, with the ops and kernels that decided it.
#include <nlohmann/json.hpp>

#include "analyzers/trace/census.hpp"
#include "analyzers/trace/trace_model.hpp"

namespace perftriage::analyzers::trace {

[[nodiscard]] nlohmann::json attention_finding(const TraceModel& model, const Census& census);

}  // namespace perftriage::analyzers::trace
