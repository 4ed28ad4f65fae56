#pragma once
// Grouping flagged cases by what they share, so that one report item covers one pattern: all dtypes of one
// model, one family of models (common name prefix or HuggingFace task head), all cases of one suite and mode.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/compare/case_compare.hpp"

namespace perftriage::analyzers::compare {

// The axis values (suite, dtype, mode, config, model) every case of the set has in common; empty for no cases.
std::map<std::string, std::string> shared_axes(const std::vector<CaseKey>& cases);

// "BertForQuestionAnswering" -> "Bert", "resnet50" -> "resnet", "convnext_base" -> "convnext", "maml" -> "maml".
std::string model_family(std::string_view model);
// HuggingFace task head: "BertForQuestionAnswering" -> "ForQuestionAnswering"; "" when the name has none.
std::string task_head(std::string_view model);

struct Pattern {
  std::string kind;  // model_across_dtypes | family | task_head | suite_mode
  std::string
      label;  // one line a person reads: "ElectraForQuestionAnswering (huggingface inference): bfloat16, float16"
  std::map<std::string, std::string> axes;  // shared_axes of the members
  std::vector<std::size_t> members;         // indices into the input, in input order
};

// Patterns with at least `min_members` cases: one model in several dtypes/modes; several models of one family
// or task head in one suite; one suite+mode. Ordered by kind (as listed), then most members first, then label.
std::vector<Pattern> find_patterns(const std::vector<CaseKey>& cases, std::size_t min_members = 2);

}  // namespace perftriage::analyzers::compare
