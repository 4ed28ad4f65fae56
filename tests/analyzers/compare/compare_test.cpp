// Golden comparison of two small runs. Every expected number below was computed by hand (see the comments).
#include <gtest/gtest.h>

#include <limits>

#include <nlohmann/json.hpp>

#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/case_compare.hpp"
#include "analyzers/compare/compare_render.hpp"
#include "common/json_text.hpp"
#include "tests/analyzers/compare/helpers.hpp"

namespace perftriage::analyzers::compare {
namespace {

using test::acc;
using test::perf;

constexpr const char* HF = "huggingface";
constexpr const char* TB = "torchbench";

// base                                      target
// A  hf  2.0 @ 10 ms (eager 20)             2.0 @ 10 ms (eager 20)          ratios 1 / 1        unchanged
// B  hf  0.5 @ 40 ms (eager 20)             0.4 @ 50 ms (eager 20)          0.8 / 1             regression (yellow)
// C  hf  1.5 @ 20 ms (eager 30)             1.0 @ 20 ms (eager 20)          1 / 1.5             regression (red): the
//                                                                           speedup dropped to 0.667, eager got faster
//                                                                           and the compiled path did not follow
// D  hf  1.2 @ 10 ms                        0 (failed)                                          new_failed
// E  hf  1.1 @ 10 ms                        -                                                   missing
// F  hf  -                                  1.3 @ 10 ms                                         new
// G  hf  3.0 @ 10 ms, accuracy pass         3.0 @ 10 ms, fail_accuracy                          new_failed
// H  tb  0.8 @ 10 ms (eager 8)              1.6 @ 5 ms (eager 8)            2 / 1               improvement
// I  tb  1.25 @ 8 ms (eager 10)             0.625 @ 16 ms (eager 10)        0.5 / 1             regression (red): now
//                                                                                               slower than eager
std::vector<model::ResultRecord> base_run() {
  return {perf(HF, "bfloat16", "inference", "ModelA", 2.0, 10, 40),
          perf(HF, "bfloat16", "inference", "ModelB", 0.5, 40, 30),
          perf(HF, "bfloat16", "inference", "ModelC", 1.5, 20, 10),
          perf(HF, "bfloat16", "inference", "ModelD", 1.2, 10),
          perf(HF, "bfloat16", "inference", "ModelE", 1.1, 10),
          perf(HF, "bfloat16", "inference", "ModelG", 3.0, 10),
          acc(HF, "bfloat16", "inference", "ModelG", "pass"),
          perf(TB, "float32", "training", "tb_a", 0.8, 10, std::nullopt, 4.0),
          perf(TB, "float32", "training", "tb_b", 1.25, 8)};
}

std::vector<model::ResultRecord> target_run() {
  return {perf(HF, "bfloat16", "inference", "ModelA", 2.0, 10, 50),
          perf(HF, "bfloat16", "inference", "ModelB", 0.4, 50, 30),
          perf(HF, "bfloat16", "inference", "ModelC", 1.0, 20),  // compile latency measured on one side only
          perf(HF, "bfloat16", "inference", "ModelD", 0, 0),
          perf(HF, "bfloat16", "inference", "ModelF", 1.3, 10),
          perf(HF, "bfloat16", "inference", "ModelG", 3.0, 10),
          acc(HF, "bfloat16", "inference", "ModelG", "fail_accuracy"),
          perf(TB, "float32", "training", "tb_a", 1.6, 5, std::nullopt, 2.0),
          perf(TB, "float32", "training", "tb_b", 0.625, 16)};
}

const CaseComparison& find(const std::vector<CaseComparison>& cases, const std::string& model) {
  for (const auto& c : cases) {
    if (c.key.model == model) return c;
  }
  throw std::runtime_error("no case " + model);
}

TEST(CompareCases, GoldenTable) {
  const auto cases = compare_cases(base_run(), target_run());
  ASSERT_EQ(cases.size(), 9u);
  // Ordered by suite, dtype, mode, config, model.
  EXPECT_EQ(cases.front().key.model, "ModelA");
  EXPECT_EQ(cases.back().key.model, "tb_b");

  const auto& a = find(cases, "ModelA");
  EXPECT_EQ(a.verdict, Verdict::unchanged);
  EXPECT_DOUBLE_EQ(*a.inductor_ratio, 1.0);
  EXPECT_DOUBLE_EQ(*a.eager_ratio, 1.0);
  EXPECT_EQ(a.status_change, "");
  EXPECT_TRUE(a.moved.empty());

  const auto& b = find(cases, "ModelB");
  EXPECT_EQ(b.verdict, Verdict::regression);
  EXPECT_DOUBLE_EQ(*b.inductor_ratio, 0.8);                                                  // 40 / 50
  EXPECT_NEAR(*b.eager_ratio, 1.0, 1e-12);                                                   // 20 / 20
  EXPECT_EQ(b.severity, "yellow");                                                           // 0.8 is not below 0.8
  EXPECT_EQ(b.moved, (std::vector<std::string>{"speedup dropped", "compiled got slower"}));  // 0.4 / 0.5 = 0.8

  const auto& c = find(cases, "ModelC");
  EXPECT_EQ(c.verdict, Verdict::regression);  // a faster eager the compiled path did not follow is no improvement
  EXPECT_EQ(c.severity, "red");               // the speedup ratio 0.667 is below 0.8
  EXPECT_DOUBLE_EQ(*c.eager_ratio, 1.5);      // 30 / 20
  EXPECT_EQ(c.moved, (std::vector<std::string>{"speedup dropped", "eager got faster"}));
  EXPECT_NEAR(*c.speedup_ratio(), 1.0 / 1.5, 1e-12);

  const auto& d = find(cases, "ModelD");
  EXPECT_EQ(d.verdict, Verdict::new_failed);
  EXPECT_EQ(d.status_change, "new_failed");
  EXPECT_FALSE(d.inductor_ratio);

  EXPECT_EQ(find(cases, "ModelE").verdict, Verdict::missing);
  EXPECT_EQ(find(cases, "ModelE").status_change, "missing");
  EXPECT_EQ(find(cases, "ModelF").verdict, Verdict::added);
  EXPECT_EQ(find(cases, "ModelF").status_change, "new");

  const auto& g = find(cases, "ModelG");
  EXPECT_EQ(g.verdict, Verdict::new_failed);  // accuracy failed; the speedup itself did not move
  EXPECT_DOUBLE_EQ(*g.inductor_ratio, 1.0);

  const auto& h = find(cases, "tb_a");
  EXPECT_EQ(h.verdict, Verdict::improvement);
  EXPECT_DOUBLE_EQ(*h.inductor_ratio, 2.0);
  EXPECT_EQ(h.moved, (std::vector<std::string>{"no longer slower than eager", "speedup rose", "compiled got faster"}));

  const auto& i = find(cases, "tb_b");
  EXPECT_EQ(i.verdict, Verdict::regression);
  EXPECT_DOUBLE_EQ(*i.inductor_ratio, 0.5);  // 8 / 16
  EXPECT_EQ(i.severity, "red");
  EXPECT_EQ(i.changes.front(), Change::newly_slower_than_eager);
}

TEST(CompareAggregates, GoldenOverallInBothConventions) {
  const auto agg = aggregate(compare_cases(base_run(), target_run()));
  const auto& o = agg.overall;
  EXPECT_EQ(o.cases, 9);
  EXPECT_EQ(o.compared, 5);  // A, B, C, H, I pass on both sides
  // Base side: 8 cases (A B C D E G H I), all passing. Target: 8 cases (A B C D F G H I), D and G failing.
  EXPECT_EQ(o.base.cases, 8);
  EXPECT_EQ(o.base.passing, 8);
  EXPECT_DOUBLE_EQ(*o.base.pass_rate, 1.0);
  EXPECT_EQ(o.target.cases, 8);
  EXPECT_EQ(o.target.passing, 6);
  EXPECT_DOUBLE_EQ(*o.target.pass_rate, 0.75);
  // Base speedups over A B C H I: 2, 0.5, 1.5, 0.8, 1.25 -> product 1.5 -> 1.5^(1/5).
  EXPECT_NEAR(*o.base.geomean_speedup_unclipped, 1.0844717711976986, 1e-12);
  // Clipped at 1: 2, 1, 1.5, 1, 1.25 -> product 3.75 -> 3.75^(1/5).
  EXPECT_NEAR(*o.base.geomean_speedup_clipped, 1.302585542348676, 1e-12);
  // Target: 2, 0.4, 1.0, 1.6, 0.625 -> product 0.8 -> 0.8^(1/5); clipped 2, 1, 1, 1.6, 1 -> 3.2^(1/5).
  EXPECT_NEAR(*o.target.geomean_speedup_unclipped, 0.956352499790037, 1e-12);
  EXPECT_NEAR(*o.target.geomean_speedup_clipped, 1.2619146889603865, 1e-12);
  // Inductor ratios 1, 0.8, 1, 2, 0.5 -> 0.8^(1/5); eager ratios 1, 1, 1.5, 1, 1 -> 1.5^(1/5).
  EXPECT_NEAR(*o.geomean_inductor_ratio, 0.956352499790037, 1e-12);
  EXPECT_NEAR(*o.geomean_eager_ratio, 1.0844717711976986, 1e-12);
  // Compile latency on both sides only for A (40/50 = 0.8) and B (30/30 = 1): sqrt(0.8).
  EXPECT_EQ(o.compile_latency_cases, 2);
  EXPECT_NEAR(*o.compile_latency_ratio, 0.8944271909999159, 1e-12);
  // Peak memory only measured for tb_a: 4 / 2.
  EXPECT_EQ(o.peak_memory_cases, 1);
  EXPECT_DOUBLE_EQ(*o.peak_memory_ratio, 2.0);
  EXPECT_EQ(o.regressions, 3);   // B, C, tb_b
  EXPECT_EQ(o.red, 2);           // C, tb_b
  EXPECT_EQ(o.improvements, 1);  // tb_a
  EXPECT_EQ(o.unchanged, 1);
  EXPECT_EQ(o.new_failed, 2);
  EXPECT_EQ(o.missing, 1);
  EXPECT_EQ(o.added, 1);
}

TEST(CompareAggregates, GoldenPerSuiteAndPerSuiteDtypeMode) {
  const auto agg = aggregate(compare_cases(base_run(), target_run()));
  ASSERT_EQ(agg.by_suite.size(), 2u);
  const auto& hf = agg.by_suite.at(HF);
  EXPECT_EQ(hf.compared, 3);
  // Base 2, 0.5, 1.5 -> 1.5^(1/3); clipped 2, 1, 1.5 -> 3^(1/3).
  EXPECT_NEAR(*hf.base.geomean_speedup_unclipped, 1.1447142425533319, 1e-12);
  EXPECT_NEAR(*hf.base.geomean_speedup_clipped, 1.4422495703074083, 1e-12);
  // Target 2, 0.4, 1 -> 0.8^(1/3); clipped 2, 1, 1 -> 2^(1/3).
  EXPECT_NEAR(*hf.target.geomean_speedup_unclipped, 0.9283177667225558, 1e-12);
  EXPECT_NEAR(*hf.target.geomean_speedup_clipped, 1.2599210498948732, 1e-12);
  EXPECT_DOUBLE_EQ(*hf.target.pass_rate, 4.0 / 6.0);  // A B C F pass; D G fail
  const auto& tb = agg.by_suite.at(TB);
  // Base 0.8, 1.25 -> 1; clipped 1, 1.25 -> sqrt(1.25). Target 1.6, 0.625 -> 1; clipped 1.6, 1 -> sqrt(1.6).
  EXPECT_NEAR(*tb.base.geomean_speedup_unclipped, 1.0, 1e-12);
  EXPECT_NEAR(*tb.base.geomean_speedup_clipped, 1.118033988749895, 1e-12);
  EXPECT_NEAR(*tb.target.geomean_speedup_unclipped, 1.0, 1e-12);
  EXPECT_NEAR(*tb.target.geomean_speedup_clipped, 1.2649110640673518, 1e-12);
  EXPECT_NEAR(*tb.geomean_inductor_ratio, 1.0, 1e-12);  // 2 x 0.5
  EXPECT_FALSE(tb.compile_latency_ratio);               // not measured: absent, not 1
  ASSERT_EQ(agg.by_suite_dtype_mode.size(), 2u);
  const auto& hf_bf16 = agg.by_suite_dtype_mode.at({HF, "bfloat16", "inference"});
  EXPECT_EQ(hf_bf16.cases, 7);
  EXPECT_NEAR(*hf_bf16.geomean_inductor_ratio, 0.9283177667225558, 1e-12);  // 1, 0.8, 1 -> 0.8^(1/3)
}

TEST(CompareAggregates, GeomeanOfKnownValues) {
  EXPECT_NEAR(*geomean({2, 0.5, 1.5}), 1.1447142425533319, 1e-12);          // 1.5^(1/3)
  EXPECT_NEAR(*geomean_clipped({2, 0.5, 1.5}), 1.4422495703074083, 1e-12);  // 3^(1/3)
  EXPECT_FALSE(geomean({}));
  EXPECT_FALSE(geomean({1.0, 0.0}));
}

TEST(CompareCases, ThresholdsAreConfigurable) {
  const Thresholds t{0.75, 0.5, 1.6};
  const auto cases = compare_cases(base_run(), target_run(), t);
  EXPECT_EQ(find(cases, "ModelB").verdict, Verdict::unchanged);   // 0.8 is above 0.75
  EXPECT_EQ(find(cases, "ModelC").verdict, Verdict::regression);  // the speedup ratio 0.667 is below 0.75 ...
  EXPECT_EQ(find(cases, "ModelC").severity, "yellow");            // ... and not below 0.5
  EXPECT_EQ(find(cases, "tb_b").severity, "red");                 // 0.5 is not below 0.5, but it lost its lead
  EXPECT_EQ(find(cases, "tb_a").verdict, Verdict::improvement);   // 2 > 1.6
}

TEST(CompareCases, FailingOnBothSidesIsUnchangedWithoutStatusChange) {
  const auto cases =
      compare_cases({perf(HF, "float16", "training", "M", 0, 0)}, {perf(HF, "float16", "training", "M", 0, 0)});
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].verdict, Verdict::unchanged);
  EXPECT_EQ(cases[0].status_change, "");
  EXPECT_EQ(aggregate(cases).overall.compared, 0);
}

