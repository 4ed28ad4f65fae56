#pragma once
// The slow-case tracking-issue body of a run (the seed issue's shape), followed by what the classifiers
// found for those cases when artifacts are attached. Shared by GET /runs/{key}/report.md and `report`.
#include <string>

#include "common/result.hpp"
#include "schema/store.hpp"

namespace perftriage::server {

Result<std::string> slow_report(schema::Store& store, const std::string& run_key, double threshold);

}  // namespace perftriage::server
