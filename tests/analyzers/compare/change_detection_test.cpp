#include <gtest/gtest.h>

#include "analyzers/compare/change_detection.hpp"

namespace perftriage::analyzers::compare {
namespace {

using Series = std::vector<std::optional<double>>;

// 30 nightlies around speedup 1.20 with +-1% noise, one single-point spike (night 8: 1.60) and one persistent
// step down to ~1.00 from night 18 on (-16.7%).
Series nightly_with_step_and_spike() {
  const double noise[] = {0.010, -0.008, 0.004, -0.010, 0.006, 0.000, -0.004, 0.008, 0.002, -0.006};
  Series s;
  for (int i = 0; i < 30; ++i) {
    const double level = i < 18 ? 1.20 : 1.00;
    s.push_back(level * (1 + noise[i % 10]));
  }
  s[8] = 1.60;
  return s;
}

TEST(ChangeDetection, DetectsThePersistentStepAndNotTheSpike) {
  const auto changes = detect_steps(nightly_with_step_and_spike());
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 18u);
  // Baseline = median of nights 13..17, noise -1%, +0.6%, 0, -0.4%, +0.8%: the 0 one, 1.20.
  EXPECT_NEAR(changes[0].before, 1.2, 1e-12);
  EXPECT_LT(changes[0].relative_change, -0.15);
}

TEST(ChangeDetection, SinglePointSpikeAloneRaisesNothing) {
  Series s(20, 1.5);
  s[10] = 0.9;
  EXPECT_TRUE(detect_steps(s).empty());
}

TEST(ChangeDetection, StepBelowMinimumMagnitudeIsIgnored) {
  Series s(10, 1.0);
  for (std::size_t i = 5; i < 10; ++i) s[i] = 0.96;  // -4%
  EXPECT_TRUE(detect_steps(s).empty());
}

TEST(ChangeDetection, UnconfirmedShiftAtTheLastPointIsNotAStepYet) {
  Series s(10, 1.0);
  s[9] = 0.5;
  EXPECT_TRUE(detect_steps(s).empty());
  s.push_back(0.5);  // the next nightly confirms it
  const auto changes = detect_steps(s);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 9u);
}

TEST(ChangeDetection, GapsAreSkippedAndIndicesRefertoTheInput) {
  Series s = {1.0, 1.0, 1.0, std::nullopt, 1.0, 1.3, std::nullopt, 1.3, 1.3};
  const auto changes = detect_steps(s);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 5u);
  EXPECT_NEAR(changes[0].relative_change, 0.3, 1e-12);
}

TEST(ChangeDetection, BaselineRestartsAfterAStep) {
  Series s = {1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0};
  const auto changes = detect_steps(s);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].index, 4u);
  EXPECT_EQ(changes[1].index, 8u);
  EXPECT_NEAR(changes[1].relative_change, -0.5, 1e-12);
}

TEST(ChangeDetection, ParamsAreNamedInTheMethod) {
  EXPECT_EQ(describe({}), "windowed-median step (window 5, min magnitude 5%, persistence 2)");
  StepParams p;
  p.persistence = 3;
  Series s = {1.0, 1.0, 1.0, 0.5, 0.5, 1.0, 1.0};
  EXPECT_EQ(detect_steps(s).size(), 2u);    // down at 3, back up at 5
  EXPECT_TRUE(detect_steps(s, p).empty());  // two shifted points do not persist for three
}

}  // namespace
}  // namespace perftriage::analyzers::compare