TEST(CompareCases, NewPassedWhenAccuracyRecovers) {
  const auto cases = compare_cases(
      {perf(HF, "float16", "inference", "M", 1.2, 5), acc(HF, "float16", "inference", "M", "fail_to_run")},
      {perf(HF, "float16", "inference", "M", 1.2, 5), acc(HF, "float16", "inference", "M", "eager_variation")});
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].verdict, Verdict::new_passed);
}

TEST(CompareCases, AccuracyRowsAloneAreNotACase) {
  EXPECT_TRUE(compare_cases({acc(HF, "float16", "inference", "M", "pass")}, {}).empty());
}

TEST(CompareCases, PassingShardRowWinsOverFailedDuplicate) {
  const auto cases =
      compare_cases({perf(HF, "float16", "inference", "M", 0, 0), perf(HF, "float16", "inference", "M", 1.5, 10)},
                    {perf(HF, "float16", "inference", "M", 1.5, 10)});
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].verdict, Verdict::unchanged);
}

TEST(CompareThresholds, RejectsText) {
  auto t = parse_thresholds("abc", "", "");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, "bad_threshold");
  EXPECT_EQ(t.error().column, "regression");
}

TEST(CompareThresholds, RejectsNonPositive) {
  auto t = parse_thresholds("", "-0.5", "");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().column, "red");
}

