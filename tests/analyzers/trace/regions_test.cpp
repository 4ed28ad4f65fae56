// Per-region census: kernels attributed to the innermost record_function range open at their launch.
#include <gtest/gtest.h>

#include <string>

#include "analyzers/trace/classify.hpp"
#include "server/demo/trace_builder.hpp"

namespace perftriage::analyzers::trace {
namespace {

using server::demo::TraceBuilder;

// A CUDA launch of 3 us at `ts` on the host; its kernel runs 10 us on the device from ts + 5.
void launch(TraceBuilder& t, double ts, const std::string& kernel) { t.at(ts).kernel(kernel, 10.0, 3.0); }

TEST(RegionCensus, KernelsGoToTheInnermostOpenRegion) {
  TraceBuilder t("NVIDIA A100-SXM4-40GB", false);
  t.at(0).annotation("ProfilerStep#0", 1000);
  t.at(10).annotation("expected", 300);  // the harness's eager region
  t.at(400).annotation("actual", 300);   // the compiled region
  launch(t, 20, "volta_sgemm_128x64_nn");
  launch(t, 40, "volta_sgemm_128x64_nn");
  launch(t, 60, "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*)");
  launch(t, 420, "volta_sgemm_128x64_nn");
  launch(t, 440, "triton_per_fused__safe_softmax_add_2");
  launch(t, 800, "triton_poi_fused_add_0");   // inside ProfilerStep#0 only
  launch(t, 2000, "triton_poi_fused_add_0");  // outside every region
  const std::string trace = t.dump();

  auto r = classify_bytes(trace, "regions.json");
  ASSERT_TRUE(r) << r.error().message;
  const auto& regions = (*r)["census"]["regions"];
  ASSERT_TRUE(regions.is_array());
  auto find = [&](const std::string& name) {
    for (const auto& row : regions) {
      if (row["name"] == name) return row;
    }
    return nlohmann::json();
  };
  EXPECT_EQ(find("expected")["kernels"], 3);
  EXPECT_EQ(find("expected")["evidence"], "2 gemm + 1 softmax");
  EXPECT_EQ(find("actual")["kernels"], 2);
  EXPECT_EQ(find("ProfilerStep#0")["kernels"], 1);
  EXPECT_EQ(find("ProfilerStep#0")["occurrences"], 1);
  EXPECT_EQ(find("(outside regions)")["kernels"], 1);
  EXPECT_DOUBLE_EQ(find("actual")["kernel_time_us"].get<double>(), 20.0);
  EXPECT_EQ((*r)["census"]["device_kernels"], 7);
}

TEST(RegionCensus, ATraceWithoutRegionsHasNoRegionRows) {
  TraceBuilder t("NVIDIA A100-SXM4-40GB", false);
  launch(t, 20, "volta_sgemm_128x64_nn");
  launch(t, 40, "volta_sgemm_128x64_nn");
  const std::string trace = t.dump();
  auto r = classify_bytes(trace, "plain.json");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE((*r)["census"].contains("regions"));
}

}  // namespace
}  // namespace perftriage::analyzers::trace
