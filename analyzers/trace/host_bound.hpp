#pragma once
// host_bound verdict (after HolisticTraceAnalysis): busy fraction, idle split, kernel vs launch durations.
#include <nlohmann/json.hpp>

#include "analyzers/trace/classify.hpp"
#include "analyzers/trace/census.hpp"
#include "analyzers/trace/trace_model.hpp"

namespace perftriage::analyzers::trace {

struct HostStats {
  std::int64_t kernels = 0;
  double span_us = 0;  // last device activity end - first start
  double busy_us = 0;  // merged device activity (kernels + memcpy + memset)
  double busy_fraction = 0;
  double kernel_busy_fraction = 0;  // kernels only
  double idle_us = 0;
  double host_wait_us = 0;     // gaps whose next kernel's launch call started after the device went idle
  double other_idle_us = 0;    // gaps whose next kernel was launched before the device went idle
  double unattributed_us = 0;  // gaps whose next activity has no launch call in the trace
  std::int64_t gaps = 0;
  double median_kernel_us = 0;
  double median_launch_us = 0;
  double median_launch_delay_us = 0;
  std::int64_t joined_launches = 0;
};

[[nodiscard]] HostStats host_stats(const TraceModel& model);
[[nodiscard]] nlohmann::json host_bound_finding(const HostStats& stats, const TraceModel& model,
                                                const ClassifyOptions& options);

}  // namespace perftriage::analyzers::trace
