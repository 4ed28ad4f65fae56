#include "server/app/slow_report.hpp"

#include "analyzers/compare/report.hpp"
#include "schema/history_store.hpp"
#include "server/app/case_findings.hpp"
#include "server/app/comparison.hpp"
#include "server/app/queries.hpp"

namespace perftriage::server {

Result<std::string> slow_report(schema::Store& store, const std::string& run_key, double threshold) {
  PT_ASSIGN(auto run, schema::require_run(store.db(), run_key, "run"));
  PT_ASSIGN(auto rows, slow_cases(store, {run}, threshold));
  PT_ASSIGN(auto findings, findings_for_rows(store.db(), {run}, rows));
  return analyzers::compare::slow_report_markdown(run, rows, threshold) + findings_section_markdown(rows, findings);
}

Result<std::string> regression_report(schema::Store& store, const std::string& base_rule, const std::string& target_key,
                                      const analyzers::compare::Thresholds& thresholds) {
  PT_ASSIGN(auto c, compare_runs(store, base_rule, target_key, thresholds));
  return analyzers::compare::regression_report_markdown(c.base, c.target, c.cases, c.aggregates, thresholds);
}

}  // namespace perftriage::server
