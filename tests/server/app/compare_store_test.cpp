// Store-backed: the fixture runs go through the real ingest, then through the compare/history/backlog SQL.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/backlog.hpp"
#include "analyzers/compare/case_compare.hpp"
#include "analyzers/compare/compare_render.hpp"
#include "analyzers/compare/report.hpp"
#include "schema/dashboard_queries.hpp"
#include "schema/history_store.hpp"
#include "schema/trend_queries.hpp"
#include "server/app/comparison.hpp"
#include "server/app/ingest_service.hpp"
#include "server/app/queries.hpp"
#include "tests/support/files.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage {
namespace {

namespace cmp = analyzers::compare;
using testing::fixture;
using testing::read_tree;

server::UploadMeta meta(const std::string& run, const std::string& torch, const std::string& created_at,
                        std::vector<std::string> tags) {
  server::UploadMeta m;
  m.run = run;
  m.platform = "BMG";
  m.torch_version = torch;
  m.created_at = created_at;
  m.tags = std::move(tags);
  return m;
}

class CompareStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
    ingest("bmg-2.12", "2.12.0+xpu", "2026-01-01T00:00:00Z", {"release-2.12"}, "compare/base");
    ingest("bmg-2.13", "2.13.0+xpu", "2026-02-01T00:00:00Z", {"release-2.13"}, "compare/target");
  }
  void ingest(const std::string& run, const std::string& torch, const std::string& created_at,
              std::vector<std::string> tags, const std::string& dir) {
    auto summary =
        server::ingest_files(*store_, meta(run, torch, created_at, std::move(tags)), read_tree(fixture(dir)));
    ASSERT_TRUE(summary) << summary.error().message << " " << summary.error().file;
  }
  std::optional<schema::Store> store_;
};

// HUD's four metrics of a run per group, from SQL on either backend, against the hand-computed numbers of the
// target fixture (tests/analyzers/compare/compare_test.cpp lists its rows).
TEST_F(CompareStoreTest, TrendMetricsOfARunFollowHudsRules) {
  auto run = schema::dashboard::find_run(store_->db(), "bmg-2.13");
  ASSERT_TRUE(run && *run) << (run ? "no run" : run.error().message);
  auto metrics = schema::trends::run_metrics(store_->db(), (*run)->id);
  ASSERT_TRUE(metrics) << metrics.error().message;
  ASSERT_EQ(metrics->size(), 2u);
  const auto& hf = (*metrics)[0];
  EXPECT_EQ(hf.suite, "huggingface");
  // A 2.0, B 0.4, C 1.0, D failed, F 1.3, G 3.0 with fail_accuracy: 4 of 6 pass.
  EXPECT_EQ(hf.rows, 6);
  EXPECT_EQ(hf.passing, 4);
  EXPECT_NEAR(*hf.pass_rate(), 4.0 / 6.0, 1e-12);
  EXPECT_NEAR(*hf.geomean_speedup(), std::pow(2.0 * 0.4 * 1.0 * 1.3, 0.25), 1e-9);
  EXPECT_NEAR(*hf.mean_compilation_s(), 40.0, 1e-9);  // A 50 s, B 30 s; C and F did not measure it
  EXPECT_FALSE(hf.geomean_compression_ratio());       // XPU zeros: not measured
  const auto& tb = (*metrics)[1];
  EXPECT_EQ(tb.suite, "torchbench");
  EXPECT_EQ(tb.passing, 2);
  EXPECT_NEAR(*tb.geomean_speedup(), 1.0, 1e-9);  // 1.6 x 0.625
  EXPECT_FALSE(tb.mean_compilation_s());
}

// The server folds rows into cases as SQLite returns them, one record refilled per row: the same answer, byte for
// byte, as comparing the two runs' rows held in vectors (a field left over from the previous row would show here).
TEST_F(CompareStoreTest, StreamedComparisonEqualsTheOneOverLoadedRows) {
  auto input = schema::load_comparison(store_->db(), "bmg-2.12", "bmg-2.13");
  ASSERT_TRUE(input) << input.error().message;
  auto streamed = server::compare_runs(*store_, "bmg-2.12", "bmg-2.13", {});
  ASSERT_TRUE(streamed) << streamed.error().message;
  const auto loaded = cmp::compare_cases(input->base_rows, input->target_rows);
  ASSERT_EQ(streamed->cases.size(), loaded.size());
  EXPECT_EQ(cmp::compare_json_text("b", "t", {}, streamed->cases, streamed->aggregates),
            cmp::compare_json_text("b", "t", {}, loaded, cmp::aggregate(loaded)));
  std::size_t rows = 0;
  std::set<std::string> sources;
  ASSERT_TRUE(schema::for_each_comparison_row(store_->db(), input->target.id, [&](const model::ResultRecord& r) {
    ++rows;
    sources.insert(r.source);
  }));
  EXPECT_EQ(rows, input->target_rows.size());
  EXPECT_FALSE(sources.contains(""));
}

