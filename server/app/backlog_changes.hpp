#pragma once
// What the slower-than-eager backlog cannot hold: compile-time and memory regressions. Those are judged between two
// runs (docs/verdicts.md), never against a fixed bar like speedup < 1, so the backlog lists the ones between the
// platform's two newest runs with performance results, as the compare JSON judges them.
#include <string>

#include <nlohmann/json.hpp>

#include "analyzers/compare/case_compare.hpp"
#include "common/result.hpp"
#include "schema/store.hpp"
#include "server/app/case_issues.hpp"

namespace perftriage::server {

// The case's open issues in the index (config is not part of an issue's case name); an empty array when none names it.
nlohmann::json issues_of(const CaseIssueIndex& index, const std::string& suite, const std::string& dtype,
                         const std::string& mode, const std::string& model);

// {"base_run", "target_run", "compile_regression", "memory_regression",
//  "compile_time": [{case, "base_compilation_s", "target_compilation_s", "compile_ratio", "issues"}],
//  "memory": [{case, "base_compression_ratio", "target_compression_ratio", "memory_ratio", "issues"}]},
// or null when the platform has fewer than two runs with performance results.
Result<nlohmann::json> latest_resource_regressions(schema::Store& store, const std::string& platform,
                                                   const CaseIssueIndex& issues,
                                                   const analyzers::compare::Thresholds& thresholds = {});

}  // namespace perftriage::server
