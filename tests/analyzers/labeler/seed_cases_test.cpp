// The cases of a tracker issue that lists slow cases: its "Representative Cases" table as written (markdown), as
// GitHub renders it when copied as text (space-separated, header line first), and the one-line-per-case form.
#include <string>

#include "analyzers/labeler/cases.hpp"
#include "analyzers/labeler/text.hpp"
#include "helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

CaseScan scan(const std::string& body, const std::string& title = "") {
  return extract_cases(preprocess(body).lines, title);
}

struct Row {
  const char* suite;
  const char* dtype;
  const char* mode;
  const char* model;
  const char* batch;
  const char* speedup;
};

// The representative cases of the BMG PyTorch 2.12 tracker issue, in its order.
constexpr Row kRows[] = {
    {"huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering", "128", "0.662224"},
    {"huggingface", "bfloat16", "inference", "BertForQuestionAnswering", "32", "0.732601"},
    {"huggingface", "bfloat16", "inference", "BartForConditionalGeneration", "4", "0.741895"},
    {"huggingface", "bfloat16", "inference", "MBartForConditionalGeneration", "4", "0.723328"},
    {"huggingface", "bfloat16", "inference", "PLBartForConditionalGeneration", "8", "0.829213"},
    {"huggingface", "amp_bf16", "inference", "BertForQuestionAnswering", "32", "0.893284"},
    {"huggingface", "float16", "inference", "ElectraForQuestionAnswering", "128", "0.646220"},
    {"huggingface", "bfloat16", "training", "OPTForCausalLM", "2", "0.876858"},
    {"torchbench", "bfloat16", "inference", "lennard_jones", "1000", "0.671808"},
    {"torchbench", "bfloat16", "inference", "maml", "1", "0.664822"},
    {"torchbench", "bfloat16", "inference", "soft_actor_critic", "256", "0.865522"},
};

std::string csv_of(const Row& r) {
  return std::string(r.suite) + "/" + r.dtype + "/" + r.mode + "/performance/inductor-results-" + r.suite + "-" +
         r.dtype + "-" + r.mode + "-xpu-performance.csv";
}

const char* kPreamble =
    "## Summary\n\nBMG PyTorch 2.12 release performance results contain multiple cases where inductor is slower "
    "than eager (speedup < 1).\n\n- Platform: BMG (Battlemage)\n- PyTorch: torch 2.12.0+xpu\n\n"
    "## Representative Cases\n\nThe rows below come directly from the raw PyTorch 2.12 performance CSVs and show "
    "speedup < 1, which means inductor is slower than eager on the same workload.\n\n";

std::string markdown_body() {
  std::string b = kPreamble;
  b += "| suite | dtype | mode | model | batch_size | speedup | source csv |\n|---|---|---|---|---|---|---|\n";
  for (const auto& r : kRows) {
    b += std::string("| ") + r.suite + " | " + r.dtype + " | " + r.mode + " | " + r.model + " | " + r.batch + " | " +
         r.speedup + " | `" + csv_of(r) + "` |\n";
  }
  return b + "\nThere are additional PyTorch 2.12 rows with the same pattern outside this representative subset.\n";
}

std::string rendered_body() {
  std::string b = kPreamble;
  b += "suite dtype mode model batch_size speedup source csv\n";
  for (const auto& r : kRows) {
    b += std::string(r.suite) + " " + r.dtype + " " + r.mode + " " + r.model + " " + r.batch + " " + r.speedup + " " +
         csv_of(r) + "\n";
  }
  return b + "\nThere are additional PyTorch 2.12 rows with the same pattern outside this representative subset.\n";
}

void expect_all_rows(const CaseScan& s) {
  ASSERT_EQ(s.cases.size(), std::size(kRows));
  for (std::size_t i = 0; i < std::size(kRows); ++i) {
    const auto& c = s.cases[i];
    const auto& r = kRows[i];
    EXPECT_EQ(c.suite, r.suite) << i;
    EXPECT_EQ(c.dtype, r.dtype) << i;
    EXPECT_EQ(c.mode, r.mode) << i;
    EXPECT_EQ(c.model, r.model) << i;
    EXPECT_DOUBLE_EQ(c.speedup.value_or(0), std::stod(r.speedup)) << i;
    EXPECT_TRUE(c.e2e) << i;
  }
  EXPECT_TRUE(s.e2e_table);
}

const char* kTitle = "[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)";

TEST(LabelerSeedCases, MarkdownTableAsWritten) { expect_all_rows(scan(markdown_body(), kTitle)); }

TEST(LabelerSeedCases, SpaceSeparatedTableAsRendered) { expect_all_rows(scan(rendered_body(), kTitle)); }

TEST(LabelerSeedCases, OneCasePerLine) {
  auto s = scan(
      "### Hardware\nBMG (Arc B580)\n\n"
      "huggingface bfloat16 inference ElectraForQuestionAnswering speedup 0.662224\n"
      "huggingface bfloat16 inference BertForQuestionAnswering speedup 0.732601\n\n"
      "The compiled trace shows aten::_scaled_dot_product_attention_math.\n");
  ASSERT_EQ(s.cases.size(), 2u);
  EXPECT_EQ(s.cases[0].display(), "huggingface/ElectraForQuestionAnswering/inference/bfloat16");
  EXPECT_DOUBLE_EQ(s.cases[0].speedup.value_or(0), 0.662224);
  EXPECT_EQ(s.cases[1].display(), "huggingface/BertForQuestionAnswering/inference/bfloat16");
  EXPECT_DOUBLE_EQ(s.cases[1].speedup.value_or(0), 0.732601);
}

// Prose that names a suite, a dtype and a mode is not a case line: the model must look like one and come right
// after the mode.
TEST(LabelerSeedCases, ProseIsNoCaseLine) {
  auto s = scan("The pattern is concentrated in huggingface bfloat16 inference workloads, especially QA models.\n");
  EXPECT_TRUE(s.cases.empty());
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