TEST_F(CompareStoreTest, FixtureRunsGiveTheHandComputedAggregates) {
  auto input = schema::load_comparison(store_->db(), "bmg-2.12", "bmg-2.13");
  ASSERT_TRUE(input) << input.error().message;
  EXPECT_EQ(input->base.meta.key, "bmg-2.12");
  EXPECT_EQ(input->target.meta.key, "bmg-2.13");
  const auto cases = cmp::compare_cases(input->base_rows, input->target_rows);
  ASSERT_EQ(cases.size(), 9u);
  const auto o = cmp::aggregate(cases).overall;
  // Same numbers as tests/analyzers/compare/compare_test.cpp (computed by hand there).
  EXPECT_EQ(o.compared, 5);
  EXPECT_DOUBLE_EQ(*o.target.pass_rate, 0.75);
  EXPECT_NEAR(*o.base.geomean_speedup_unclipped, 1.0844717711976986, 1e-12);   // 1.5^(1/5)
  EXPECT_NEAR(*o.base.geomean_speedup_clipped, 1.302585542348676, 1e-12);      // 3.75^(1/5)
  EXPECT_NEAR(*o.target.geomean_speedup_unclipped, 0.956352499790037, 1e-12);  // 0.8^(1/5)
  EXPECT_NEAR(*o.target.geomean_speedup_clipped, 1.2619146889603865, 1e-12);   // 3.2^(1/5)
  EXPECT_NEAR(*o.geomean_inductor_ratio, 0.956352499790037, 1e-12);
  EXPECT_NEAR(*o.geomean_eager_ratio, 1.0844717711976986, 1e-12);
  EXPECT_NEAR(*o.compile_latency_ratio, 0.8944271909999159, 1e-12);  // sqrt(40/50 x 30/30)
  EXPECT_EQ(o.peak_memory_cases, 1);  // XPU zeros are "not measured"; only tb_a has memory
  EXPECT_DOUBLE_EQ(*o.peak_memory_ratio, 2.0);
  EXPECT_EQ(o.regressions, 3);  // B, C (eager got faster, its speedup dropped), tb_b (now slower than eager)
  EXPECT_EQ(o.new_failed, 2);
  EXPECT_EQ(o.missing, 1);
  EXPECT_EQ(o.added, 1);
  for (const auto& c : cases) {
    if (c.key.model == "ModelB") {
      EXPECT_DOUBLE_EQ(*c.inductor_ratio, 0.8);
    }
  }
  int model_b = 0;
  for (const auto& r : input->target_rows) {  // each row read with its file's path
    if (r.model != "ModelB" || r.kind != "performance") continue;
    ++model_b;
    EXPECT_EQ(r.source,
              "huggingface/bfloat16/inference/performance/"
              "inductor-results-huggingface-bfloat16-inference-xpu-performance.csv");
  }
  EXPECT_EQ(model_b, 1);
}

TEST_F(CompareStoreTest, BaseByRulePrevious) {
  auto input = schema::load_comparison(store_->db(), "previous", "bmg-2.13");
  ASSERT_TRUE(input) << input.error().message;
  EXPECT_EQ(input->base.meta.key, "bmg-2.12");
}

TEST_F(CompareStoreTest, BaseByRuleTag) {
  ingest("bmg-nightly", "2.13.0+xpu", "2026-03-01T00:00:00Z", {}, "compare/target");
  auto input = schema::load_comparison(store_->db(), "release-2.13", "bmg-nightly");
  ASSERT_TRUE(input) << input.error().message;
  EXPECT_EQ(input->base.meta.key, "bmg-2.13");
}

TEST_F(CompareStoreTest, TagOfTheTargetItselfIsNotItsBase) {
  auto input = schema::load_comparison(store_->db(), "release-2.13", "bmg-2.13");
  ASSERT_FALSE(input);
  EXPECT_EQ(input.error().code, "no_run");
  EXPECT_EQ(input.error().column, "base");
}

TEST_F(CompareStoreTest, UnknownBaseIsNotFound) {
  auto input = schema::load_comparison(store_->db(), "nope", "bmg-2.13");
  ASSERT_FALSE(input);
  EXPECT_EQ(input.error().kind, ErrorKind::not_found);
  EXPECT_EQ(input.error().column, "base");
}

TEST_F(CompareStoreTest, UnknownTargetIsNotFound) {
  auto input = schema::load_comparison(store_->db(), "previous", "nope");
  ASSERT_FALSE(input);
  EXPECT_EQ(input.error().kind, ErrorKind::not_found);
  EXPECT_EQ(input.error().column, "target");
}

TEST_F(CompareStoreTest, MissingTargetIsInvalid) {
  auto input = schema::load_comparison(store_->db(), "previous", "");
  ASSERT_FALSE(input);
  EXPECT_EQ(input.error().code, "missing_parameter");
}

TEST_F(CompareStoreTest, FirstRunHasNoPrevious) {
  auto input = schema::load_comparison(store_->db(), "previous", "bmg-2.12");
  ASSERT_FALSE(input);
  EXPECT_EQ(input.error().code, "no_previous_run");
}

