#pragma once
// A case's history on one platform (GET /api/v1/cases/{suite}/{model}/history): one series per (dtype, mode, config),
// oldest run first, with the change points of one metric (analyzers/compare/change_detection.hpp), and what the trace
// classifiers found on the model's artifacts, run by run.
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/history_store.hpp"
#include "schema/store.hpp"

namespace perftriage::server {

enum class HistoryMetric { speedup, compiled_ms, eager_ms, compilation_s, compression_ratio };
std::string_view to_string(HistoryMetric m);
std::optional<HistoryMetric> history_metric(std::string_view name);
// "speedup, compiled_ms, eager_ms, compilation_s or compression_ratio"
std::string history_metric_names();

// {"suite", "model", "platform", "metric", "method", "series", "findings"}; not_found when the platform has no result
// of the model.
Result<nlohmann::json> case_history(schema::Store& store, const schema::HistoryQuery& q, HistoryMetric metric);

}  // namespace perftriage::server
