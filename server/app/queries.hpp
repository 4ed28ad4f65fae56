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
Result<std::vector<model::RunRecord>> resolve_runs(schema::Store& store, const std::string& run_key,
                                                   const std::string& platform);

// Slow cases (0 < speedup < threshold) of the given runs, in the tracker's order.
Result<std::vector<model::ResultRecord>> slow_cases(schema::Store& store, const std::vector<model::RunRecord>& runs,
                                                    double threshold);

// Parses a count given as text (`name` is the parameter): "" = fallback, else an integer from 1 to max.
Result<std::int64_t> parse_limit(const std::string& text, const char* name, std::int64_t fallback, std::int64_t max);
// Parses a threshold given as text; must be a finite number > 0.
Result<double> parse_threshold(const std::string& text, double fallback);

nlohmann::json run_json(const model::RunRecord& run, const model::RunCounts& counts);
nlohmann::json file_json(const model::FileRecord& file);
nlohmann::json result_json(const model::ResultRecord& row, double threshold = 1.0);
nlohmann::json missing_json(const model::MissingRecord& m);

}  // namespace perftriage::server
