#pragma once
// The "Representative Cases" table of the tracker's slow-case issues, in three encodings.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/records.hpp"

namespace perftriage::analyzers {

// Canonical order: suite, dtype, mode, then worst speedup first, then model.
void sort_slow_cases(std::vector<model::ResultRecord>& rows);

// | suite | dtype | mode | model | batch_size | speedup | source csv | — speedup exactly as in the file.
std::string slow_table_markdown(const std::vector<model::ResultRecord>& rows);
std::string slow_table_csv(const std::vector<model::ResultRecord>& rows);
// [{"suite","dtype","mode","model","batch_size","speedup","source"}] with speedup as a number.
nlohmann::json slow_table_json(const std::vector<model::ResultRecord>& rows);

}  // namespace perftriage::analyzers
