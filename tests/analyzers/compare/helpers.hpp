#pragma once
// Result records built by hand for the pure compare tests.
#include <fmt/format.h>

#include <optional>
#include <string>

#include "ingest/records.hpp"
#include "schema/store.hpp"

namespace perftriage::analyzers::compare::test {

inline model::ResultRecord perf(const std::string& suite, const std::string& dtype, const std::string& mode,
                                const std::string& model, double speedup, double compiled_ms,
                                std::optional<double> compile_s = {}, std::optional<double> peak_mem_gb = {}) {
  model::ResultRecord r;
  r.suite = suite;
  r.dtype = dtype;
  r.mode = mode;
  r.kind = "performance";
  r.model = model;
  r.batch_size = 8;
  r.speedup = speedup;
  r.speedup_text = fmt::format("{:.6f}", speedup);
  r.abs_latency_ms = compiled_ms;
  if (speedup > 0 && compiled_ms > 0) r.eager_latency_ms = speedup * compiled_ms;
  r.compilation_latency_s = compile_s;
  r.dynamo_peak_mem_gb = peak_mem_gb;
  r.failed = speedup == 0;
  r.source = suite + "/" + dtype + "/" + mode + "/performance/x.csv";
  return r;
}

inline model::ResultRecord acc(const std::string& suite, const std::string& dtype, const std::string& mode,
                               const std::string& model, const std::string& status) {
  model::ResultRecord r;
  r.suite = suite;
  r.dtype = dtype;
  r.mode = mode;
  r.kind = "accuracy";
  r.model = model;
  r.accuracy = status;
  r.accuracy_failed = !ingest::accuracy_passes(status);
  return r;
}

}  // namespace perftriage::analyzers::compare::test
