// Reference ("expected accuracy", speedup-target) CSVs: parse_reference_csv with the axes a path would give.
// The axes come from the END of the input (FuzzedDataProvider integers), so raw CSV seeds stay readable.
#include <fuzzer/FuzzedDataProvider.h>

#include "fuzz/fuzz_util.hpp"
#include "ingest/reference_csv.hpp"

using namespace perftriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider fdp(data, size);
  static constexpr const char* kSuites[] = {"", "huggingface", "timm_models", "torchbench", "dynamic"};
  static constexpr const char* kModes[] = {"", "inference", "training"};
  static constexpr const char* kConfigs[] = {"", "inductor", "dynamic_inductor", "aot_eager"};
  ingest::Axes axes;
  axes.suite = fdp.PickValueInArray(kSuites);
  axes.mode = fdp.PickValueInArray(kModes);
  axes.config = fdp.PickValueInArray(kConfigs);
  const std::string bytes = fdp.ConsumeRemainingBytesAsString();
  auto parsed = ingest::parse_reference_csv(bytes, "fuzz/reference.csv", axes);
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().code.empty(), parsed.error().message);
    return 0;
  }
  for (const auto& e : parsed->rows) FUZZ_CHECK(e.line > 0, "expectation line numbers are 1-based");
  return 0;
}
