// The backlog kept at ingest (schema/backlog_store) must equal the one recomputed from every run
// (history_store::backlog_rows + analyzers::compare::build_backlog), whatever order runs arrive in.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>

#include "analyzers/compare/backlog.hpp"
#include "schema/backlog_store.hpp"
#include "schema/history_store.hpp"
#include "server/app/ingest_service.hpp"
#include "tests/support/backlog_check.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage {
namespace {

namespace cmp = analyzers::compare;

using testing::nightly_csv;

using testing::expect_same_backlog;

class MaintainedBacklog : public ::testing::TestWithParam<bool> {};

TEST_P(MaintainedBacklog, EqualsTheRecomputedBacklog) {
  const bool shuffled = GetParam();
  auto store = testing_support::open_test_store();
  ASSERT_TRUE(store);
  std::mt19937 rng(shuffled ? 99 : 7);
  constexpr int kRuns = 24;
  std::vector<int> order(kRuns);
  for (int i = 0; i < kRuns; ++i) order[static_cast<std::size_t>(i)] = i;
  if (shuffled) std::shuffle(order.begin(), order.end(), rng);  // late uploads of older runs
  for (int run : order) {
    server::UploadMeta meta;
    meta.run = fmt::format("n{:02d}", run);
    meta.platform = "BMG";
    meta.created_at = fmt::format("2026-01-{:02d}T00:00:00Z", run + 1);
    meta.axes = {"huggingface", "bfloat16", "inference", "", "", ""};
    auto summary = server::ingest_files(*store, meta, {{"perf.csv", nightly_csv(rng, 40)}});
    ASSERT_TRUE(summary) << summary.error().message;
  }
  expect_same_backlog(*store, "BMG");
}

INSTANTIATE_TEST_SUITE_P(ArrivalOrder, MaintainedBacklog, ::testing::Values(false, true));

TEST(MaintainedBacklogRebuild, ExistingDataIsReplayedWhenTheMigrationAsksForIt) {
  auto store = testing_support::open_test_store();
  ASSERT_TRUE(store);
  std::mt19937 rng(3);
  for (int run = 0; run < 8; ++run) {
    server::UploadMeta meta;
    meta.run = fmt::format("n{:02d}", run);
    meta.platform = "BMG";
    meta.created_at = fmt::format("2026-01-{:02d}T00:00:00Z", run + 1);
    meta.axes = {"huggingface", "bfloat16", "inference", "", "", ""};
    ASSERT_TRUE(server::ingest_files(*store, meta, {{"perf.csv", nightly_csv(rng, 30)}}));
  }
  ASSERT_TRUE(store->db().exec("DELETE FROM backlog; INSERT INTO maintenance(task) VALUES('rebuild_backlog')"));
  ASSERT_TRUE(schema::rebuild_backlog_if_pending(store->db()));
  expect_same_backlog(*store, "BMG");
  auto pending = schema::Statement::prepare(store->db(), "SELECT count(*) FROM maintenance");
  ASSERT_TRUE(pending && *pending->step());
  EXPECT_EQ(pending->int64(0), 0);
}

}  // namespace
}  // namespace perftriage
