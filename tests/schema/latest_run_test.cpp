// "The latest run of a platform" is its newest run with performance results: a run of reference files alone, or one
// whose performance files held no row, never hides the newest run that measured something (schema/store.hpp RunsWith).
#include <gtest/gtest.h>

#include "schema/blob_codec.hpp"
#include "schema/dashboard_queries.hpp"
#include "schema/retention_store.hpp"
#include "schema/store.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

const ingest::Axes kPerf{"huggingface", "bfloat16", "inference", "performance", "xpu", ""};
const ingest::Axes kAcc{"huggingface", "bfloat16", "inference", "accuracy", "xpu", ""};
const ingest::Axes kRef{"huggingface", "", "inference", "reference", "", ""};

ingest::ResultRow row(std::string model, double speedup, std::string accuracy = {}) {
  ingest::ResultRow r;
  r.line = 2;
  r.dev = "xpu";
  r.model = std::move(model);
  r.batch_size = 8;
  r.speedup = speedup;
  r.speedup_text = std::to_string(speedup);
  r.abs_latency_ms = 10;
  r.accuracy = std::move(accuracy);
  return r;
}

class LatestRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
  }
  Database& db() { return store_->db(); }

  std::int64_t run(const std::string& key, const std::string& platform, const std::string& created) {
    auto id = ensure_run(db(), {key, platform, "xpu", "2.12.0+xpu", "", created, {}, "{}"});
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }
  std::int64_t file(std::int64_t run_id, const std::string& path, const ingest::Axes& axes) {
    NewFile f{path, axes.kind, axes, path, sha256_hex(path), "dev,name", 0, 0, ""};
    auto id = insert_file(db(), run_id, f);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }
  // A result file with these rows (none: a file whose rows all failed to parse, a header alone).
  void results(std::int64_t run_id, const std::string& path, const ingest::Axes& axes,
               const std::vector<ingest::ResultRow>& rows, bool failed = false) {
    const auto id = file(run_id, path, axes);
    std::vector<model::RowFlags> flags(rows.size(), model::RowFlags{failed, false});
    auto ok = insert_results(db(), run_id, id, axes, rows, flags);
    ASSERT_TRUE(ok) << ok.error().message;
  }
  // A references run of torch-xpu-ops: expected accuracies, no result row.
  void references(std::int64_t run_id) {
    const auto id = file(run_id, "inductor_huggingface_inference.csv", kRef);
    ingest::Expectation e;
    e.line = 2;
    e.suite = "huggingface";
    e.mode = "inference";
    e.model = "Bert";
    e.accuracy = "pass";
    ASSERT_TRUE(insert_expectations(db(), run_id, id, {e}));
    ASSERT_TRUE(refresh_run_flags(db(), run_id));
  }
  std::string latest(const std::string& platform) {
    auto r = latest_run(db(), platform);
    EXPECT_TRUE(r) << r.error().message;
    return r && *r ? (*r)->meta.key : "";
  }

  std::optional<Store> store_;
};

TEST_F(LatestRunTest, AReferencesOnlyRunIsNeverThePlatformsLatest) {
  results(run("bmg-nightly", "BMG", "2026-01-01T00:00:00Z"), "a.csv", kPerf, {row("Bert", 0.8)});
  references(run("ref-xpu", "BMG", "2026-01-02T00:00:00Z"));
  EXPECT_EQ(latest("BMG"), "bmg-nightly");
  EXPECT_EQ(latest("bmg"), "bmg-nightly");  // any spelling
}

TEST_F(LatestRunTest, ARunWhoseFilesAllFailedToParseIsNeverThePlatformsLatest) {
  results(run("bmg-nightly", "BMG", "2026-01-01T00:00:00Z"), "a.csv", kPerf, {row("Bert", 0.8)});
  const auto broken = run("bmg-broken", "BMG", "2026-01-02T00:00:00Z");
  results(broken, "a.csv", kPerf, {});
  results(broken, "b.csv", {"timm_models", "float16", "training", "performance", "xpu", ""}, {});
  EXPECT_EQ(latest("BMG"), "bmg-nightly");
}

