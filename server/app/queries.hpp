#pragma once
// Read-side use cases shared by the CLI and the HTTP routes.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/store.hpp"

namespace perftriage::server {

// --run KEY: that run (not_found otherwise); --platform P: its latest run; neither: the latest run of every platform.
// A platform's latest run is its newest with performance results (schema::RunsWith): a run of reference files alone,
// or whose files held no row, would answer an empty table for the one that measured something. A platform with runs
// but none with results is not_found "no_performance_run", naming its newest run; a platform without any is "no_run".
// Across platforms, one without results is left out.
Result<std::vector<model::RunRecord>> resolve_runs(schema::Store& store, const std::string& run_key,
                                                   const std::string& platform);

// For a run asked for by key: nullopt when it has performance results, else the warning "no_performance_results"
// (an Error's code and message, not failed: the answer is still given), so that its empty slow table is not read as
// "nothing is slow".
Result<std::optional<Error>> no_results_warning(schema::Store& store, const model::RunRecord& run);

// Slow cases (0 < speedup < threshold) of the given runs, in the tracker's order.
Result<std::vector<model::ResultRecord>> slow_cases(schema::Store& store, const std::vector<model::RunRecord>& runs,
                                                    double threshold);

// Parses a count given as text (`name` is the parameter): "" = fallback, else an integer from 1 to max.
Result<std::int64_t> parse_limit(const std::string& text, const char* name, std::int64_t fallback, std::int64_t max);
// Parses a threshold given as text; must be a finite number > 0.
Result<double> parse_threshold(const std::string& text, double fallback);

// One run asked for by key (GET /api/v1/runs/{key}): run_json with its counts at `threshold`, its files, the models
// missing against its previous run (counts.missing), and that run's key (previous_run, null for the first).
struct RunDetail {
  nlohmann::json body;
  std::string platform;  // as stored: the data stamp scope the answer read
};
Result<RunDetail> run_detail(schema::Store& store, const std::string& key, double threshold);

nlohmann::json run_json(const model::RunRecord& run, const model::RunCounts& counts);
nlohmann::json file_json(const model::FileRecord& file);
nlohmann::json result_json(const model::ResultRecord& row, double threshold = 1.0);
nlohmann::json missing_json(const model::MissingRecord& m);

}  // namespace perftriage::server
