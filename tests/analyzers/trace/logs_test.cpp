// Compile logs: TORCH_LOGS text, TORCH_TRACE (tlparse) structured logs, explain() printouts, result-row counts.
#include <gtest/gtest.h>

#include "analyzers/trace/compile_log.hpp"
#include "helpers.hpp"

using namespace trace_test;

TEST(TorchLogs, GraphBreaksRecompilesAndReasons) {
  const auto r = classify_ok(fixture("trace/torch_logs_item_recompile.log"));
  EXPECT_EQ(r["kind"], "torch_logs");
  const auto& f = find(r, "graph_breaks");
  EXPECT_EQ(f["verdict"], "yes");
  EXPECT_EQ(f["graph_breaks"], 2);
  EXPECT_EQ(f["recompiles"], 2);
  EXPECT_EQ(f["frames"], 2);
  EXPECT_EQ(f["item_warnings"], 1);
  ASSERT_EQ(f["unique_reasons"].size(), 2u);
  bool item = false;
  for (const auto& u : f["unique_reasons"]) {
    if (u["reason"] == "Unsupported Tensor.item() call with capture_scalar_outputs=False") {
      item = true;
      EXPECT_EQ(u["locations"][0], "/work/repro.py:9");
    }
  }
  EXPECT_TRUE(item);
  ASSERT_EQ(f["recompile_reasons"].size(), 1u);  // normalised: numbers collapse
  EXPECT_EQ(f["recompile_reasons"][0]["reason"], "tensor 'x' size mismatch at index 0. expected N, actual N");
  EXPECT_EQ(f["recompile_reasons"][0]["count"], 2);
  EXPECT_EQ(r["summary"]["verdict"], "explained");
}

TEST(Tlparse, FramesCompilesRestartsRecompilesFailure) {
  const auto r = classify_ok(fixture("trace/torch_trace.log"));
  EXPECT_EQ(r["kind"], "tlparse");
  const auto& f = find(r, "graph_breaks");
  EXPECT_EQ(f["verdict"], "compile_failure");  // a failed frame outranks its graph break and recompile
  EXPECT_EQ(f["evidence"].get<std::string>().rfind("compile failure in 1/0: BackendCompilerFailed", 0), 0u)
      << f["evidence"];
  EXPECT_EQ(r["summary"]["causes"][0], "compile_failure");
  EXPECT_EQ(f["frames"], 2);
  EXPECT_EQ(f["compiles"], 3);
  EXPECT_EQ(f["restarts"], 1);
  EXPECT_EQ(f["graph_breaks"], 1);
  EXPECT_EQ(f["recompiles"], 1);
  ASSERT_EQ(f["failures"].size(), 1u);
  EXPECT_EQ(f["failures"][0]["fail_type"], "BackendCompilerFailed");
  EXPECT_EQ(f["failures"][0]["frame"], "1/0");
  EXPECT_EQ(f["failures"][0]["fail_reason"], "backend='inductor' raised: RuntimeError: boom");
}

TEST(Explain, CountsAndInnermostLocation) {
  const auto r = classify_ok(fixture("trace/explain_printout.txt"));
  EXPECT_EQ(r["kind"], "explain");
  const auto& f = find(r, "graph_breaks");
  EXPECT_EQ(f["verdict"], "yes");
  EXPECT_EQ(f["graph_breaks"], 2);
  ASSERT_EQ(f["explain"].size(), 1u);
  EXPECT_EQ(f["explain"][0]["graph_count"], 3);
  EXPECT_EQ(f["explain"][0]["op_count"], 5);
  bool skipped = false;
  for (const auto& u : f["unique_reasons"]) {
    if (u["reason"] == "Attempted to call function marked as skipped") {
      skipped = true;
      EXPECT_EQ(u["locations"][0], "/work/model.py:44");
    }
  }
  EXPECT_TRUE(skipped);
}

TEST(CompileLog, GlogPrefixAndNormalisation) {
  using namespace perftriage::analyzers::trace;
  EXPECT_EQ(strip_glog("V0820 01:43:43.388000 8 site-packages/torch/_dynamo/x.py:560] [0/0] hi"), "[0/0] hi");
  EXPECT_EQ(strip_glog("plain text"), "plain text");
  EXPECT_EQ(normalise_reason("- 0/3: tensor 'x' size mismatch at index 0. expected 4, actual 8"),
            "tensor 'x' size mismatch at index 0. expected N, actual N");
  EXPECT_EQ(normalise_reason("'skip function graph_break in file decorators.py'"),
            "skip function graph_break in file decorators.py");
}

TEST(ResultRow, GraphBreaksFromCounts) {
  auto yes = tr::graph_breaks_from_counts(3, 2, 4);
  ASSERT_TRUE(yes);
  EXPECT_EQ((*yes)["verdict"], "yes");
  EXPECT_EQ((*yes)["unique_graph_breaks"], 2);
  auto no = tr::graph_breaks_from_counts(0, 0, 1);
  ASSERT_TRUE(no);
  EXPECT_EQ((*no)["verdict"], "no");
  auto unknown = tr::graph_breaks_from_counts(-1, -1, -1);
  ASSERT_TRUE(unknown);
  EXPECT_EQ((*unknown)["verdict"], "unknown");
  EXPECT_TRUE((*unknown)["graph_breaks"].is_null());
}

// A log of recompiles and no graph break is reported as recompiles, not as "graph breaks: yes ... 0 graph breaks".
TEST(TorchLogs, RecompilesAloneAreCalledRecompiles) {
  const std::string log =
      "V0301 10:00:01.000000 1234 torch/_dynamo/guards.py:2800] [0/1] [__recompiles] Recompiling function f in "
      "/work/repro.py:6\n"
      "V0301 10:00:01.000000 1234 torch/_dynamo/guards.py:2800] [0/1] [__recompiles]     triggered by the following "
      "guard failure(s):\n"
      "V0301 10:00:01.000000 1234 torch/_dynamo/guards.py:2800] [0/1] [__recompiles]     - 0/0: tensor 'x' size "
      "mismatch at index 0. expected 4, actual 8\n";
  auto parsed = tr::classify_bytes(log, "recompiles.log");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const nlohmann::json r = *parsed;
  const auto& f = find(r, "graph_breaks");
  EXPECT_EQ(f["verdict"], "recompiles");
  EXPECT_EQ(f["graph_breaks"], 0);
  EXPECT_EQ(f["evidence"].get<std::string>().rfind("1 recompile (", 0), 0u) << f["evidence"];
  EXPECT_EQ(r["summary"]["verdict"], "explained");
  EXPECT_EQ(r["summary"]["causes"][0], "recompiles");
}
