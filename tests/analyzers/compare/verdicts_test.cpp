// One test per row of docs/verdicts.md: each change a case can carry, with the numbers that make it, and the verdict
// that follows. A case is judged on every dimension at once; a regression needs one worse change, an improvement a
// better one and no worse one.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/case_compare.hpp"
#include "analyzers/compare/compare_render.hpp"
#include "tests/analyzers/compare/helpers.hpp"

namespace perftriage::analyzers::compare {
namespace {

// One case measured in both runs: speedup @ compiled ms (eager = speedup x compiled), compile seconds and the
// peak-memory compression ratio where given.
struct Side {
  double speedup;
  double compiled_ms;
  std::optional<double> compile_s = std::nullopt;
  std::optional<double> compression = std::nullopt;
};

model::ResultRecord row(const Side& s) {
  auto r = test::perf("torchbench", "bfloat16", "training", "resnet50", s.speedup, s.compiled_ms, s.compile_s);
  r.compression_ratio = s.compression;
  return r;
}

CaseComparison judge(const Side& base, const Side& target, const Thresholds& t = {}) {
  auto cases = compare_cases({row(base)}, {row(target)}, t);
  EXPECT_EQ(cases.size(), 1u);
  return cases.front();
}

bool has(const CaseComparison& c, Change ch) {
  return std::find(c.changes.begin(), c.changes.end(), ch) != c.changes.end();
}

// The case that started it: torchbench bfloat16 training resnet50, speedup 1.395 -> 0.802, the compiled path the
// same (inductor ratio 1.000), eager 1.739x faster. Inductor lost its whole lead: a regression, never an improvement.
TEST(Verdicts, NewlySlowerThanEagerIsARedRegressionEvenWhenEagerGotFaster) {
  const auto c = judge({1.395, 10.0}, {0.802, 10.0});
  EXPECT_NEAR(*c.inductor_ratio, 1.0, 1e-12);
  EXPECT_NEAR(*c.eager_ratio, 1.395 / 0.802, 1e-9);  // 1.739
  EXPECT_TRUE(has(c, Change::newly_slower_than_eager));
  EXPECT_TRUE(has(c, Change::speedup_dropped));  // 0.802 / 1.395 = 0.575
  EXPECT_TRUE(has(c, Change::eager_faster));
  EXPECT_EQ(c.verdict, Verdict::regression);
  EXPECT_EQ(c.severity, "red");
}

TEST(Verdicts, NoLongerSlowerThanEagerIsAnImprovement) {
  const auto c = judge({0.9, 12.0}, {1.05, 10.3});  // eager 10.8 -> 10.815: the compiled path did it
  EXPECT_TRUE(has(c, Change::no_longer_slower_than_eager));
  EXPECT_TRUE(has(c, Change::speedup_rose));     // 1.05 / 0.9 = 1.167
  EXPECT_TRUE(has(c, Change::compiled_faster));  // 12 / 10.3 = 1.165
  EXPECT_EQ(c.verdict, Verdict::improvement);
}

TEST(Verdicts, ASpeedupThatDroppedBelowTheThresholdIsARegression) {
  const auto c = judge({2.0, 10.0}, {1.7, 10.0});  // eager 20 -> 17: eager got faster, compiled did not follow
  EXPECT_TRUE(has(c, Change::speedup_dropped));    // 0.85 < 0.9
  EXPECT_FALSE(has(c, Change::newly_slower_than_eager));
  EXPECT_EQ(c.verdict, Verdict::regression);
  EXPECT_EQ(c.severity, "yellow");  // 0.85 is not below 0.8
}

TEST(Verdicts, ASpeedupThatRoseWithAFasterCompiledPathIsAnImprovement) {
  const auto c = judge({2.0, 12.0}, {2.4, 10.0});  // eager 24 -> 24
  EXPECT_TRUE(has(c, Change::speedup_rose));       // 1.2
  EXPECT_TRUE(has(c, Change::compiled_faster));    // 1.2
  EXPECT_EQ(c.verdict, Verdict::improvement);
}

TEST(Verdicts, ASlowerCompiledPathIsARegression) {
  const auto c = judge({2.0, 10.0}, {20.0 / 12.0, 12.0});  // eager 20 -> 20
  EXPECT_TRUE(has(c, Change::compiled_slower));            // 10 / 12 = 0.833
  EXPECT_EQ(c.verdict, Verdict::regression);
  EXPECT_EQ(c.severity, "yellow");
  const auto red = judge({2.0, 10.0}, {20.0 / 13.0, 13.0});
  EXPECT_EQ(red.severity, "red");  // 10 / 13 = 0.769 < 0.8
}

TEST(Verdicts, AFasterCompiledPathIsAnImprovement) {
  const auto c = judge({2.0, 10.0}, {2.5, 8.0});  // eager 20 -> 20
  EXPECT_TRUE(has(c, Change::compiled_faster));   // 1.25
  EXPECT_EQ(c.verdict, Verdict::improvement);
}

// On XPU the eager kernels are the team's too: eager getting slower is a regression even though the speedup rises.
TEST(Verdicts, ASlowerEagerPathIsARegressionThoughTheSpeedupRose) {
  const auto c = judge({2.0, 10.0}, {2.5, 10.0});  // eager 20 -> 25
  EXPECT_TRUE(has(c, Change::eager_slower));       // 0.8
  EXPECT_TRUE(has(c, Change::speedup_rose));
  EXPECT_EQ(c.verdict, Verdict::regression);
  EXPECT_EQ(c.severity, "yellow");  // 0.8 is not below 0.8
}

TEST(Verdicts, AFasterEagerPathAloneIsNoImprovementWhenTheSpeedupDrops) {
  const auto c = judge({1.5, 20.0}, {1.0, 20.0});  // eager 30 -> 20
  EXPECT_TRUE(has(c, Change::eager_faster));
  EXPECT_EQ(c.verdict, Verdict::regression);  // the speedup ratio 0.667
  EXPECT_EQ(c.severity, "red");
}

TEST(Verdicts, LongerCompileTimeIsARegression) {
  const auto c = judge({2.0, 10.0, 40.0}, {2.0, 10.0, 60.0});
  EXPECT_NEAR(*c.compile_ratio, 40.0 / 60.0, 1e-12);
  EXPECT_TRUE(has(c, Change::compile_slower));  // 0.667 < 0.8
  EXPECT_EQ(c.verdict, Verdict::regression);
  EXPECT_EQ(c.severity, "yellow");  // compile time alone never makes red
}

TEST(Verdicts, CompileTimeWithinItsNoiseIsUnchanged) {
  const auto c = judge({2.0, 10.0, 40.0}, {2.0, 10.0, 45.0});  // 0.889: compile time moves more than latency
  EXPECT_TRUE(c.changes.empty());
  EXPECT_EQ(c.verdict, Verdict::unchanged);
}

TEST(Verdicts, ShorterCompileTimeIsAnImprovement) {
  const auto c = judge({2.0, 10.0, 60.0}, {2.0, 10.0, 40.0});
  EXPECT_TRUE(has(c, Change::compile_faster));  // 1.5 > 1.25
  EXPECT_EQ(c.verdict, Verdict::improvement);
}

TEST(Verdicts, ALowerCompressionRatioIsAMemoryRegression) {
  const auto c = judge({2.0, 10.0, std::nullopt, 1.5}, {2.0, 10.0, std::nullopt, 1.2});
  EXPECT_NEAR(*c.memory_ratio, 0.8, 1e-12);  // 1.2 / 1.5
  EXPECT_TRUE(has(c, Change::memory_worse));
  EXPECT_EQ(c.verdict, Verdict::regression);
}

TEST(Verdicts, AHigherCompressionRatioIsAMemoryImprovement) {
  const auto c = judge({2.0, 10.0, std::nullopt, 1.2}, {2.0, 10.0, std::nullopt, 1.5});
  EXPECT_TRUE(has(c, Change::memory_better));  // 1.25
  EXPECT_EQ(c.verdict, Verdict::improvement);
}

// "improvement only when nothing the team tracks got worse".
TEST(Verdicts, ABetterChangeWithAWorseOneIsARegression) {
  const auto c = judge({2.0, 12.0, 40.0}, {2.4, 10.0, 60.0});
  EXPECT_TRUE(has(c, Change::compiled_faster));
  EXPECT_TRUE(has(c, Change::compile_slower));
  EXPECT_EQ(c.verdict, Verdict::regression);
}

TEST(Verdicts, CompileAndMemoryThresholdsAreData) {
  Thresholds loose;
  loose.compile_regression = 0.5;
  loose.memory_regression = 0.7;
  const auto c = judge({2.0, 10.0, 40.0, 1.5}, {2.0, 10.0, 60.0, 1.2}, loose);
  EXPECT_TRUE(c.changes.empty()) << "0.667 and 0.8 are within the looser thresholds";
  auto parsed = parse_thresholds([](std::string_view name) -> std::string {
    return name == "compile_regression" ? "0.5" : name == "memory_improvement" ? "1.3" : "";
  });
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_DOUBLE_EQ(parsed->compile_regression, 0.5);
  EXPECT_DOUBLE_EQ(parsed->memory_improvement, 1.3);
  EXPECT_DOUBLE_EQ(parsed->regression, 0.9);
  auto bad = parse_thresholds([](std::string_view name) -> std::string {
    return name == "compile_regression" ? "1.3" : "";  // not below compile_improvement (1.25)
  });
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, "bad_thresholds");
  auto text =
      parse_thresholds([](std::string_view name) -> std::string { return name == "memory_regression" ? "x" : ""; });
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().column, "memory_regression");
}

