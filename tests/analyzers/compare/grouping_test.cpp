#include <gtest/gtest.h>

#include "analyzers/compare/grouping.hpp"

namespace perftriage::analyzers::compare {
namespace {

// The seed issue's 11 slow cases (BMG, PyTorch 2.12).
std::vector<CaseKey> seed_cases() {
  return {{"huggingface", "bfloat16", "inference", "", "ElectraForQuestionAnswering"},
          {"huggingface", "bfloat16", "inference", "", "BertForQuestionAnswering"},
          {"huggingface", "bfloat16", "inference", "", "BartForConditionalGeneration"},
          {"huggingface", "bfloat16", "inference", "", "MBartForConditionalGeneration"},
          {"huggingface", "bfloat16", "inference", "", "PLBartForConditionalGeneration"},
          {"huggingface", "amp_bf16", "inference", "", "BertForQuestionAnswering"},
          {"huggingface", "float16", "inference", "", "ElectraForQuestionAnswering"},
          {"huggingface", "bfloat16", "training", "", "OPTForCausalLM"},
          {"torchbench", "bfloat16", "inference", "", "lennard_jones"},
          {"torchbench", "bfloat16", "inference", "", "maml"},
          {"torchbench", "bfloat16", "inference", "", "soft_actor_critic"}};
}

TEST(Grouping, SharedAxesOfASet) {
  const auto all = seed_cases();
  EXPECT_EQ(shared_axes(all), (std::map<std::string, std::string>{{"config", ""}}));
  const std::vector<CaseKey> tb(all.begin() + 8, all.end());
  EXPECT_EQ(shared_axes(tb),
            (std::map<std::string, std::string>{
                {"suite", "torchbench"}, {"dtype", "bfloat16"}, {"mode", "inference"}, {"config", ""}}));
  EXPECT_TRUE(shared_axes({}).empty());
}

TEST(Grouping, FamilyAndTaskHeadFromModelNames) {
  EXPECT_EQ(model_family("BertForQuestionAnswering"), "Bert");
  EXPECT_EQ(model_family("MBartForConditionalGeneration"), "MBart");
  EXPECT_EQ(model_family("resnet50"), "resnet");
  EXPECT_EQ(model_family("convnext_base"), "convnext");
  EXPECT_EQ(model_family("maml"), "maml");
  EXPECT_EQ(task_head("BertForQuestionAnswering"), "ForQuestionAnswering");
  EXPECT_EQ(task_head("Forward"), "");
  EXPECT_EQ(task_head("resnet50"), "");
}

TEST(Grouping, SeedCasesFormTheirPatterns) {
  const auto cases = seed_cases();
  const auto patterns = find_patterns(cases);
  std::vector<std::string> labels;
  for (const auto& p : patterns) labels.push_back(p.kind + ": " + p.label);
  const std::vector<std::string> expected = {
      "model_across_dtypes: BertForQuestionAnswering (huggingface inference): amp_bf16, bfloat16",
      "model_across_dtypes: ElectraForQuestionAnswering (huggingface inference): bfloat16, float16",
      "task_head: *ForQuestionAnswering models (huggingface): BertForQuestionAnswering, ElectraForQuestionAnswering",
      "task_head: *ForConditionalGeneration models (huggingface): BartForConditionalGeneration, "
      "MBartForConditionalGeneration, PLBartForConditionalGeneration",
      "suite_mode: huggingface inference: 7 cases",
      "suite_mode: torchbench inference: 3 cases",
  };
  EXPECT_EQ(labels, expected);
  const auto& electra = patterns[1];
  EXPECT_EQ(electra.members, (std::vector<std::size_t>{0, 6}));
  EXPECT_EQ(electra.axes.at("model"), "ElectraForQuestionAnswering");
  EXPECT_EQ(electra.axes.count("dtype"), 0u);
}

TEST(Grouping, FamilyNeedsTwoModelsOfOneSuite) {
  const std::vector<CaseKey> cases = {{"timm_models", "float16", "training", "", "convnext_base"},
                                      {"timm_models", "float16", "training", "", "convnext_small"},
                                      {"timm_models", "float16", "inference", "", "resnet50"},
                                      {"torchbench", "float16", "training", "", "convnext_tiny"}};
  const auto patterns = find_patterns(cases);
  ASSERT_FALSE(patterns.empty());
  EXPECT_EQ(patterns[0].kind, "family");
  EXPECT_EQ(patterns[0].label, "convnext family (timm_models): convnext_base, convnext_small");
  EXPECT_EQ(patterns[0].axes.at("mode"), "training");
  EXPECT_EQ(patterns[0].members, (std::vector<std::size_t>{0, 1}));
}

}  // namespace
}  // namespace perftriage::analyzers::compare