TEST_F(LatestRunTest, AnAccuracyOnlyRunHasNoPerformanceResults) {
  results(run("bmg-nightly", "BMG", "2026-01-01T00:00:00Z"), "a.csv", kPerf, {row("Bert", 0.8)});
  results(run("bmg-accuracy", "BMG", "2026-01-02T00:00:00Z"), "acc.csv", kAcc, {row("Bert", 0, "pass")});
  EXPECT_EQ(latest("BMG"), "bmg-nightly");
}

TEST_F(LatestRunTest, AFailedRowIsAPerformanceResult) {
  // Every model failing is news (the overview's pass rate), not an empty run.
  results(run("bmg-nightly", "BMG", "2026-01-01T00:00:00Z"), "a.csv", kPerf, {row("Bert", 0.8)});
  results(run("bmg-crashed", "BMG", "2026-01-02T00:00:00Z"), "a.csv", kPerf, {row("Bert", 0)}, true);
  EXPECT_EQ(latest("BMG"), "bmg-crashed");
}

TEST_F(LatestRunTest, APlatformWithoutPerformanceResultsHasNoLatestRun) {
  references(run("ref-xpu", "BMG", "2026-01-02T00:00:00Z"));
  EXPECT_EQ(latest("BMG"), "");
  auto any = latest_run(db(), "BMG", RunsWith::anything);
  ASSERT_TRUE(any && *any);
  EXPECT_EQ((*any)->meta.key, "ref-xpu");
}

TEST_F(LatestRunTest, AShardWithRowsMakesTheRunTheLatest) {
  results(run("bmg-nightly", "BMG", "2026-01-01T00:00:00Z"), "a.csv", kPerf, {row("Bert", 0.8)});
  const auto later = run("bmg-next", "BMG", "2026-01-02T00:00:00Z");
  references(later);
  EXPECT_EQ(latest("BMG"), "bmg-nightly");
  results(later, "a.csv", kPerf, {row("Bert", 1.2)});  // the performance shard arrives
  EXPECT_EQ(latest("BMG"), "bmg-next");
}

TEST_F(LatestRunTest, EveryListOfLatestRunsAgrees) {
  results(run("bmg-nightly", "BMG", "2026-01-01T00:00:00Z"), "a.csv", kPerf, {row("Bert", 0.8)});
  const auto ref = run("ref-xpu", "BMG", "2026-01-02T00:00:00Z");
  references(ref);
  references(run("pvc-ref", "PVC", "2026-01-03T00:00:00Z"));

  auto measured = list_runs(db(), "", RunsWith::performance);
  ASSERT_TRUE(measured) << measured.error().message;
  ASSERT_EQ(measured->size(), 1u);
  EXPECT_EQ(measured->front().meta.key, "bmg-nightly");
  EXPECT_EQ(list_runs(db(), "bmg", RunsWith::performance)->size(), 1u);
  EXPECT_EQ(list_runs(db())->size(), 3u);  // every run, for the run lists

  auto briefs = dashboard::list_runs(db(), "BMG", 10, RunsWith::performance);
  ASSERT_TRUE(briefs) << briefs.error().message;
  ASSERT_EQ(briefs->size(), 1u);
  EXPECT_EQ(briefs->front().key, "bmg-nightly");
  EXPECT_EQ(dashboard::list_runs(db(), "", 10, RunsWith::performance)->size(), 1u);
  EXPECT_EQ(dashboard::list_runs(db(), "", 10)->size(), 3u);

  EXPECT_EQ(has_performance_results(db(), ref).value(), false);
  auto nightly = find_run(db(), "bmg-nightly");
  ASSERT_TRUE(nightly && *nightly);
  EXPECT_EQ(has_performance_results(db(), (*nightly)->id).value(), true);
}

TEST_F(LatestRunTest, RetentionSeesWhichRunsHavePerformanceResults) {
  results(run("bmg-nightly", "BMG", "2026-01-01T00:00:00Z"), "a.csv", kPerf, {row("Bert", 0.8)});
  references(run("ref-xpu", "BMG", "2026-01-02T00:00:00Z"));
  auto ages = list_run_ages(db());
  ASSERT_TRUE(ages) << ages.error().message;
  ASSERT_EQ(ages->size(), 2u);
  EXPECT_TRUE((*ages)[0].has_performance);
  EXPECT_FALSE((*ages)[1].has_performance);
}

}  // namespace
}  // namespace perftriage::schema