TEST(CompareThresholds, RejectsRedAboveRegression) {
  auto t = parse_thresholds("0.7", "0.8", "");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, "bad_thresholds");
}

TEST(CompareThresholds, RejectsImprovementNotAboveRegression) {
  auto t = parse_thresholds("", "", "0.9");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, "bad_thresholds");
}

TEST(CompareThresholds, EmptyKeepsDefaultsAndValuesOverride) {
  auto t = parse_thresholds("0.95", "", "1.05");
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->regression, 0.95);
  EXPECT_DOUBLE_EQ(t->red, 0.8);
  EXPECT_DOUBLE_EQ(t->improvement, 1.05);
}

TEST(CompareRender, JsonHasTheApiShape) {
  const auto cases = compare_cases(base_run(), target_run());
  const auto j = nlohmann::json::parse(compare_json_text("base-run", "target-run", {}, cases, aggregate(cases)));
  EXPECT_EQ(j["base"], "base-run");
  EXPECT_EQ(j["target"], "target-run");
  ASSERT_EQ(j["cases"].size(), 9u);
  for (const char* key : {"suite", "dtype", "mode", "model", "base_speedup", "target_speedup", "inductor_ratio",
                          "eager_ratio", "status_change", "verdict"}) {
    EXPECT_TRUE(j["cases"][0].contains(key)) << key;
  }
  const auto& f = j["cases"][5];
  EXPECT_EQ(f["model"], "ModelF");
  EXPECT_EQ(f["verdict"], "new");
  EXPECT_TRUE(f["base_speedup"].is_null());
  EXPECT_DOUBLE_EQ(j["aggregates"]["overall"]["base"]["geomean_speedup"]["unclipped_hud"].get<double>(),
                   *aggregate(cases).overall.base.geomean_speedup_unclipped);
  EXPECT_TRUE(j["aggregates"]["overall"]["base"]["geomean_speedup"].contains("clipped_at_1_runner"));
  EXPECT_EQ(j["aggregates"]["by_suite_dtype_mode"][1]["suite"], TB);
}

