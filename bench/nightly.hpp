#pragma once
// A generated full nightly: 3 suites x 5 dtypes x 2 modes x 2 kinds, ~200 models per file,
// in the seed issue's path layout and the current 16-column / 12-column headers.
#include <fmt/format.h>

#include <random>
#include <string>
#include <vector>

#include "ingest/records.hpp"

namespace perftriage::bench {

// `stable`: each model keeps one speedup / latency level from nightly to nightly (set by the model and its group) and
// `seed` only adds 1% noise and the failures, so that a series of nightlies looks like a history (gen_history_db).
inline std::vector<ingest::InputFile> make_nightly(int models_per_file = 200, unsigned seed = 7, double drift = 1.0,
                                                   bool stable = false) {
  static constexpr const char* kPerfHeader =
      "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,"
      "dynamo_peak_mem,calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,"
      "autograd_compiles,cudagraph_skips\n";
  static constexpr const char* kAccHeader =
      "dev,name,batch_size,accuracy,calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,"
      "autograd_captures,autograd_compiles,cudagraph_skips,compilation_latency\n";
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> speed(0.55, 2.6), lat(1.0, 400.0), comp(5.0, 200.0);
  std::uniform_int_distribution<int> calls(50, 2000), fail(0, 99);
  std::vector<ingest::InputFile> files;
  for (const char* suite : {"huggingface", "timm_models", "torchbench"}) {
    for (const char* dtype : {"float32", "bfloat16", "float16", "amp_bf16", "amp_fp16"}) {
      for (const char* mode : {"inference", "training"}) {
        for (const char* kind : {"performance", "accuracy"}) {
          std::string body = kind == std::string("performance") ? kPerfHeader : kAccHeader;
          body.reserve(models_per_file * 120);
          for (int m = 0; m < models_per_file; ++m) {
            const std::string name = fmt::format("{}_model_{:03d}", suite, m);
            const bool failed = fail(rng) < 2;
            if (kind == std::string("performance")) {
              if (failed) {
                body += fmt::format("xpu,{},0,0.000000,0.000000,0,0,0,0,0,0,0,0,0,0,0\n", name);
              } else if (stable) {
                std::mt19937 level(static_cast<unsigned>(m * 131 + dtype[1] * 7 + mode[0] + suite[0]));
                const double s = speed(level) * drift * (1 + (speed(rng) - 1.575) / 102.5);  // +-1%
                body += fmt::format("xpu,{},{},{:.6f},{:.6f},{:.6f},0.000000,0,0,{},1,0,0,0,0,0\n", name, 1 << (m % 8),
                                    s, lat(level), comp(level), calls(level));
              } else {
                body += fmt::format("xpu,{},{},{:.6f},{:.6f},{:.6f},0.000000,0,0,{},1,0,0,0,0,0\n", name, 1 << (m % 8),
                                    speed(rng) * drift, lat(rng), comp(rng), calls(rng));
              }
            } else {
              body += fmt::format("xpu,{},{},{},{},1,0,0,0,0,0,{:.6f}\n", name, 1 << (m % 8),
                                  failed ? "fail_accuracy" : "pass", calls(rng), comp(rng));
            }
          }
          files.push_back(
              {fmt::format("{0}/{1}/{2}/{3}/inductor-results-{0}-{1}-{2}-xpu-{3}.csv", suite, dtype, mode, kind),
               std::move(body)});
        }
      }
    }
  }
  return files;
}

}  // namespace perftriage::bench
