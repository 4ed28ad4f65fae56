#pragma once
// A comparison in three encodings: JSON (the API shape), a markdown summary, and CSV (one line per case).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/case_compare.hpp"

namespace perftriage::analyzers::compare {

nlohmann::json case_json(const CaseComparison& c);
nlohmann::json group_json(const GroupAggregate& g);
nlohmann::json aggregates_json(const Aggregates& a);
nlohmann::json thresholds_json(const Thresholds& t);

// {"base", "target", "thresholds", "aggregates", "cases": [...]}
nlohmann::json compare_json(const std::string& base_key, const std::string& target_key, const Thresholds& t,
                            const std::vector<CaseComparison>& cases, const Aggregates& aggregates);
// Aggregates table, then every case whose verdict is not "unchanged".
std::string compare_markdown(const std::string& base_key, const std::string& target_key, const Thresholds& t,
                             const std::vector<CaseComparison>& cases, const Aggregates& aggregates);
std::string compare_csv(const std::vector<CaseComparison>& cases);

// "| suite | dtype | mode | model | base speedup | target speedup | inductor ratio | eager ratio | verdict | moved |"
std::string case_table_markdown(const std::vector<const CaseComparison*>& cases);

}  // namespace perftriage::analyzers::compare
