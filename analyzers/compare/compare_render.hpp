#pragma once
// A comparison in three encodings: JSON (the API shape), a markdown summary, and CSV (one line per case).
#include <string>
#include <vector>

#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/case_compare.hpp"

namespace perftriage::analyzers::compare {

// The API body: {"aggregates", "base", "cases": [...], "target", "thresholds"}, compact JSON on one line (no "\n"),
// keys in byte order in every object, as dump_json (common/json_text.hpp) writes a document. Written straight into
// the string: a nightly has ~6,000 cases, and building a document first took longer than the comparison.
std::string compare_json_text(const std::string& base_key, const std::string& target_key, const Thresholds& t,
                              const std::vector<CaseComparison>& cases, const Aggregates& aggregates);
// Aggregates table, then every case whose verdict is not "unchanged".
std::string compare_markdown(const std::string& base_key, const std::string& target_key, const Thresholds& t,
                             const std::vector<CaseComparison>& cases, const Aggregates& aggregates);
std::string compare_csv(const std::vector<CaseComparison>& cases);

// "| suite | dtype | mode | model | base speedup | target speedup | inductor ratio | eager ratio | verdict | moved |"
std::string case_table_markdown(const std::vector<const CaseComparison*>& cases);

}  // namespace perftriage::analyzers::compare
