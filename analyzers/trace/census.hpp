#pragma once
// Kernel census: device activities by class and by evidence group, and the evidence line.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/trace/kernel_names.hpp"
#include "analyzers/trace/trace_model.hpp"

namespace perftriage::analyzers::trace {

struct GroupStat {
  KernelClass cls = KernelClass::other;
  std::int64_t count = 0;
  double time_us = 0;
};

struct Census {
  std::int64_t device_kernels = 0;  // events of cat kernel / Kernel
  double kernel_time_us = 0;
  std::array<std::int64_t, kKernelClassCount> class_count{};
  std::array<double, kKernelClassCount> class_time_us{};
  std::map<std::string, GroupStat> groups;  // "gemm", "flash_fwd", "triton safe_softmax_add", ...
  std::map<std::string, std::int64_t> triton_kinds;
  std::vector<KernelInfo> info;  // per TraceModel::names id
  std::int64_t fused_attention_kernels = 0;
  std::int64_t reference_sdpa_kernels = 0;
  std::int64_t triton_safe_softmax_kernels = 0;
  std::int64_t softmax_forward_kernels = 0;  // non-log forward softmax (eager or triton)
  std::int64_t log_softmax_kernels = 0;
};

[[nodiscard]] Census build_census(const TraceModel& model);
[[nodiscard]] nlohmann::json census_json(const Census& census, const TraceModel& model);

// "121 gemm + 12 triton safe_softmax_add + 6 micro_sdpa" from a census "groups" object
// ({label: {"class", "count", "time_us"}}). attention_only keeps gemm, softmax and fused-attention groups.
[[nodiscard]] std::string evidence_line(const nlohmann::json& groups, bool attention_only, std::size_t max_terms = 12);

}  // namespace perftriage::analyzers::trace