// The body was a dumped nlohmann::json document before it was written directly; it must stay byte for byte what a
// dump writes: keys in byte order, numbers in nlohmann's format, strings escaped alike.
TEST(CompareRender, JsonTextIsWhatADumpOfItsDocumentWrites) {
  auto base = base_run();
  auto target = target_run();
  base[0].model = target[0].model = "Model \"quoted\"\t\xC3\x84 \xFF";  // escaping, UTF-8, invalid UTF-8
  base[0].config = target[0].config = "dynamic";
  target[2].eager_latency_ms = std::numeric_limits<double>::quiet_NaN();  // written as null, as a dump writes NaN
  const auto cases = compare_cases(base, target, {0.95, 0.85, 1.05});
  const std::string text = compare_json_text("base \u00e9", "target\n", {0.95, 0.85, 1.05}, cases, aggregate(cases));
  EXPECT_EQ(dump_json(nlohmann::json::parse(text)), text);
  EXPECT_EQ(text.find('\n'), std::string::npos);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_TRUE(doc["cases"][1]["target_eager_ms"].is_null()) << doc["cases"][1];    // ModelC
  EXPECT_EQ(doc["cases"][6]["model"], "Model \"quoted\"\t\xC3\x84 \xEF\xBF\xBD");  // config "dynamic": last of hf
}

