// The nightly retention rule keeps a platform's latest run as `slow` and the overview read it: its newest with
// performance results, besides its newest run of any kind (a run of reference files alone).
#include <gtest/gtest.h>

#include "server/app/retention.hpp"

namespace perftriage::server {
namespace {

schema::RunAge age(std::int64_t id, std::string created_at, bool has_performance) {
  return {id, "r" + std::to_string(id), "BMG", std::move(created_at), {}, has_performance};
}

TEST(RetentionLatest, AReferencesOnlyRunNeverLetsTheLatestMeasuredRunExpire) {
  const std::vector<schema::RunAge> runs = {
      age(1, "2026-01-01T00:00:00Z", true),
      age(2, "2026-01-02T00:00:00Z", true),   // the newest with performance results: kept
      age(3, "2026-01-03T00:00:00Z", false),  // references alone, the newest run: kept
  };
  const auto expired = select_expired_runs(runs, "2026-02-01T00:00:00Z", {});
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].key, "r1");
}

TEST(RetentionLatest, APlatformWithoutPerformanceResultsKeepsItsNewestRun) {
  const std::vector<schema::RunAge> runs = {age(1, "2026-01-01T00:00:00Z", false),
                                            age(2, "2026-01-02T00:00:00Z", false)};
  const auto expired = select_expired_runs(runs, "2026-02-01T00:00:00Z", {});
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].key, "r1");
}

}  // namespace
}  // namespace perftriage::server
