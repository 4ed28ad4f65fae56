#pragma once
// The tracking-issue bodies of the reports, shared by GET /runs/{key}/report.md, GET /report.md and `report`:
// the slow-case issue of a run (the seed issue's shape, followed by what the classifiers found for those cases when
// artifacts are attached) and the release-regression issue of two runs. The first line of each is the title.
#include <string>

#include "analyzers/compare/case_compare.hpp"
#include "common/result.hpp"
#include "schema/store.hpp"

namespace perftriage::server {

Result<std::string> slow_report(schema::Store& store, const std::string& run_key, double threshold);

// `base_rule`: a run key, "previous" (the target's platform, just before it) or a tag (server/app/comparison.hpp).
Result<std::string> regression_report(schema::Store& store, const std::string& base_rule, const std::string& target_key,
                                      const analyzers::compare::Thresholds& thresholds);

}  // namespace perftriage::server
