// The seed issue intel/torch-xpu-ops#3761: its Nov 11 triage comment is the target.
#include "helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

const char* kSeedTitle = "[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)";

void expect_seed(const LabelResult& r) {
  EXPECT_EQ(sorted(r.labels), (std::vector<std::string>{"dtype: bfloat16", "hw: BMG", "inference", "module: inductor",
                                                        "performance", "test: e2e"}));
  EXPECT_EQ(value_of(r, "priority"), "High");
  ASSERT_EQ(r.cases.size(), 11u);
  EXPECT_EQ(r.analyzed_case, 1);
  EXPECT_EQ(r.cases[0].display(), "huggingface/ElectraForQuestionAnswering/inference/bfloat16");
  ASSERT_TRUE(r.cases[0].speedup.has_value());
  EXPECT_NEAR(*r.cases[0].speedup, 0.662224, 1e-9);
  EXPECT_EQ(r.cases[5].dtype, "amp_bf16");
  EXPECT_EQ(r.cases[7].mode, "training");
  EXPECT_EQ(r.cases[10].model, "soft_actor_critic");
  EXPECT_FALSE(r.need_split);
  EXPECT_EQ(value_of(r, "type"), "Bug");
}

TEST(LabelerSeed, TextCopyOfTheDescription) {
  auto r = label(kSeedTitle, read_fixture("labeler/seed_3761_body.txt"));
  expect_seed(r);
  for (const auto& a : r.axes) EXPECT_FALSE(a.reason.empty()) << a.axis;
}

TEST(LabelerSeed, MarkdownDescription) { expect_seed(label(kSeedTitle, read_fixture("labeler/seed_3761_body.md"))); }

TEST(LabelerSeed, CommentHasTheSeedShape) {
  IssueInput in{kSeedTitle, read_fixture("labeler/seed_3761_body.md"), {}, "intel/torch-xpu-ops", 3761};
  auto r = label_issue(in, xpu_taxonomy());
  auto c = render_comment(in, r);
  EXPECT_EQ(c.rfind("<!-- perftriage:label -->", 0), 0u) << c;
  EXPECT_NE(c.find("<details>"), std::string::npos);
  EXPECT_NE(c.find("</details>"), std::string::npos);
  EXPECT_NE(c.find("label-issue: intel/torch-xpu-ops#3761"), std::string::npos);
  EXPECT_NE(c.find("Root cause: "), std::string::npos);
  EXPECT_NE(c.find("Analyzed case: huggingface/ElectraForQuestionAnswering/inference/bfloat16 (case 1 of 11; the other "
                   "10 not analyzed)"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("| axis | value | reason |"), std::string::npos);
  EXPECT_NE(c.find("| hw | hw: BMG | Title tag [BMG]. |"), std::string::npos) << c;
  EXPECT_NE(c.find("| priority | High |"), std::string::npos);
  EXPECT_NE(c.find("Test cases (11):"), std::string::npos);
  EXPECT_NE(c.find("- huggingface ElectraForQuestionAnswering inference bfloat16 (speedup 0.662)"), std::string::npos);
  EXPECT_NE(c.find("- huggingface BertForQuestionAnswering inference bfloat16 (0.733)"), std::string::npos);
  EXPECT_NE(c.find("- torchbench soft_actor_critic inference bfloat16 (0.866)"), std::string::npos);
}

TEST(LabelerSeed, JsonShape) {
  auto j = to_json(label(kSeedTitle, read_fixture("labeler/seed_3761_body.txt")));
  ASSERT_TRUE(j.contains("axes") && j["axes"].is_array());
  for (const auto& a : j["axes"]) {
    EXPECT_TRUE(a.contains("axis") && a.contains("value") && a.contains("reason"));
  }
  EXPECT_EQ(j["labels"].size(), 6u);
  EXPECT_EQ(j["cases"].size(), 11u);
  EXPECT_EQ(j["analyzed_case"], 1);
  EXPECT_EQ(j["case_count"], 11);
  EXPECT_EQ(j["analyzed_case_name"], "huggingface/ElectraForQuestionAnswering/inference/bfloat16");
  EXPECT_EQ(j["need_split"], false);
  EXPECT_TRUE(j["root_cause"].is_string());
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
