#pragma once
// Read-side SQL across runs: comparisons, case history, the slow backlog recomputed from history, and the latest
// measurement of a case (the labeler's evidence). Every statement is a named constant in history_store.cpp.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "model/artifacts.hpp"
#include "schema/store.hpp"

namespace perftriage::schema {

// The run with this key; not_found ("no_run") names `parameter` as the offending column.
Result<model::RunRecord> require_run(Database& db, const std::string& key, const std::string& parameter);

// A baseline by rule, relative to the target: "previous" = the run of the target's platform just before it;
// else a tag ("release-2.13") = the newest other run of the target's platform whose tags contain it; else a run key.
Result<model::RunRecord> resolve_base_run(Database& db, const std::string& rule, const model::RunRecord& target);

// Every row of one run (both kinds), unordered, one at a time: `sink` sees one record refilled for each row (copy
// what you keep), with only what a comparison reads filled in: axes, model, batch_size, speedup(+text), abs/eager
// latency, compilation latency, dynamo peak memory, accuracy, failed, accuracy_failed and source. A comparison
// folds rows into cases as they come, so two 12k-row runs never sit in memory as ~22 MB of records.
using RowSink = std::function<void(const model::ResultRecord&)>;
Result<void> for_each_comparison_row(Database& db, std::int64_t run_id, const RowSink& sink);

struct ComparisonRuns {
  model::RunRecord base, target;
};
// Resolves the target (a run key) and the base (a rule), then streams the base's rows and the target's rows, in one
// read transaction.
Result<ComparisonRuns> stream_comparison(Database& db, const std::string& base_rule, const std::string& target_key,
                                         const RowSink& base_sink, const RowSink& target_sink);

struct ComparisonInput {
  model::RunRecord base, target;
  std::vector<model::ResultRecord> base_rows, target_rows;
};
// stream_comparison into two vectors.
Result<ComparisonInput> load_comparison(Database& db, const std::string& base_rule, const std::string& target_key);

struct HistoryQuery {
  std::string platform, suite, model;
  std::string dtype, mode;            // "" = every dtype / mode
  std::optional<std::string> config;  // nullopt = every config
};

// One performance measurement of the case in one run, with the run's accuracy status of the case.
struct HistoryPoint {
  std::string run_key, created_at, torch_version;
  std::string dtype, mode, config;
  std::int64_t batch_size = 0;
  std::optional<double> speedup;
  std::string speedup_text;
  std::optional<double> compiled_ms, eager_ms;
  std::optional<double> compilation_s, compression_ratio;  // NULL / absent = not measured
  bool failed = false;
  std::string accuracy;  // "" = no accuracy row
};

// Ordered by dtype, mode, config, then run created_at (and id): each (dtype, mode, config) is one series.
Result<std::vector<HistoryPoint>> case_history(Database& db, const HistoryQuery& query);

struct BacklogRow {
  std::int64_t run_id = 0;
  std::string suite, dtype, mode, config, model;
  std::optional<double> speedup;
  std::string speedup_text;
  bool failed = false;
};
struct BacklogData {
  std::vector<model::RunRecord> runs;  // of the platform, oldest first
  std::vector<BacklogRow> rows;        // every performance row, in those runs, of a case that was ever slow in one
};
Result<BacklogData> backlog_rows(Database& db, const std::string& platform, double threshold);

// One live performance row of a case, with its run and file.
struct CaseMeasurement {
  std::int64_t run_id = 0;
  std::string run_key, platform, created_at, path;
  std::optional<double> speedup;
  std::string speedup_text;
  std::optional<double> abs_latency_ms, eager_latency_ms;
};
// The newest run (of `platform` when not "") holding a live performance row of the case (suite, dtype, mode, model;
// config is not looked at).
Result<std::optional<CaseMeasurement>> latest_case_measurement(Database& db, const model::CaseRef& case_ref,
                                                               const std::string& platform);
// The same case in the newest earlier run of `current`'s platform whose row has a compiled latency: the baseline of
// the latency ratios.
Result<std::optional<CaseMeasurement>> previous_case_measurement(Database& db, const model::CaseRef& case_ref,
                                                                 const CaseMeasurement& current);

}  // namespace perftriage::schema
