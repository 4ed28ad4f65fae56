#pragma once
// The "Representative Cases" table of the tracker's slow-case issues, in three encodings of the same rows.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/records.hpp"

namespace perftriage::analyzers {

// Canonical order: suite, dtype, mode, then worst speedup first, then model.
void sort_slow_cases(std::vector<model::ResultRecord>& rows);

// The speedup of a row as every slow table shows it: exactly as in the file, else the number with 6 decimals.
std::string speedup_cell(const model::ResultRecord& row);

// A last column added to the markdown table: its header and one cell per row, already markdown (not escaped again).
struct ExtraColumn {
  std::string name;
  std::vector<std::string> cells;
};

// | suite | dtype | mode | model | batch_size | speedup | source csv | — the one slow table: the CLI, the API and the
// tracking-issue report (analyzers/compare/report.hpp) all print it.
std::string slow_table_markdown(const std::vector<model::ResultRecord>& rows, const ExtraColumn* extra = nullptr);
std::string slow_table_csv(const std::vector<model::ResultRecord>& rows);
// [{"suite","dtype","mode","model","batch_size","speedup","source"}] with speedup as a number.
nlohmann::json slow_table_json(const std::vector<model::ResultRecord>& rows);

}  // namespace perftriage::analyzers
