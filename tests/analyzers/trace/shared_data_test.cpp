// The real public files in ../shared/data (when present): the facts in ../shared/data/PROVENANCE.md.
// Skipped when the shared folder is absent; the committed fixtures carry the suite on their own.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "helpers.hpp"

using namespace trace_test;

namespace {

std::string shared(const std::string& rel) { return shared_dir() + "/" + rel; }

#define REQUIRE_SHARED(path) \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no shared data: " << path

struct Real {
  const char* file;
  std::int64_t kernels;
  double busy;  // PROVENANCE busy fraction, < 0 when not listed
  const char* attention;
  const char* host_bound;  // "" = not asserted
};

class RealTrace : public ::testing::TestWithParam<Real> {};

}  // namespace

TEST_P(RealTrace, ProvenanceFacts) {
  const Real p = GetParam();
  const std::string path = shared(std::string("traces/") + p.file);
  REQUIRE_SHARED(path);
  const auto r = classify_ok(path);
  ASSERT_TRUE(r.contains("census"));
  EXPECT_EQ(r["census"]["device_kernels"], p.kernels);
  if (p.busy >= 0) {
    // PROVENANCE's busy fractions are over device activity (kernels + memcpy + memset), two decimals.
    EXPECT_NEAR(r["census"]["busy_fraction"].get<double>(), p.busy, 0.0051) << p.file;
  }
  EXPECT_EQ(verdict(r, "attention"), p.attention) << p.file;
  if (*p.host_bound != 0) {
    EXPECT_EQ(verdict(r, "host_bound"), p.host_bound) << p.file;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Provenance, RealTrace,
    ::testing::Values(
        Real{"tracelens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 1465, 0.92, "fused", "no"},
        Real{"tracelens/tests__traces__h100__Falconsai_nsfw_image_detection__1016002.json.gz", 154, 0.16, "fused",
             "yes"},
        Real{"tracelens/tests__traces__torch_compile_triton__trace.json.gz", 12, 1.00, "fused", "no"},
        Real{"tracelens/tests__traces__mi210__gpu_only_trace__gpu_only_trace.json.gz", 562, 0.89, "none", "no"},
        Real{"hta/tests__data__amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz", 14, 0.02, "none", "yes"},
        Real{"hta/tests__data__triton_example__triton_example.json.gz", 1, -1, "none", ""},
        Real{"hta/tests__data__trace_file_list__inference_rank_1.json.gz", 4, -1, "none", "yes"},
        Real{"hta/tests__data__nccl_parser_config__nccl_data.json.gz", 2700, 0.24, "none", "yes"},
        Real{"hta/tests__data__timeline_analysis__sampled_rank-0.json.gz", 1154, 0.45, "none", ""},
        Real{"hta/tests__data__trace_diff__control__control.json.gz", 8568, 0.84, "none", "no"},
        Real{"hta/tests__data__mtia_trace_single_rank__mtia_rank_0.json.gz", 0, -1, "none", "unknown"},
        Real{"hta/tests__data__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz", 79,
             0.005,  // "< 0.01"
             "none", "yes"},
        Real{"hta/tests__data__critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz", 79,
             0.005,  // "< 0.01"
             "none", "yes"},
        Real{"hta/tests__data__trace_compare__base__base.json.gz", 6, -1, "none", "yes"},
        Real{"hta/tests__data__trace_compare__test__test.json.gz", 5, -1, "none", "yes"},
        Real{"hta/tests__data__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 0, -1, "none", "unknown"}),
    [](const auto& param_info) { return "f" + std::to_string(param_info.index); });

TEST(RealTrace, LegacySchemaParses) {
  const std::string path = shared("traces/hta/tests__data__trace_file_list__inference_rank_1.json.gz");
  REQUIRE_SHARED(path);
  const auto r = classify_ok(path);
  EXPECT_EQ(r["kind"], "kineto_legacy");
  EXPECT_EQ(find(r, "host_bound")["joined_launches"], 4);  // Runtime <-> Kernel by correlation
}

TEST(RealTrace, QwenFlashKernelsAndBusy) {
  const std::string path = shared("traces/tracelens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
  REQUIRE_SHARED(path);
  const auto r = classify_ok(path);
  EXPECT_EQ(r["census"]["groups"]["flash_fwd"]["count"], 34);
  EXPECT_EQ(find(r, "attention")["ops"]["scaled_dot_product_attention"], 24);
  EXPECT_GE(find(r, "host_bound")["busy_fraction"].get<double>(), 0.9);
}

TEST(RealTrace, TorchCompileTritonKernels) {
  const std::string path = shared("traces/tracelens/tests__traces__torch_compile_triton__trace.json.gz");
  REQUIRE_SHARED(path);
  const auto r = classify_ok(path);
  std::int64_t triton = 0;
  for (const auto& [k, n] : r["census"]["triton_kinds"].items()) triton += n.get<std::int64_t>();
  EXPECT_EQ(triton, 4);
  EXPECT_EQ(r["census"]["groups"]["attn_fwd"]["count"], 1);
  EXPECT_EQ(r["census"]["compiled_graph_calls"], 1);
}

TEST(RealTrace, SmallChunksOnRealTrace) {
  const std::string path = shared("traces/hta/tests__data__nccl_parser_config__nccl_data.json.gz");
  REQUIRE_SHARED(path);
  tr::ClassifyOptions small;
  small.chunk_bytes = 64 << 10;
  const auto a = classify_ok(path);
  const auto b = classify_ok(path, small);
  EXPECT_EQ(a["census"], b["census"]);
  EXPECT_EQ(a["findings"], b["findings"]);
}

TEST(RealTrace, NonTracesAreRefused) {
  for (const auto& [file, code] :
       {std::pair{"hta/tests__data__execution_trace__benchmark_simple_add_et.json.gz", "execution_trace"},
        std::pair{"hta/tests__data__memory_analysis__memory_timeline.raw.gz", "not_trace_events"}}) {
    const std::string path = shared(std::string("traces/") + file);
    REQUIRE_SHARED(path);
    auto r = tr::classify_file(path);
    ASSERT_FALSE(r) << file;
    EXPECT_EQ(r.error().code, code);
  }
}

TEST(RealTrace, DiffOfTheComparePair) {
  const std::string a = shared("traces/hta/tests__data__trace_compare__base__base.json.gz");
  const std::string b = shared("traces/hta/tests__data__trace_compare__test__test.json.gz");
  REQUIRE_SHARED(a);
  auto d = tr::diff(classify_ok(a), classify_ok(b));
  ASSERT_TRUE(d);
  EXPECT_EQ((*d)["device_kernels"]["base"], 6);
  EXPECT_EQ((*d)["device_kernels"]["target"], 5);
}

TEST(RealLogs, TlparseCompMetrics) {
  const std::string path = shared("logs/tlparse/tests__inputs__comp_metrics.log");
  REQUIRE_SHARED(path);
  const auto res = classify_ok(path);
  const auto& f = find(res, "graph_breaks");
  EXPECT_EQ(f["verdict"], "yes");
  EXPECT_EQ(f["compiles"], 3);
  EXPECT_EQ(f["frames"], 3);
  EXPECT_EQ(f["recompiles"], 0);
  EXPECT_EQ(f["restarts"], 2);
  ASSERT_EQ(f["unique_reasons"].size(), 1u);
  EXPECT_NE(f["unique_reasons"][0]["reason"].get<std::string>().find("graph_break"), std::string::npos);
}

TEST(RealLogs, TlparseCompileFailure) {
  const std::string path = shared("logs/tlparse/tests__inputs__comp_failure.log");
  REQUIRE_SHARED(path);
  const auto res = classify_ok(path);
  const auto& f = find(res, "graph_breaks");
  EXPECT_EQ(f["verdict"], "compile_failure");  // was "yes ... 0 graph breaks"
  EXPECT_EQ(f["graph_breaks"], 0);
  EXPECT_EQ(f["evidence"].get<std::string>().rfind("compile failure in ", 0), 0u) << f["evidence"];
  ASSERT_EQ(f["failures"].size(), 1u);
  EXPECT_EQ(f["failures"][0]["fail_type"], "BackendCompilerFailed");
  EXPECT_NE(f["failures"][0]["fail_reason"].get<std::string>().find("broken backend"), std::string::npos);
}

TEST(RealLogs, TlparseRecompiles) {
  const std::string path = shared("logs/tlparse/tests__inputs__multi_rank_logs__dedicated_log_torch_trace_rank_1.log");
  REQUIRE_SHARED(path);
  const auto res = classify_ok(path);
  const auto& f = find(res, "graph_breaks");
  EXPECT_EQ(f["verdict"], "recompiles");  // was "yes ... 0 graph breaks"
  EXPECT_EQ(f["evidence"].get<std::string>().rfind("14 recompiles (", 0), 0u) << f["evidence"];
  EXPECT_EQ(res["summary"]["causes"][0], "recompiles");
  EXPECT_EQ(f["compiles"], 15);
  EXPECT_EQ(f["frames"], 1);
  EXPECT_EQ(f["recompiles"], 14);
  ASSERT_GE(f["recompile_reasons"].size(), 1u);
  EXPECT_NE(f["recompile_reasons"][0]["reason"].get<std::string>().find("tensor 'x' size mismatch"), std::string::npos);
}

TEST(RealLogs, TlparseSimpleAndExport) {
  const std::string simple = shared("logs/tlparse/tests__inputs__simple.log");
  REQUIRE_SHARED(simple);
  const auto res = classify_ok(simple);
  const auto& s = find(res, "graph_breaks");
  EXPECT_EQ(s["verdict"], "no");
  EXPECT_EQ(s["compiles"], 1);
  const auto e = classify_ok(shared("logs/tlparse/tests__inputs__export.log"));
  EXPECT_EQ(e["kind"], "tlparse");
  EXPECT_EQ(verdict(e, "graph_breaks"), "unknown");
}

TEST(RealLogs, TorchLogsRunLog) {
  const std::string path = shared("logs/torch_logs/gmc-ithome__code__day10__run.log");
  REQUIRE_SHARED(path);
  const auto r = classify_ok(path);
  EXPECT_EQ(r["kind"], "torch_logs");
  const auto& f = find(r, "graph_breaks");
  EXPECT_EQ(f["verdict"], "yes");
  EXPECT_EQ(f["log_graph_breaks"], 1);
  EXPECT_EQ(f["explain"].size(), 2u);
  EXPECT_EQ(f["explain_graph_breaks"], 3);
  ASSERT_EQ(f["unique_reasons"].size(), 1u);
  EXPECT_EQ(f["unique_reasons"][0]["reason"], "Failed to trace builtin operator");
  const auto locs = f["unique_reasons"][0]["locations"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(locs.begin(), locs.end(), "/root/graph_break.py:16"), locs.end());
}