TEST(CompareRender, CsvHasOneLinePerCase) {
  const auto cases = compare_cases(base_run(), target_run());
  const auto csv = compare_csv(cases);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 10);
  EXPECT_NE(csv.find("huggingface,bfloat16,inference,,ModelB,0.500000,0.400000,0.800000,1.000000,,regression,yellow,"
                     "speedup dropped; compiled got slower,1.000000,,speedup_dropped compiled_slower\n"),
            std::string::npos)
      << csv;
}

TEST(CompareRender, MarkdownListsOnlyChangedCases) {
  const auto cases = compare_cases(base_run(), target_run());
  const auto md = compare_markdown("b", "t", {}, cases, aggregate(cases));
  EXPECT_NE(md.find("### Changed cases (8 of 9; unchanged cases omitted)"), std::string::npos) << md;
  EXPECT_EQ(md.find("| ModelA |"), std::string::npos);
  EXPECT_NE(md.find("| torchbench | float32 | training | tb_b | 1.250000 | 0.625000 | 0.5000 | 1.0000 | "
                    "regression (red) | now slower than eager, speedup dropped, compiled got slower |"),
            std::string::npos)
      << md;
  EXPECT_NE(
      md.find("| overall | 9 | 5 | 100.0% | 75.0% | 1.0845 | 0.9564 | 1.3026 | 1.2619 | 0.9564 | 1.0845 | 26.7 | 40.0 "
              "|  |  | 3 | 1 |"),
      std::string::npos)
      << md;
}

}  // namespace
}  // namespace perftriage::analyzers::compare
