// Per-region census: kernels attributed to the innermost record_function range open at their launch.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "analyzers/trace/classify.hpp"

namespace perftriage::analyzers::trace {
namespace {

// One launch + kernel pair: the launch on the host at `ts`, the kernel on the device a little later.
std::string pair(int corr, double ts, const std::string& kernel) {
  return fmt::format(
      R"({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{0},"dur":3,)"
      R"("args":{{"correlation":{1}}}}},)"
      R"({{"ph":"X","cat":"kernel","name":"{2}","pid":0,"tid":7,"ts":{3},"dur":10,"args":{{"correlation":{1}}}}},)",
      ts, corr, kernel, ts + 5);
}

std::string region(const std::string& name, double ts, double dur) {
  return fmt::format(R"({{"ph":"X","cat":"user_annotation","name":"{}","pid":1,"tid":1,"ts":{},"dur":{}}},)", name,
                     ts, dur);
}

TEST(RegionCensus, KernelsGoToTheInnermostOpenRegion) {
  std::string events;
  events += region("ProfilerStep#0", 0, 1000);
  events += region("expected", 10, 300);  // the harness's eager region
  events += region("actual", 400, 300);   // the compiled region
  events += pair(1, 20, "volta_sgemm_128x64_nn");
  events += pair(2, 40, "volta_sgemm_128x64_nn");
  events += pair(3, 60, "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*)");
  events += pair(4, 420, "volta_sgemm_128x64_nn");
  events += pair(5, 440, "triton_per_fused__safe_softmax_add_2");
  events += pair(6, 800, "triton_poi_fused_add_0");  // inside ProfilerStep#0 only
  events += pair(7, 2000, "triton_poi_fused_add_0");  // outside every region
  events.pop_back();
  const std::string trace = R"({"schemaVersion":1,"traceEvents":[)" + events + "]}";

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
  const std::string trace =
      R"({"traceEvents":[)" + pair(1, 20, "volta_sgemm_128x64_nn") + pair(2, 40, "volta_sgemm_128x64_nn") + "{}]}";
  auto r = classify_bytes(trace, "plain.json");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE((*r)["census"].contains("regions"));
}

}  // namespace
}  // namespace perftriage::analyzers::trace
