#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analyzers/compare/change_detection.hpp"
#include "bench/changepoint_sim.hpp"

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
  EXPECT_EQ(describe(StepParams{}), "windowed-median step (window 5, min magnitude 5%, persistence 2)");
  StepParams p;
  p.persistence = 3;
  Series s = {1.0, 1.0, 1.0, 0.5, 0.5, 1.0, 1.0};
  EXPECT_EQ(detect_steps(s).size(), 2u);    // down at 3, back up at 5
  EXPECT_TRUE(detect_steps(s, p).empty());  // two shifted points do not persist for three
}

// --- detect_changes: the noise-scaled detector the service uses ---

namespace cp = bench::changepoint;

// `nights` nightlies around `level` with a relative noise sigma `noise` (the same normal draws for every noise, from
// `seed`), multiplied by `step` from night `at` on.
Series noisy(double noise, std::size_t at, double step, std::uint64_t seed = 7, std::size_t nights = 40,
             double level = 1.2) {
  cp::Rng rng(seed);
  Series s;
  for (std::size_t i = 0; i < nights; ++i) s.push_back(level * (i >= at ? step : 1.0) * std::exp(noise * rng.normal()));
  return s;
}

TEST(NoiseScaled, ClearStepInLowNoiseIsFoundAtItsNight) {
  const auto changes = detect_changes(noisy(0.005, 22, 0.95));  // -5%: ten noise sigmas
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 22u);
  EXPECT_NEAR(changes[0].before, 1.2, 0.01);
  EXPECT_NEAR(changes[0].relative_change, -0.05, 0.01);
  EXPECT_LT(changes[0].t, -4.5);
  EXPECT_NEAR(changes[0].noise, 0.005, 0.002);
  EXPECT_GT(changes[0].sigmas, 7);
}

TEST(NoiseScaled, TheSameStepInHighNoiseIsNotAChange) {
  // -5% is less than one sigma of a model whose nightlies vary by 8%: the old detector calls it (and more) a step.
  const Series s = noisy(0.08, 22, 0.95);
  EXPECT_TRUE(detect_changes(s).empty());
  EXPECT_FALSE(detect_steps(s).empty());
  EXPECT_NEAR(estimate_noise(s), 0.08, 0.025);
}

TEST(NoiseScaled, OneNightSpikesAreNotChanges) {
  Series s = noisy(0.02, 99, 1.0);
  s[10] = *s[10] * 1.6;  // +60%: thirty sigmas, for one night
  s[25] = *s[25] * 0.5;
  s[37] = *s[37] * 1.4;  // near the end, where fewer nights follow
  EXPECT_TRUE(detect_changes(s).empty());
  s[39] = *s[39] * 0.6;  // the newest night: nothing confirms it yet
  EXPECT_TRUE(detect_changes(s).empty());
}

TEST(NoiseScaled, ANewLevelNeedsThreeNightsToBeReported) {
  Series s = noisy(0.01, 38, 0.8);  // the step's second night is the newest
  EXPECT_TRUE(detect_changes(s).empty());
  s.push_back(*s.back());
  const auto changes = detect_changes(s);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 38u);
}

TEST(NoiseScaled, MissingNightsAreSkippedAndIndicesReferToTheInput) {
  Series s = noisy(0.01, 20, 1.1);
  s[20] = std::nullopt;  // the night of the step failed: the first night measured at the new level is 21
  s[5] = std::nullopt;
  s[30] = 0.0;  // not a measurement either
  s[31] = std::nan("");
  const auto changes = detect_changes(s);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 21u);
  EXPECT_NEAR(changes[0].relative_change, 0.1, 0.02);
}

TEST(NoiseScaled, AGradualDriftIsNoCascade) {
  Series s;
  for (std::size_t i = 0; i < 60; ++i) {
    const double ramp = std::clamp((static_cast<double>(i) - 15) / 25, 0.0, 1.0);  // -40% over 25 nights
    s.push_back(1.5 * (1 - 0.4 * ramp) * (1 + 0.02 * std::sin(static_cast<double>(i) * 2.3)));
  }
  EXPECT_LE(detect_changes(s).size(), 1u);
  EXPECT_GE(detect_steps(s).size(), 2u);  // the old detector fires one step after another down the slope
}

