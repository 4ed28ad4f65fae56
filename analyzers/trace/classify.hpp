#pragma once
// Kernel-trace and compile-log classifiers: bytes in, findings out.
// Pure code: no I/O except classify_file reading its one file; errors are values, nothing throws.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.hpp"

namespace perftriage::analyzers::trace {

struct ClassifyOptions {
  // --- input limits (gzip bombs, huge uploads) ---
  std::uint64_t max_decompressed_bytes = 4ULL << 30;  // refuse a gzip that inflates past this (4 GiB)
  double max_gzip_ratio = 250.0;                      // refuse inflated/compressed-so-far above this (traces: 15-30x)
  std::uint64_t ratio_check_min_bytes = 8ULL << 20;   // ratio is only judged past this many inflated bytes
  std::uint64_t chunk_bytes = 8ULL << 20;             // events parsed per simdjson document (bounds parser memory)

  // --- host_bound thresholds (printed with the numbers) ---
  double idle_device_max_busy = 0.05;  // busy fraction below this: host-bound whatever the launch attribution
  double host_bound_max_busy = 0.50;   // busy fraction below this: the device is mostly idle
  double not_bound_min_busy = 0.90;    // busy fraction at or above this: not host-bound
  double host_wait_min_share = 0.50;   // share of attributed idle time spent waiting for the host to launch
  std::int64_t min_kernels = 2;        // fewer device kernels than this: host_bound unknown

  [[nodiscard]] nlohmann::json to_json() const;
};

// Recognises the input by content: Kineto/Chrome trace object (plain or gzip), bare event array, legacy 2021
// schema, TORCH_LOGS console text, TORCH_TRACE (tlparse) logs, torch._dynamo.explain() printouts.
// Returns {"file","kind","bytes","census":{"device_kernels",...},"findings":[...],"summary":{...},"thresholds":{...}}.
// Refused input (execution trace, memory timeline, truncated/invalid JSON, gzip bomb, empty) -> Error with
// kind unprocessable (or too_large for a bomb) and a specific code.
Result<nlohmann::json> classify_bytes(std::string_view bytes, std::string_view file_name,
                                      const ClassifyOptions& options = {});
// Reads the file straight into a padded buffer (no extra copy for plain JSON).
Result<nlohmann::json> classify_file(const std::string& path, const ClassifyOptions& options = {});

// Census diff and verdict changes between two classify results (eager vs compiled, before vs after a fix).
// {"evidence": "121 gemm + 12 triton safe_softmax_add + 6 micro_sdpa -> 97 gemm + 18 micro_sdpa", ...}
Result<nlohmann::json> diff(const nlohmann::json& base, const nlohmann::json& target);

// The graph_breaks finding from a stored benchmark result row's columns (-1 = column absent).
Result<nlohmann::json> graph_breaks_from_counts(std::int64_t graph_breaks, std::int64_t unique_graph_breaks,
                                                std::int64_t unique_graphs);

}  // namespace perftriage::analyzers::trace
