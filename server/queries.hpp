#pragma once
// Read-side use cases shared by the CLI and the HTTP routes.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/store.hpp"

namespace perftriage::server {

// --run KEY: that run (not_found otherwise); --platform P: its latest run; neither: the latest run of
// every platform.
Result<std::vector<schema::RunRecord>> resolve_runs(schema::Store& store, const std::string& run_key,
                                                    const std::string& platform);

// Slow cases (0 < speedup < threshold) of the given runs, in the tracker's order.
Result<std::vector<schema::ResultRecord>> slow_cases(schema::Store& store, const std::vector<schema::RunRecord>& runs,
                                                     double threshold);

// Parses a threshold given as text; must be a finite number > 0.
Result<double> parse_threshold(const std::string& text, double fallback);

nlohmann::json run_json(const schema::RunRecord& run, const schema::RunCounts& counts);
nlohmann::json file_json(const schema::FileRecord& file);
nlohmann::json result_json(const schema::ResultRecord& row, double threshold = 1.0);
nlohmann::json missing_json(const schema::MissingRecord& m);

}  // namespace perftriage::server