TEST_F(CompareStoreTest, CaseHistoryIsOrderedByRunTimeWithAccuracy) {
  // Created out of order: the series follows created_at, not insertion.
  ingest("bmg-2.11", "2.11.0+xpu", "2025-12-01T00:00:00Z", {}, "compare/base");
  schema::HistoryQuery q{"BMG", "huggingface", "ModelG", "bfloat16", "inference", std::nullopt};
  auto points = schema::case_history(store_->db(), q);
  ASSERT_TRUE(points) << points.error().message;
  ASSERT_EQ(points->size(), 3u);
  EXPECT_EQ((*points)[0].run_key, "bmg-2.11");
  EXPECT_EQ((*points)[1].run_key, "bmg-2.12");
  EXPECT_EQ((*points)[2].run_key, "bmg-2.13");
  EXPECT_EQ((*points)[1].accuracy, "pass");
  EXPECT_EQ((*points)[2].accuracy, "fail_accuracy");
  EXPECT_DOUBLE_EQ(*(*points)[2].speedup, 3.0);
  EXPECT_DOUBLE_EQ(*(*points)[2].eager_ms, 30.0);
}

TEST_F(CompareStoreTest, CaseHistoryOfAnotherPlatformIsEmpty) {
  schema::HistoryQuery q{"PVC", "huggingface", "ModelG", "", "", std::nullopt};
  auto points = schema::case_history(store_->db(), q);
  ASSERT_TRUE(points);
  EXPECT_TRUE(points->empty());
}

TEST_F(CompareStoreTest, CaseHistoryWithoutDtypeHasOneSeriesPerAxes) {
  schema::HistoryQuery q{"BMG", "torchbench", "tb_a", "", "", std::string{}};
  auto points = schema::case_history(store_->db(), q);
  ASSERT_TRUE(points);
  ASSERT_EQ(points->size(), 2u);
  EXPECT_EQ((*points)[0].dtype, "float32");
  EXPECT_EQ((*points)[0].mode, "training");
}

TEST_F(CompareStoreTest, BacklogAcrossRuns) {
  auto data = schema::backlog_rows(store_->db(), "BMG", 1.0);
  ASSERT_TRUE(data) << data.error().message;
  ASSERT_EQ(data->runs.size(), 2u);
  EXPECT_EQ(data->runs[0].meta.key, "bmg-2.12");  // oldest first
  std::map<std::int64_t, std::size_t> index{{data->runs[0].id, 0}, {data->runs[1].id, 1}};
  std::vector<cmp::BacklogObservation> obs;
  for (const auto& r : data->rows) {
    obs.push_back(
        {index.at(r.run_id), {r.suite, r.dtype, r.mode, r.config, r.model}, r.speedup, r.speedup_text, r.failed});
  }
  const auto entries = cmp::build_backlog(obs);
  ASSERT_EQ(entries.size(), 3u);  // ModelB (0.5 -> 0.4), tb_b (-> 0.625), tb_a (0.8 -> 1.6)
  EXPECT_EQ(entries[0].key.model, "ModelB");
  EXPECT_EQ(entries[0].status, "open");
  EXPECT_EQ(entries[0].first_seen, 0u);
  EXPECT_EQ(entries[1].key.model, "tb_b");
  EXPECT_EQ(entries[1].first_seen, 1u);
  EXPECT_EQ(entries[2].key.model, "tb_a");
  EXPECT_EQ(entries[2].status, "fixed");
  EXPECT_EQ(entries[2].fixed_in, 1u);
}

TEST(SlowReportStore, SeedRunGivesTheSeedIssue) {
  auto s = testing_support::open_test_store();
  ASSERT_TRUE(s);
  auto m = meta("bmg-release-2.12", "2.12.0+xpu", "2026-05-01T00:00:00Z", {"release-2.12"});
  m.environment_json = R"({"os":"Ubuntu 24.04 LTS","intel-opencl-icd":"26.05.37020.3","libze-dev":"1.27.0"})";
  ASSERT_TRUE(server::ingest_files(*s, m, read_tree(fixture("seed_bmg_2.12"))));
  auto run = schema::require_run(s->db(), "bmg-release-2.12", "run");
  ASSERT_TRUE(run);
  auto rows = server::slow_cases(*s, {*run}, 1.0);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 11u);
  const auto md = cmp::slow_report_markdown(*run, *rows, 1.0);
  EXPECT_EQ(md.substr(0, md.find('\n')),
            "[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)");
  EXPECT_NE(md.find("contain 11 cases"), std::string::npos);
  EXPECT_NE(md.find("| torchbench | bfloat16 | inference | lennard_jones | 1000 | 0.671808 | "
                    "torchbench/bfloat16/inference/performance/"
                    "inductor-results-torchbench-bfloat16-inference-xpu-performance.csv |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- Environment: Ubuntu 24.04 LTS, intel-opencl-icd 26.05.37020.3, libze-dev 1.27.0"),
            std::string::npos);
  // 10 of the 11 seed cases are inference, 7 of them huggingface inference.
  EXPECT_NE(md.find("concentrated in inference workloads (10 of 11 cases), especially huggingface inference (7 cases)"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace perftriage
