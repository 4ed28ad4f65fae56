#pragma once
// One renderer per table the service prints, shared by the HTTP routes and the CLI: slow cases, runs, comparisons and
// reports. Each renders the same rows as markdown, CSV or JSON (numbers formatted once, by the table's own encoder:
// analyzers/flags/slow_table.hpp, analyzers/compare/compare_render.hpp), and the format is chosen in one place:
// parse_format (`?format=` of a route, `--format` of a command; a bad one is invalid_input naming `format`).
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/compare/case_compare.hpp"
#include "common/result.hpp"
#include "schema/store.hpp"
#include "server/app/case_findings.hpp"
#include "server/app/comparison.hpp"

namespace perftriage::server {

// text: aligned columns for a terminal (the CLI's `runs`); the routes offer json, md and csv.
enum class Format { json, md, csv, text };
std::string_view to_string(Format format);

// `text` among `offered` ("" = fallback); anything else is invalid_input "bad_format" with column "format".
Result<Format> parse_format(const std::string& text, Format fallback,
                            std::initializer_list<Format> offered = {Format::json, Format::md, Format::csv});

// A rendered table: its content type and its bytes (a route answers 200 with them, a command prints them).
struct Rendered {
  std::string content_type;
  std::string body;
};
Rendered rendered_json(const nlohmann::json& document);   // application/json, one line and "\n"
Rendered rendered_text(Format format, std::string body);  // text/markdown, text/csv or text/plain

// --- slow cases: GET /api/v1/slow and `perftriage slow` ---
struct SlowCases {
  std::vector<model::RunRecord> runs;
  double threshold = 1.0;
  std::vector<model::ResultRecord> rows;              // the tracker's order
  std::vector<std::vector<FindingSummary>> findings;  // per row: the classifiers' findings of its artifacts
  std::optional<Error> warning;  // the run asked for by key has no performance results (queries.hpp no_results_warning)
};
// `run` KEY, else the latest run of `platform`, else the latest run of every platform (server/app/queries.hpp).
Result<SlowCases> find_slow_cases(schema::Store& store, const std::string& run, const std::string& platform,
                                  double threshold);
struct SlowTableOptions {
  bool findings_column = false;  // md: a last column "findings"
  bool envelope = false;         // json: the API's {"runs": [KEY...], "threshold", "cases"} instead of the cases,
                                 // with "warning": {"code", "message"} when there is one
};
// md / csv: | suite | dtype | mode | model | batch_size | speedup | source csv |; json: the cases, each with its
// "findings".
Rendered render_slow_cases(const SlowCases& slow, Format format, const SlowTableOptions& options = {});

// --- runs: GET /api/v1/runs and `perftriage runs` ---
struct RunRow {
  model::RunRecord run;
  model::RunCounts counts;
};
Result<std::vector<RunRow>> list_runs_with_counts(schema::Store& store, const std::string& platform, double threshold);
// One page of them, newest first (schema::list_runs_page); the counts come from the runs' stored summaries.
struct RunRowsPage {
  std::vector<RunRow> rows;
  std::string next_cursor;  // "" = last page
};
Result<RunRowsPage> list_runs_page_with_counts(schema::Store& store, const std::string& platform, double threshold,
                                               std::int64_t limit, const std::string& cursor);
// md / csv / text: run, platform, torch, created, files, rows, slow, failed, acc_fail (text: aligned columns, each
// as wide as its longest cell); json: the runs as run_json, in {"runs": [...]} when `envelope`.
// With `next_cursor` (the API's pages) the envelope also holds "next_cursor" (null on the last page).
Rendered render_runs(const std::vector<RunRow>& runs, Format format, bool envelope = false,
                     const std::string* next_cursor = nullptr);

// --- comparisons: GET /api/v1/compare and `perftriage compare` ---
Rendered render_comparison(const Comparison& comparison, const analyzers::compare::Thresholds& thresholds,
                           Format format);

// --- reports: GET /api/v1/report.md, /runs/{key}/report.md and `perftriage report` (markdown only) ---
Rendered render_report(std::string markdown);

}  // namespace perftriage::server
