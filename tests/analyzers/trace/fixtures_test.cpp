// Golden verdicts on the hand-written fixtures in tests/fixtures/trace (shapes from the domain notes).
#include <gtest/gtest.h>
#include <cctype>

#include "helpers.hpp"

using namespace trace_test;

struct Golden {
  const char* file;
  const char* kind;
  std::int64_t kernels;
  const char* attention;
  const char* host_bound;
  const char* summary;
};

class GoldenTrace : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenTrace, VerdictsAndCensus) {
  const Golden g = GetParam();
  const auto r = classify_ok(fixture(std::string("trace/") + g.file));
  ASSERT_TRUE(r.contains("census"));
  EXPECT_EQ(r["kind"], g.kind);
  EXPECT_EQ(r["census"]["device_kernels"], g.kernels);
  EXPECT_EQ(verdict(r, "attention"), g.attention);
  EXPECT_EQ(verdict(r, "host_bound"), g.host_bound);
  EXPECT_EQ(verdict(r, "graph_breaks"), "unknown");
  EXPECT_EQ(r["summary"]["verdict"], g.summary);
  EXPECT_FALSE(find(r, "attention").value("evidence", "").empty());
  EXPECT_TRUE(find(r, "host_bound").contains("thresholds"));
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, GoldenTrace,
    ::testing::Values(Golden{"cuda_flash_sdpa.json", "kineto", 20, "fused", "no", "unexplained"},
                      Golden{"cuda_flash_sdpa.json.gz", "kineto", 20, "fused", "no", "unexplained"},
                      Golden{"cuda_math_fallback.json", "kineto", 28, "math_fallback", "no", "explained"},
                      Golden{"xpu_math_fallback.json", "kineto", 28, "math_fallback", "no", "explained"},
                      Golden{"xpu_fused.json", "kineto", 20, "fused", "no", "unexplained"},
                      Golden{"cuda_unfused.json", "kineto", 28, "unfused", "no", "explained"},
                      Golden{"cuda_host_bound.json", "kineto", 60, "none", "yes", "explained"},
                      Golden{"legacy_2021.json", "kineto_legacy", 6, "none", "yes", "explained"},
                      Golden{"bare_event_array.json", "event_array", 8, "none", "no", "unexplained"},
                      Golden{"rocm_compiled_flash.json", "kineto", 8, "fused", "no", "unexplained"},
                      Golden{"xpu_compiled_before_fix.json.gz", "kineto", 153, "math_fallback", "no", "explained"},
                      Golden{"xpu_compiled_after_fix.json.gz", "kineto", 127, "fused", "no", "unexplained"},
                      Golden{"chunk_stress.json", "kineto", 300, "fused", "no", "unexplained"}),
    [](const auto& param_info) {
      std::string n = param_info.param.file;
      for (char& c : n) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return n;
    });

TEST(TraceCensus, EvidenceLineAndClasses) {
  const auto r = classify_ok(fixture("trace/xpu_compiled_before_fix.json.gz"));
  EXPECT_EQ(find(r, "attention")["kernels"], "121 gemm + 12 triton safe_softmax_add + 6 micro_sdpa");
  EXPECT_EQ(r["census"]["groups"]["triton safe_softmax_add"]["count"], 12);
  EXPECT_EQ(r["census"]["triton_kinds"]["per"], 12);
  EXPECT_EQ(r["census"]["devices"][0], "Intel(R) Arc(TM) B580 Graphics");
  EXPECT_TRUE(r["compressed"].get<bool>());
}

TEST(TraceCensus, XpuKernelsWithoutStreamAreCountedAndJoined) {
  const auto r = classify_ok(fixture("trace/xpu_math_fallback.json"));
  const auto& hb = find(r, "host_bound");
  EXPECT_EQ(hb["joined_launches"], 28);  // urEnqueueKernelLaunch joined by correlation
  EXPECT_EQ(find(r, "attention")["ops"]["math"], 4);
  EXPECT_EQ(find(r, "attention")["ops"]["safe_softmax"], 4);
}

TEST(TraceCensus, HostBoundNumbers) {
  const auto r = classify_ok(fixture("trace/cuda_host_bound.json"));
  const auto& hb = find(r, "host_bound");
  EXPECT_LT(hb["busy_fraction"].get<double>(), 0.1);
  EXPECT_GT(hb["idle"]["host_wait_share"].get<double>(), 0.99);
  EXPECT_LE(hb["median_kernel_us"].get<double>(), hb["median_launch_us"].get<double>());
  EXPECT_NE(hb["evidence"].get<std::string>().find("thresholds"), std::string::npos);
}

TEST(TraceChunks, SmallChunksGiveTheSameAnswer) {
  for (const char* f : {"chunk_stress.json", "cuda_host_bound.json", "bare_event_array.json", "legacy_2021.json",
                        "xpu_compiled_before_fix.json.gz"}) {
    tr::ClassifyOptions small;
    small.chunk_bytes = 4096;
    const auto a = classify_ok(fixture(std::string("trace/") + f));
    const auto b = classify_ok(fixture(std::string("trace/") + f), small);
    EXPECT_EQ(a["census"], b["census"]) << f;
    EXPECT_EQ(a["findings"], b["findings"]) << f;
  }
}

TEST(TraceBytes, ClassifyBytesMatchesClassifyFile) {
  const std::string bytes = read_fixture("trace/cuda_math_fallback.json");
  auto r = tr::classify_bytes(bytes, "upload.json");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)["file"], "upload.json");
  EXPECT_EQ(verdict(*r, "attention"), "math_fallback");
}

TEST(TraceDiff, TrackerEvidenceLine) {
  const auto before = classify_ok(fixture("trace/xpu_compiled_before_fix.json.gz"));
  const auto after = classify_ok(fixture("trace/xpu_compiled_after_fix.json.gz"));
  auto d = tr::diff(before, after);
  ASSERT_TRUE(d);
  EXPECT_EQ((*d)["evidence"], "121 gemm + 12 triton safe_softmax_add + 6 micro_sdpa -> 97 gemm + 18 micro_sdpa");
  EXPECT_EQ((*d)["groups"]["micro_sdpa"]["delta"], 12);
  bool attention_changed = false;
  for (const auto& v : (*d)["verdicts"]) {
    if (v["classifier"] == "attention") {
      attention_changed = v["changed"].get<bool>();
      EXPECT_EQ(v["base"], "math_fallback");
      EXPECT_EQ(v["target"], "fused");
    }
  }
  EXPECT_TRUE(attention_changed);
}

TEST(TraceDiff, RefusesLogs) {
  const auto log = classify_ok(fixture("trace/torch_trace.log"));
  const auto t = classify_ok(fixture("trace/cuda_flash_sdpa.json"));
  auto d = tr::diff(log, t);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().kind, perftriage::ErrorKind::unprocessable);
}