TEST(NoiseScaled, ThresholdsAreData) {
  const Series s = noisy(0.02, 20, 1.08);  // +8%: four sigmas
  ASSERT_EQ(detect_changes(s).size(), 1u);
  NoiseParams strict;
  strict.t_threshold = 30;
  EXPECT_TRUE(detect_changes(s, strict).empty());
  NoiseParams big_only;
  big_only.min_magnitude = 0.10;
  EXPECT_TRUE(detect_changes(s, big_only).empty());
  NoiseParams in_sigmas;
  in_sigmas.min_sigmas = 6;
  EXPECT_TRUE(detect_changes(s, in_sigmas).empty());
  NoiseParams patient;
  patient.min_before = 25;  // the step at 20 has too little history before it
  EXPECT_TRUE(detect_changes(s, patient).empty());
  EXPECT_EQ(
      describe(NoiseParams{}),
      "noise-scaled Welch t (back 12, fore 12, >= 6 before and >= 3 after, t >= 4.5, >= 2 noise sigmas and >= 1%, "
      "values clipped at 3 sigmas, a step beating a line by >= 2 sigma^2, noise >= 0.25%)");
  EXPECT_NE(describe(strict).find("t >= 30"), std::string::npos);
}

TEST(NoiseScaled, ConstantSeriesAndTooShortSeriesHaveNoChange) {
  EXPECT_TRUE(detect_changes(Series(30, 1.5)).empty());
  EXPECT_TRUE(detect_changes({1.0, 2.0}).empty());
  EXPECT_TRUE(detect_changes({}).empty());
  EXPECT_EQ(estimate_noise(Series(30, 1.5)), 0.0);
  Series s(30, 1.5);
  for (std::size_t i = 15; i < 30; ++i) s[i] = 1.2;  // a noiseless step: the noise floor keeps t finite
  const auto changes = detect_changes(s);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 15u);
  EXPECT_TRUE(std::isfinite(changes[0].t));
}

// The benchmark (bench/changepoint_bench.cpp) in small, on its own fixed seed: 120 series with steps of 3-6 noise
// sigmas over the four noise levels, 200 with one-night spikes only.
cp::Tally small_benchmark(cp::Kind kind, double lo, double hi, std::size_t count) {
  const cp::Detector detect = [](const cp::Values& v) {
    std::vector<std::size_t> out;
    for (const auto& c : detect_changes(v)) out.push_back(c.index);
    return out;
  };
  cp::Tally all;
  for (std::size_t n = 0; n < std::size(cp::kNoiseLevels); ++n) {
    cp::add(all, cp::run_cell(detect, {kind, cp::kNoiseLevels[n], lo, hi, count}, 424242 + n, false));
  }
  return all;
}

TEST(NoiseScaled, SmallBenchmarkOnAFixedSeed) {
  const cp::Tally steps = small_benchmark(cp::Kind::step, 3, 6, 30);
  ASSERT_GT(steps.changes, 150u);
  // The targets are 0.95 / 0.95 within 3 nightlies after the change. The full benchmark measures 0.944 / 0.923:
  // a few percent of the steps are placed one night early (the night before looked like the new level), which
  // counts as a miss and a false alarm; with a night early allowed the recall is 0.953 (docs/verdicts.md).
  EXPECT_GE(steps.precision(), 0.92);
  EXPECT_GE(steps.recall(), 0.90);
  EXPECT_GE(steps.recall_a_night_early(), 0.94);
  const cp::Tally spikes = small_benchmark(cp::Kind::spike, 0, 0, 50);
  EXPECT_LE(spikes.false_alarm_rate(), 0.02);  // the target
}

}  // namespace
}  // namespace perftriage::analyzers::compare
