#include "server/app/slow_report.hpp"

#include "analyzers/compare/report.hpp"
#include "schema/history_store.hpp"
#include "server/app/case_findings.hpp"
#include "server/app/queries.hpp"

namespace perftriage::server {

Result<std::string> slow_report(schema::Store& store, const std::string& run_key, double threshold) {
  auto run = schema::require_run(store, run_key, "run");
  if (!run) return std::move(run).error();
  auto rows = slow_cases(store, {*run}, threshold);
  if (!rows) return std::move(rows).error();
  auto findings = findings_for_rows(store.db(), {*run}, *rows);
  if (!findings) return std::move(findings).error();
  return analyzers::compare::slow_report_markdown(*run, *rows, threshold) +
         findings_section_markdown(*rows, *findings);
}

}  // namespace perftriage::server
