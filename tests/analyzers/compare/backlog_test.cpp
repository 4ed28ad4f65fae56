#include <gtest/gtest.h>

#include "analyzers/compare/backlog.hpp"

namespace perftriage::analyzers::compare {
namespace {

BacklogObservation obs(std::size_t run, const std::string& model, double speedup) {
  return {run, {"huggingface", "bfloat16", "inference", "", model}, speedup, std::to_string(speedup), speedup == 0};
}

// Runs 0..4, oldest first.
std::vector<BacklogObservation> history() {
  return {
      // X: slow in runs 1 and 2, fixed in 3, still fine in 4.
      obs(0, "X", 1.05),
      obs(1, "X", 0.70),
      obs(2, "X", 0.80),
      obs(3, "X", 1.20),
      obs(4, "X", 1.10),
      // Y: slow in 0, not measured in 1..3, slow again in 4.
      obs(0, "Y", 0.90),
      obs(4, "Y", 0.95),
      // Z: slow in 2, fails (speedup 0) in 4.
      obs(2, "Z", 0.60),
      obs(3, "Z", 0.65),
      obs(4, "Z", 0),
      // W: never slow.
      obs(0, "W", 1.5),
      obs(4, "W", 1.4),
  };
}

TEST(Backlog, FirstSeenLastSeenAndStatus) {
  const auto entries = build_backlog(history());
  ASSERT_EQ(entries.size(), 3u);  // W was never slow
  // Open first, then failing, then fixed.
  EXPECT_EQ(entries[0].key.model, "Y");
  EXPECT_EQ(entries[0].status, "open");
  EXPECT_EQ(entries[0].first_seen, 0u);
  EXPECT_EQ(entries[0].last_seen, 4u);
  EXPECT_EQ(entries[0].runs_slow, 2u);
  EXPECT_FALSE(entries[0].fixed_in);

  EXPECT_EQ(entries[1].key.model, "Z");
  EXPECT_EQ(entries[1].status, "failing");
  EXPECT_EQ(entries[1].last_seen, 3u);
  EXPECT_DOUBLE_EQ(*entries[1].worst_speedup, 0.60);

  EXPECT_EQ(entries[2].key.model, "X");
  EXPECT_EQ(entries[2].status, "fixed");
  EXPECT_EQ(entries[2].first_seen, 1u);
  EXPECT_EQ(entries[2].last_seen, 2u);
  ASSERT_TRUE(entries[2].fixed_in);
  EXPECT_EQ(*entries[2].fixed_in, 3u);
  EXPECT_EQ(entries[2].latest, 4u);
}

TEST(Backlog, ThresholdDecidesWhatIsSlow) {
  const auto entries = build_backlog(history(), 0.75);  // only X@0.70 and Z@0.60/0.65
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].key.model, "Z");
  EXPECT_EQ(entries[1].key.model, "X");
  EXPECT_EQ(*entries[1].fixed_in, 2u);  // 0.80 is not slow below 0.75
}

TEST(Backlog, ObservationOrderDoesNotMatter) {
  auto shuffled = history();
  std::reverse(shuffled.begin(), shuffled.end());
  const auto a = build_backlog(history());
  const auto b = build_backlog(shuffled);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].key, b[i].key);
    EXPECT_EQ(a[i].status, b[i].status);
    EXPECT_EQ(a[i].fixed_in, b[i].fixed_in);
  }
}

}  // namespace
}  // namespace perftriage::analyzers::compare
