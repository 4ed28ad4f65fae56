#include "server/app/slow_report.hpp"

#include <map>

#include "analyzers/compare/report.hpp"
#include "common/strings.hpp"
#include "schema/history_store.hpp"
#include "schema/triage_store.hpp"
#include "server/app/case_findings.hpp"
#include "server/app/comparison.hpp"
#include "server/app/queries.hpp"

namespace perftriage::server {

namespace {

// The slow rows by triage state (schema/triage_store.hpp): expected / wontfix ones leave the table for a list apart;
// the others are grouped by state in a section of their own when any was decided.
struct ByState {
  std::vector<model::ResultRecord> tracked;
  std::string known, states;
};

Result<ByState> by_state(schema::Database& db, const model::RunRecord& run, std::vector<model::ResultRecord> rows) {
  ByState out;
  std::map<std::string, std::vector<std::string>> groups;
  bool decided = false;
  for (auto& r : rows) {
    PT_ASSIGN(const auto t, schema::find_triage(db, {run.meta.platform, r.suite, r.dtype, r.mode, r.model, r.config}));
    const std::string state = t ? t->state : "new";
    const std::string name = r.suite + " " + r.dtype + " " + r.mode + " " + r.model;
    decided = decided || (t && t->updated_by != "auto");
    if (state == "expected" || state == "wontfix") {
      out.known += "- " + name + ": " + state + (t->reason.empty() ? "" : " (" + t->reason + ")") + "\n";
      continue;
    }
    groups[state].push_back(name + (t && !t->issue.empty() ? " (" + t->issue + ")" : ""));
    out.tracked.push_back(std::move(r));
  }
  if (decided) {
    for (const auto& [state, names] : groups) {
      out.states += "- " + state + " (" + std::to_string(names.size()) + "): " + join(names, "; ") + "\n";
    }
  }
  return out;
}

}  // namespace

Result<std::string> slow_report(schema::Store& store, const std::string& run_key, double threshold) {
  PT_ASSIGN(auto run, schema::require_run(store.db(), run_key, "run"));
  PT_ASSIGN(auto rows, slow_cases(store, {run}, threshold));
  PT_ASSIGN(auto split, by_state(store.db(), run, std::move(rows)));
  PT_ASSIGN(auto findings, findings_for_rows(store.db(), {run}, split.tracked));
  std::string out = analyzers::compare::slow_report_markdown(run, split.tracked, threshold) +
                    findings_section_markdown(split.tracked, findings);
  if (!split.states.empty()) out += "\n## Triage\n\n" + split.states;
  if (!split.known.empty()) out += "\n## Known limitations (expected / wontfix)\n\n" + split.known;
  return out;
}

Result<std::string> regression_report(schema::Store& store, const std::string& base_rule, const std::string& target_key,
                                      const analyzers::compare::Thresholds& thresholds) {
  PT_ASSIGN(auto c, compare_runs(store, base_rule, target_key, thresholds));
  return analyzers::compare::regression_report_markdown(c.base, c.target, c.cases, c.aggregates, thresholds);
}

}  // namespace perftriage::server