TEST(Verdicts, TheJsonNamesEachChangeItsDimensionAndWhetherItIsWorse) {
  const auto cases = compare_cases({row({1.395, 10.0, 40.0, 1.5})}, {row({0.802, 10.0, 60.0, 1.5})});
  const auto j = nlohmann::json::parse(compare_json_text("b", "t", {}, cases, aggregate(cases)));
  const auto& changes = j["cases"][0]["changes"];
  ASSERT_EQ(changes.size(), 4u) << changes;
  EXPECT_EQ(changes[0],
            (nlohmann::json{{"change", "newly_slower_than_eager"}, {"dimension", "vs_eager"}, {"worse", true}}));
  EXPECT_EQ(changes[2]["change"], "eager_faster");
  EXPECT_EQ(changes[2]["worse"], false);
  EXPECT_EQ(changes[3]["dimension"], "compile_time");
  EXPECT_NEAR(j["cases"][0]["compile_ratio"].get<double>(), 40.0 / 60.0, 1e-12);
  EXPECT_NEAR(j["cases"][0]["memory_ratio"].get<double>(), 1.0, 1e-12);
  // HUD's four metrics per side: pass rate, geomean speedup, mean compile seconds, geomean compression ratio.
  const auto& target = j["aggregates"]["overall"]["target"];
  EXPECT_DOUBLE_EQ(target["mean_compilation_s"].get<double>(), 60.0);
  EXPECT_DOUBLE_EQ(target["geomean_compression_ratio"].get<double>(), 1.5);
}

}  // namespace
}  // namespace perftriage::analyzers::compare
