#include <gtest/gtest.h>

#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/report.hpp"
#include "analyzers/flags/slow_table.hpp"
#include "tests/analyzers/compare/helpers.hpp"

namespace perftriage::analyzers::compare {
namespace {

using test::perf;

model::RunRecord run(const std::string& key, const std::string& torch, std::vector<std::string> tags = {}) {
  model::RunRecord r;
  r.id = 1;
  r.meta.key = key;
  r.meta.platform = "BMG";
  r.meta.torch_version = torch;
  r.meta.tags = std::move(tags);
  r.meta.environment_json = R"({"intel-opencl-icd":"26.05.37020.3","libze-dev":"1.27.0","os":"Ubuntu 24.04 LTS"})";
  return r;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

TEST(Report, ReleaseLabelFromTorchVersion) {
  EXPECT_EQ(release_label("2.12.0+xpu"), "2.12");
  EXPECT_EQ(release_label("2.13.0.dev20260101+xpu"), "2.13");
  EXPECT_EQ(release_label("nightly"), "");
  EXPECT_EQ(release_label(""), "");
}

TEST(Report, EnvironmentLinePutsTheOsFirst) {
  EXPECT_EQ(environment_line(run("k", "").meta.environment_json),
            "Ubuntu 24.04 LTS, intel-opencl-icd 26.05.37020.3, libze-dev 1.27.0");
  EXPECT_EQ(environment_line("not json"), "");
}

// The report prints the one slow table (analyzers/flags/slow_table.hpp), byte for byte.
TEST(Report, SlowReportPrintsTheOneSlowTable) {
  auto a = perf("huggingface", "bfloat16", "inference", "A", 0.5, 10);
  a.speedup_text.clear();  // no text: the table's own number formatting
  auto b = perf("torchbench", "float32", "training", "B|C", 0.25, 10);
  const auto md = slow_report_markdown(run("k", "2.12.0+xpu"), {a, b}, 1.0);
  EXPECT_NE(md.find(slow_table_markdown({a, b})), std::string::npos) << md;
  EXPECT_NE(md.find("| A | 8 | 0.500000 |"), std::string::npos) << md;
}

TEST(Report, SlowReportHasTheSeedShape) {
  auto a = perf("huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering", 0.662224, 10);
  a.batch_size = 128;
  a.source =
      "huggingface/bfloat16/inference/performance/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv";
  auto b = perf("huggingface", "float16", "inference", "ElectraForQuestionAnswering", 0.646220, 10);
  auto c = perf("torchbench", "bfloat16", "inference", "maml", 0.664822, 10);
  const auto md = slow_report_markdown(run("bmg-2.12", "2.12.0+xpu", {"release-2.12"}), {a, b, c}, 1.0);
  EXPECT_EQ(first_line(md), "[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)");
  EXPECT_NE(md.find("BMG PyTorch 2.12 release performance results contain 3 cases where inductor is slower than "
                    "eager (speedup < 1)."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- Platform: BMG (Battlemage)\n- PyTorch: torch 2.12.0+xpu\n- Environment: Ubuntu 24.04 LTS, "
                    "intel-opencl-icd 26.05.37020.3, libze-dev 1.27.0\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## Representative Cases"), std::string::npos);
  EXPECT_NE(md.find("| huggingface | bfloat16 | inference | ElectraForQuestionAnswering | 128 | 0.662224 | "
                    "huggingface/bfloat16/inference/performance/"
                    "inductor-results-huggingface-bfloat16-inference-xpu-performance.csv |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("concentrated in inference workloads (3 of 3 cases), especially huggingface inference (2 cases)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("ElectraForQuestionAnswering (huggingface inference): bfloat16, float16 (2 cases)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## Ask\n\nPlease review these BMG PyTorch 2.12 cases"), std::string::npos);
}

TEST(Report, SlowReportTitleNamesAnotherThreshold) {
  EXPECT_EQ(slow_report_title(run("k", "2.13.0+xpu"), 0.95),
            "[BMG] PyTorch 2.13 performance cases where inductor is slower than eager (speedup < 0.95)");
  EXPECT_EQ(slow_report_title(run("k", ""), 1.0),
            "[BMG] run k performance cases where inductor is slower than eager (speedup < 1)");
}

TEST(Report, SlowReportWithoutCasesSaysSo) {
  const auto md = slow_report_markdown(run("k", "2.12.0+xpu"), {}, 1.0);
  EXPECT_NE(md.find("contain 0 cases"), std::string::npos);
  EXPECT_NE(md.find("No case is slower than eager"), std::string::npos);
}

TEST(Report, RegressionTitleUsesReleasesOrKeys) {
  EXPECT_EQ(regression_report_title(run("b", "2.12.0+xpu"), run("t", "2.13.0+xpu"), 37),
            "[BMG] 37 E2E inductor performance regressions: release 2.13 vs 2.12");
  EXPECT_EQ(regression_report_title(run("nightly-1", "2.13.0+xpu"), run("nightly-2", "2.13.0+xpu"), 1),
            "[BMG] 1 E2E inductor performance regression: nightly-2 vs nightly-1");
}

TEST(Report, RegressionReportGroupsIntoCategories) {
  const std::vector<model::ResultRecord> base = {
      perf("huggingface", "bfloat16", "inference", "BertForMaskedLM", 1.5, 10),
      perf("huggingface", "float16", "inference", "BertForMaskedLM", 1.5, 10),
      perf("huggingface", "bfloat16", "inference", "BertForQuestionAnswering", 1.5, 10),
      perf("timm_models", "float32", "training", "resnet50", 1.2, 10),
      perf("timm_models", "float32", "training", "vit_base", 1.2, 10),
  };
  const std::vector<model::ResultRecord> target = {
      perf("huggingface", "bfloat16", "inference", "BertForMaskedLM", 1.0, 15),  // compiled 10 -> 15: 0.667 red
      perf("huggingface", "float16", "inference", "BertForMaskedLM", 1.25, 12),  // 0.833, eager 15 -> 15
      perf("huggingface", "bfloat16", "inference", "BertForQuestionAnswering", 1.5, 11.5),  // both paths 0.870
      perf("timm_models", "float32", "training", "resnet50", 1.0, 10),  // eager 12 -> 10: speedup 0.833 lost
      perf("timm_models", "float32", "training", "vit_base", 0.5, 20),  // eager 12 -> 10, compiled 0.5
  };
  const Thresholds t;
  const auto cases = compare_cases(base, target, t);
  const auto md =
      regression_report_markdown(run("b", "2.12.0+xpu"), run("t", "2.13.0+xpu"), cases, aggregate(cases), t);
  // resnet50: eager got faster and the compiled path held, so its speedup fell to 0.833: a regression now (it was
  // counted an improvement), listed where inductor lost its lead over eager.
  EXPECT_EQ(first_line(md), "[BMG] 5 E2E inductor performance regressions: release 2.13 vs 2.12");
  EXPECT_NE(md.find("- Regressions: 5 (red: 2); improvements: 0; unchanged: 0\n"), std::string::npos) << md;
  EXPECT_NE(md.find("## Speedup lost while the compiled path held (eager got faster, inductor did not follow): 1\n\n"
                    "| suite"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| timm_models | float32 | training | resnet50 | 1.200000 | 1.000000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("## Now slower than eager (speedup was >= 1, is < 1): 1\n"), std::string::npos) << md;  // vit_base
  EXPECT_NE(md.find("## Compile-time regressions (compiles slower): 0\n"), std::string::npos) << md;
  EXPECT_NE(md.find("## Inductor-path regressions (compiled got slower): 4\n"), std::string::npos) << md;
  EXPECT_NE(md.find("## Eager-path regressions (eager got slower): 1\n\n| suite"), std::string::npos) << md;
  EXPECT_NE(md.find("## Regressions sharing one model across dtypes: 1\n\n### BertForMaskedLM (huggingface "
                    "inference): bfloat16, float16 — 2 cases\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("## Regressions in one family of models: 1\n\n### Bert family (huggingface): BertForMaskedLM, "
                    "BertForQuestionAnswering — 3 cases\n"),
            std::string::npos)
      << md;
  // Worst ratio first in the path tables.
  EXPECT_LT(md.find("| timm_models | float32 | training | vit_base |"),
            md.find("| huggingface | float16 | inference | BertForMaskedLM |"));
  EXPECT_NE(md.find("## New failures: 0"), std::string::npos);
}

}  // namespace
}  // namespace perftriage::analyzers::compare
