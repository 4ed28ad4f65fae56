#pragma once
// One comparison of two runs, as the compare route, the regression report and their CLI commands use it:
// resolve the runs (the base by rule), load both, compare case by case, aggregate.
#include <string>
#include <vector>

#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/case_compare.hpp"
#include "common/result.hpp"
#include "schema/store.hpp"

namespace perftriage::server {

struct Comparison {
  model::RunRecord base, target;
  std::vector<analyzers::compare::CaseComparison> cases;
  analyzers::compare::Aggregates aggregates;
};

Result<Comparison> compare_runs(schema::Store& store, const std::string& base_rule, const std::string& target_key,
                                const analyzers::compare::Thresholds& thresholds);

}  // namespace perftriage::server
